"""Dev set for the phrase-book match: measures its numbers and chooses its thresholds.

Since decision 0030 these are the thresholds of the decoder's check, which the match
uses only with a recogniser that has no phone reader; the phoneme path's settings are
chosen by ``benchmarks/phrase_phones_dev.py``.

Usage::

    python benchmarks/phrase_match_dev.py [--size 200] [--reuse]

Halting utterances of the DEV split only (``models/halting/sets.py``: the first and
second hand-written sets, mixed voices, pauses, "euh", rooms, noise); never the
blind split, which ``benchmarks/phrase_book.py`` reports. Each utterance meant its
item's first reference sentence. Phrase books of 20 / 100 / 300 sentences are drawn
from the other dev items' first references: "in" books contain the meant sentence,
"out" books none of the item's references.

Each utterance is heard once by the app's path (VAD, shortened pauses, default
decoding, encoder output kept), corrected once by the installed corrector, and
the recogniser scores every sentence any setting of the grid could check
acoustically (full and telegraphic forms, and the transcript). The grid of
thresholds is then swept offline over those numbers, through the same
``therapy_app.phrases.match`` functions the app runs.
"""

from __future__ import annotations

import argparse
import functools
import itertools
import json
import os
import platform
import sys
import time
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

import numpy as np  # noqa: E402

from benchmarks.bookkeeping import write_report  # noqa: E402
from models.halting.sets import build_set, load_items  # noqa: E402
from therapy_app.asr.recognizer import SpeechRecognizer  # noqa: E402
from therapy_app.asr.utterance import hear, prepare  # noqa: E402
from therapy_app.correction import Corrector  # noqa: E402
from therapy_app.correction.normalize import normalize_text  # noqa: E402
from therapy_app.phrases import match  # noqa: E402
from therapy_app.phrases.model import Phrase, PhraseBook, PhraseSource  # noqa: E402
from therapy_app.practice.scoring import EncodeOnce  # noqa: E402
from therapy_app.vad.silero import VoiceActivityDetector  # noqa: E402

SIZES = (20, 100, 300)
# A first sweep (similar 0.55/0.6/0.7, extra_penalty 0.25-1.0, candidate_floor 0.2/0.3)
# kept similar=0.6 and candidate_floor=0.2 in every one of its 15 best settings; the
# sweep with the prior (margins 0-0.8, prior weights 0-1, 2-5 candidates) had its best
# at the top of the margin and weight ranges and never used 2 candidates.
LEXICAL_GRID = {"similar": (0.6,), "extra_penalty": (0.5, 1.0)}
DECISION_GRID: dict[str, tuple[Any, ...]] = {
    "candidate_floor": (0.2,),
    "candidates": (3, 5),
    "lexical_floor": (0.3, 0.4, 0.5, 0.6),
    "margin": (0.4, 0.6, 0.8, 1.0, 1.2, 1.5),
    "transcript_gap": (None, -1.5, -1.0, -0.5),
    "sure_lexical": (None, 0.7, 0.85, 1.0),
    "prior_weight": (0.0, 0.75, 1.0, 1.25, 1.5),
}
SCORED_PER_BOOK = 5


@functools.cache
def _same(a: str, b: str) -> bool:
    return normalize_text(a) == normalize_text(b)


def _books(items: list[Any], uid: str, refs: tuple[str, ...]) -> dict[str, list[str]]:
    """The in- and out-of-book phrase books of one utterance (deterministic)."""
    pool = list(dict.fromkeys(it.refs[0] for it in items if it.uid != uid))
    pool = [p for p in pool if not any(_same(p, r) for r in refs)]
    rng = np.random.default_rng(_seed(uid))
    order = [pool[i] for i in rng.permutation(len(pool))]
    books = {}
    for size in SIZES:
        others = order[: size - 1]
        at = int(rng.integers(0, len(others) + 1))
        books[f"in{size}"] = [*others[:at], refs[0], *others[at:]]
        books[f"out{size}"] = order[:size]
    return books


def _seed(uid: str) -> int:
    import zlib

    return zlib.crc32(uid.encode())


def _book(texts: list[str]) -> PhraseBook:
    return PhraseBook(tuple(Phrase(t, PhraseSource.FILE) for t in texts))


