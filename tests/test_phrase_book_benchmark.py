"""The phrase-book benchmark's data: sentences, utterances, books, the frozen blind half."""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict
from pathlib import Path

import pytest

from benchmarks import figures
from benchmarks import phrase_book_data as data
from therapy_app.correction.normalize import normalize_text

ROOT = Path(__file__).resolve().parents[1]


def test_sentences_are_many_distinct_and_split_in_two_halves():
    texts = data.texts()
    assert len(texts) >= 300
    assert len({normalize_text(t) for t in texts}) == len(texts)
    halves = {data.split_of(t) for t in texts}
    assert halves == {"dev", "blind"}
    assert all(t[0].isupper() and t[-1] in ".?!" for t in texts)


def test_an_untagged_open_class_word_is_refused():
    with pytest.raises(ValueError, match="boulangerie"):
        data.parse("je vais/V:aller à la boulangerie .")


def test_in_book_utterances_are_telegraphic_renditions_of_their_own_half():
    for split in data.SPLITS:
        items = data.in_book_items(split)
        assert len(items) == data.IN_BOOK
        assert all(data.split_of(it.meant[0]) == data.HALF[split] for it in items)
        changed = [it for it in items if it.said != normalize_text(it.meant[0])]
        assert len(changed) >= 0.9 * len(items)
        # Shorter on the whole: words dropped, as a telegraphic speaker does.
        said = sum(len(it.said.split()) for it in items)
        assert said < sum(len(normalize_text(it.meant[0]).split()) for it in items)
        assert {it.family for it in items} >= {"pico", "espeak-fr"}


def test_the_second_dev_set_means_other_sentences_and_other_utterances_than_the_first():
    first, second = data.items("dev"), data.items("dev2")
    meant = {it.meant[0] for it in first if it.kind != "out-of-book"}
    assert not meant & {it.meant[0] for it in second if it.kind != "out-of-book"}
    assert not {it.uid for it in first} & {it.uid for it in second}
    assert not {it.origin for it in first if it.origin} & {it.origin for it in second}


def test_armelle_utterances_keep_one_of_her_recorded_words():
    for split in data.SPLITS:
        items = data.armelle_items(split)
        assert len(items) == data.ARMELLE
        assert all(data.armelle_word(it.said) for it in items)
        assert all(data.split_of(it.meant[0]) == data.HALF[split] for it in items)


def test_out_of_book_utterances_mean_nothing_of_the_book():
    book = data.texts()
    for split in data.SPLITS:
        items = data.out_of_book_items(split)
        assert len(items) == data.OUT_OF_BOOK
        for it in items:
            assert not any(data.same_meaning(r, t) for r in it.meant for t in book)


def test_same_meaning_catches_a_sentence_with_one_more_word():
    assert data.same_meaning("Je vais à la pharmacie demain.", "Je vais à la pharmacie.")
    assert data.same_meaning("Je suis allé à la boulangerie.", "Je suis allée à la boulangerie.")
    assert not data.same_meaning("Le chien dort.", "Mon chien s'appelle Filou.")


def test_out_of_book_utterances_are_the_halting_benchmarks_own(monkeypatch):
    """Same items, voices and pause bins as models.halting.sets.build_set (audio not made)."""
    from models.halting import sets

    said = []
    monkeypatch.setattr(sets, "speak_halting", lambda *args, **kw: said.append((args, kw)))
    sets.build_set("blind", data.HALTING_SIZE, "mixed")
    ours = data.halting_items("blind")
    assert [(a[0], a[2].name, a[3]) for a, _ in said] == [
        (item.uid, voice.name, pause_bin) for item, voice, pause_bin in ours
    ]


def test_books_are_nested_hold_the_meant_sentence_and_are_seeded():
    item = data.in_book_items("dev")[3]
    books = {size: data.book_for(item, size) for size in data.SIZES}
    texts = {size: {p.text for p in book.phrases} for size, book in books.items()}
    assert [len(texts[s]) for s in data.SIZES] == list(data.SIZES)
    assert texts[20] <= texts[100] <= texts[300]
    assert item.meant[0] in texts[20]
    assert data.book_for(item, 100) == books[100]
    other = data.in_book_items("dev")[4]
    assert {p.text for p in data.book_for(other, 20).phrases} != texts[20]
    outside = data.out_of_book_items("dev")[0]
    assert len(data.book_for(outside, 300)) == 300


def test_the_blind_half_is_the_frozen_one():
    listing = [asdict(item) for item in data.items("blind")]
    digest = hashlib.sha256(json.dumps(listing, ensure_ascii=False).encode()).hexdigest()
    frozen = (ROOT / "benchmarks/blind/phrase_book.sha256").read_text(encoding="utf-8")
    assert frozen.split()[0] == digest


def _cell(rate: float, n: int = 10) -> dict:
    return {"n": n, "hits": round(rate * n), "rate": rate, "ci95": [0.1, 0.9]}


def test_the_figures_section_reports_each_target(tmp_path: Path):
    sizes = {
        "100": {
            "first_right": _cell(0.9),
            "among": _cell(0.9),
            "phrase_first": _cell(0.9),
            "in_matches": _cell(1.0),
            "phrase_first_wrong": _cell(0.0),
            "no_book_first_right": _cell(0.1),
        }
    }
    outside = {
        "100": {
            "first_right": _cell(0.2),
            "among": _cell(0.3),
            "phrase_first": _cell(0.1),
            "in_matches": _cell(0.0),
            "no_book_first_right": _cell(0.3),
        }
    }
    result = {
        "sentences": 327,
        "blind_sha256": "ab" * 32,
        "targets": {
            "first_right_in_book_100": 0.85,
            "phrase_first_out_of_book": 0.05,
            "match_ms_p90_300": 300.0,
        },
        "summary": {
            "blind": {
                "in-book": {"n": 10, "sizes": sizes},
                "out-of-book": {"n": 10, "sizes": outside},
            }
        },
        "latency": {
            "300": {
                "match_ms": {"n": 10, "median": 120.0, "p90": 350.0},
                "index_ms": {"n": 10, "median": 12.0, "p90": 15.0},
            },
            "asr_s": {"n": 10, "median": 1.8, "p90": 2.5},
        },
    }
    (tmp_path / "phrase_book.json").write_text(json.dumps(result), encoding="utf-8")
    page = figures.render(tmp_path)
    assert "## Phrase book in free speech" in page
    row = "| blind | in the book (all) | 100 | 90 % [10–90] (n=10) | 90 % [10–90] (n=10) | 100 %"
    assert row in page
    assert "first right: 90 % (target ≥ 85 %: yes)" in page
    assert "book sentence first 10 % (target ≤ 5 %: **no**)" in page
    assert "first right 2 with the book vs 3 without (no loss: **no**)" in page
    assert "300-sentence book: 350 ms (target ≤ 300 ms: **no**)" in page