def hear_all(size: int, cache: Path) -> list[dict[str, Any]]:
    """Hear and correct every utterance once (cached in ``cache``: the slow part)."""
    known: dict[str, dict[str, Any]] = {}
    if cache.is_file():
        known = {r["uid"]: r for r in json.loads(cache.read_text(encoding="utf-8"))}
    recognizer = SpeechRecognizer.load(provider="cpu")
    vad = VoiceActivityDetector.load()
    corrector = Corrector.load(provider="cpu")
    rows = []
    for k, (item, utt) in enumerate(build_set("dev", size=size)):
        if item.uid not in known:
            heard = hear(recognizer, vad, utt.clip)
            text = heard.transcript.text if heard is not None else ""
            corrected = corrector.correct(text).alternatives if text.strip() else []
            known[item.uid] = {
                "uid": item.uid,
                "voice": utt.voice,
                "src": item.src,
                "refs": list(item.refs),
                "heard": text,
                "corrected": [a.text for a in corrected],
                "asr_s": heard.asr_seconds if heard is not None else 0.0,
            }
            cache.write_text(json.dumps(list(known.values()), ensure_ascii=False), "utf-8")
        rows.append(known[item.uid])
        print(f"[{k + 1}/{size}] heard {rows[-1]['heard']!r}", file=sys.stderr, flush=True)
    return rows


def measure(size: int, cache: Path) -> list[dict[str, Any]]:
    """The raw numbers the sweep needs: books, and acoustic scores of every possible candidate."""
    items = load_items("dev")
    heard_rows = {r["uid"]: r for r in hear_all(size, cache)}
    recognizer = SpeechRecognizer.load(provider="cpu")
    vad = VoiceActivityDetector.load()
    rows = []
    for k, (item, utt) in enumerate(build_set("dev", size=size)):
        row = dict(heard_rows[item.uid])
        text = row["heard"]
        books = _books(items, item.uid, item.refs)
        needed: set[str] = set()
        for texts in books.values():
            index = match.index_book(_book(texts))
            for similar, penalty in itertools.product(*LEXICAL_GRID.values()):
                settings = replace(match.DEFAULT_SETTINGS, similar=similar, extra_penalty=penalty)
                ranked = match.lexical_scores(index, text, settings)[:SCORED_PER_BOOK]
                needed.update(index.book.phrases[r.sentence].text for r in ranked)
        scores: dict[str, Any] = {}
        prepared = prepare(vad, utt.clip)
        start = time.perf_counter()
        if prepared is not None and needed and text.strip():
            sentences = sorted(needed)
            big = match.index_book(_book(sentences))
            once = EncodeOnce(recognizer)
            check = match.acoustic_check(
                once, prepared[1], big, range(len(sentences)), text, priors=True
            )
            scores = {
                "full": dict(zip(sentences, check.full, strict=True)),
                "telegraphic": dict(zip(sentences, check.telegraphic, strict=True)),
                "transcript": check.transcript,
                "prior_full": dict(zip(sentences, check.prior_full, strict=True)),
                "prior_telegraphic": dict(zip(sentences, check.prior_telegraphic, strict=True)),
            }
        row.update(books=books, acoustic=scores, acoustic_s=time.perf_counter() - start)
        rows.append(row)
        print(f"[{k + 1}/{size}] {text!r} ({len(needed)} scored)", file=sys.stderr, flush=True)
    return rows


Ranked = dict[tuple[int, str, tuple[float, float]], list[tuple[str, float]]]


def rank_all(rows: list[dict[str, Any]]) -> Ranked:
    """The lexical ranking of every (utterance, book, lexical setting): the sweep's slow part."""
    ranked: Ranked = {}
    for i, row in enumerate(rows):
        for book in row["books"]:
            index = match.index_book(_book(row["books"][book]))
            for lex in itertools.product(*LEXICAL_GRID.values()):
                settings = replace(match.DEFAULT_SETTINGS, similar=lex[0], extra_penalty=lex[1])
                found = match.lexical_scores(index, row["heard"], settings)[:SCORED_PER_BOOK]
                ranked[i, book, lex] = [
                    (index.book.phrases[r.sentence].text, r.score) for r in found
                ]
    return ranked


def _first(
    row: dict[str, Any], ranked: list[tuple[str, float]], settings: match.MatchSettings
) -> tuple[str, bool]:
    """(first proposal, whether it is a phrase-book sentence) for one utterance and book."""
    checked = [r for r in ranked[: settings.candidates] if r[1] >= settings.candidate_floor]
    corrector_first = row["corrected"][0] if row["corrected"] else row["heard"]
    scores = row["acoustic"]
    if not checked or not scores:
        return corrector_first, False
    check = match.AcousticCheck(
        tuple(scores["full"][t] for t, _ in checked),
        tuple(scores["telegraphic"][t] for t, _ in checked),
        scores["transcript"],
        prior_full=tuple(scores["prior_full"][t] for t, _ in checked),
        prior_telegraphic=tuple(scores["prior_telegraphic"][t] for t, _ in checked),
    )
    clear, _ = match.decide([r[1] for r in checked], check, settings)
    if clear is None:
        return corrector_first, False
    return checked[clear][0], True


def evaluate(
    rows: list[dict[str, Any]], ranked: Ranked, settings: match.MatchSettings
) -> dict[str, float]:
    """First-proposal rates per book for one setting."""
    lex = (settings.similar, settings.extra_penalty)
    out: dict[str, float] = {}
    for size in SIZES:
        right = phrase_out = lost = 0
        for i, row in enumerate(rows):
            refs = row["refs"]
            first, _ = _first(row, ranked[i, f"in{size}", lex], settings)
            right += any(_same(first, r) for r in refs)
            first_out, is_phrase = _first(row, ranked[i, f"out{size}", lex], settings)
            phrase_out += is_phrase
            base = row["corrected"][0] if row["corrected"] else row["heard"]
            lost += any(_same(base, r) for r in refs) and not any(_same(first_out, r) for r in refs)
        n = len(rows)
        out[f"in{size}_first_right"] = round(right / n, 3)
        out[f"out{size}_phrase_first"] = round(phrase_out / n, 3)
        out[f"out{size}_lost"] = round(lost / n, 3)
    base_right = sum(
        any(_same(r["corrected"][0] if r["corrected"] else r["heard"], x) for x in r["refs"])
        for r in rows
    )
    out["no_book_first_right"] = round(base_right / len(rows), 3)
    return out


def sweep(rows: list[dict[str, Any]], ranked: Ranked) -> list[dict[str, Any]]:
    """Every setting of the grid with its rates, best in-book (100) first among safe ones."""
    results = []
    for lex in itertools.product(*LEXICAL_GRID.values()):
        for dec in itertools.product(*DECISION_GRID.values()):
            values = dict(zip(LEXICAL_GRID, lex, strict=True)) | dict(
                zip(DECISION_GRID, dec, strict=True)
            )
            settings = replace(match.DEFAULT_SETTINGS, **values)
            results.append({"settings": values, **evaluate(rows, ranked, settings)})
    results.sort(
        key=lambda r: (
            max(r["out20_phrase_first"], r["out100_phrase_first"], r["out300_phrase_first"]) > 0.05,
            -r["in100_first_right"],
            r["out100_phrase_first"],
        )
    )
    return results


def latency(size: int) -> dict[str, Any]:
    """Seconds the phrase book adds to an utterance (300 sentences), through the app's path.

    ``chain.run_utterance`` with the book: hearing keeps its encoder output, the
    match (lexical pass over the book, acoustic check of the few best) reuses it.
    """
    from therapy_app.speech import chain
    from therapy_app.speech.loading import load_services
    from therapy_app.speech.services import SilentPlayer

    items = load_items("dev")
    services = load_services(player=SilentPlayer())
    added, checked = [], 0
    for item, utt in build_set("dev", size=size):
        book = _book(_books(items, item.uid, item.refs)["in300"])
        match.index_book(book)  # built when the session starts, not per utterance
        heard = chain.hear(services, utt.clip)
        if heard is None:
            continue
        result = chain.correct(services, heard.transcript.text, book=book, utterance=heard)
        added.append(result.phrase_seconds)
        checked += any(m.acoustic is not None for m in result.matches)
    return {
        "n": len(added),
        "book": 300,
        "added_median_s": round(float(np.median(added)), 3),
        "added_p90_s": round(float(np.percentile(added, 90)), 3),
        "added_max_s": round(float(np.max(added)), 3),
        "acoustic_checks": checked,
        "cpus": os.cpu_count(),
        "load_average": os.getloadavg(),
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=160)
    parser.add_argument(
        "--out", type=Path, default=ROOT / "benchmarks/results/phrase_match_dev.json"
    )
    parser.add_argument(
        "--cache", type=Path, default=ROOT / "benchmarks/out/phrase_match_dev_rows.json"
    )
    parser.add_argument(
        "--heard", type=Path, default=ROOT / "benchmarks/out/phrase_match_dev_heard.json"
    )
    parser.add_argument("--reuse", action="store_true", help="sweep the cached rows again")
    parser.add_argument("--latency", type=int, default=0, help="also time N utterances")
    args = parser.parse_args(argv)
    if args.reuse and args.cache.is_file():
        rows = json.loads(args.cache.read_text(encoding="utf-8"))
    else:
        rows = measure(args.size, args.heard)
        args.cache.parent.mkdir(parents=True, exist_ok=True)
        args.cache.write_text(json.dumps(rows, ensure_ascii=False), encoding="utf-8")
    ranked = rank_all(rows)
    results = sweep(rows, ranked)
    chosen = evaluate(rows, ranked, match.DEFAULT_SETTINGS)
    report = {
        "split": "dev",
        "n": len(rows),
        "machine": platform.processor() or platform.machine(),
        "default_settings": asdict(match.DEFAULT_SETTINGS),
        "default": chosen,
        "best": results[:15],
        "acoustic_s_median": float(np.median([r["acoustic_s"] for r in rows])),
    }
    if args.latency:
        report["latency"] = latency(args.latency)
    write_report(args.out, report)
    print(json.dumps({"default": chosen, "best": results[:5]}, ensure_ascii=False, indent=1))


if __name__ == "__main__":
    main()
