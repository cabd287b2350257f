"""Chooses the phrase match's phoneme settings on the phrase-book benchmark's dev sets.

Usage::

    python benchmarks/phrase_phones_dev.py collect   # hear every dev utterance once (resumable)
    python benchmarks/phrase_phones_dev.py sweep     # replay the settings grid offline

``collect`` runs the dev sets of ``benchmarks/phrase_book.py`` (``dev`` and, since
2026-12-08, ``dev2``: their utterances, audio and books) through the app's path,
``chain.hear`` and ``chain.correct`` without a book, and keeps per utterance the
transcript, the corrector's proposals and the phone reader's posteriors of the clip
the recogniser heard (``build/phrase_phones``, about 2 minutes a set). ``sweep``
scores every sentence of each utterance's books with
``therapy_app.phrases.match.combined_scores`` for each setting of :data:`GRID` and
replays the decision: the first proposal is the clear match or else the corrector's
first. It keeps the setting with the most
meant sentences first in a 100-sentence book among those that put a book
sentence first for at most 5 % of the utterances whose meaning is not in the
book, at every size. Writes ``benchmarks/results/phrase_phones_dev.json``.
Never reads the blind half (docs/decisions/0030-phrase-match-phones.md).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

os.environ["SOX_OPTS"] = "-R"

ROOT = Path(__file__).resolve().parent.parent

import numpy as np  # noqa: E402

import benchmarks.phrase_book_data as data  # noqa: E402

WORK = ROOT / "build" / "phrase_phones"
AUDIO = ROOT / "build" / "phrase_book" / "audio"
DEV_SPLITS = ("dev", "dev2")


def dev_items() -> list[data.BenchItem]:
    """Every utterance of the dev sets (never the blind half)."""
    return [item for split in DEV_SPLITS for item in data.items(split)]


def collect() -> None:
    from benchmarks.phrase_book import Measure
    from therapy_app.speech import chain

    WORK.mkdir(parents=True, exist_ok=True)
    rows_path = WORK / "rows.jsonl"
    done = set()
    if rows_path.is_file():
        done = {json.loads(line)["uid"] for line in rows_path.read_text().splitlines() if line}
    measure = Measure()
    services = measure.services
    reader = services.recognizer.phones
    assert reader is not None
    for n, item in enumerate(dev_items(), 1):
        if item.uid in done:
            continue
        clip = data.cached_clip(item, AUDIO)
        heard = chain.hear(services, clip)
        text = heard.transcript.text if heard is not None else ""
        row: dict[str, Any] = {"uid": item.uid, "kind": item.kind, "meant": list(item.meant),
                               "said": item.said, "heard": text}  # fmt: skip
        plain = chain.correct(services, text)
        row["no_book"] = [p.text for p in plain.proposals] if text else []
        if heard is not None:
            encoded = services.listen().encode(heard.asr_clip)
            np.save(WORK / f"{item.uid}.npy", reader.posteriors(encoded).astype(np.float32))
        with rows_path.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
        print(f"{n} {item.kind} {text!r}", file=sys.stderr, flush=True)


GRID: dict[str, tuple[float, ...]] = {
    "phone_unexplained": (0.5, 1.0, 2.0, 3.0),
    "phone_leave": (-3.0, -5.0, -7.0),
    "phone_lexical": (0.0, 0.5, 1.0, 2.0, 3.0),
    "phone_margin": (1.0, 1.3, 1.6, 2.0, 2.5),
    "phone_unexplained_share": (0.2, 0.3, 0.4, 0.5, 1.0),
}
OUT_LIMIT = 0.05


def _same(a: str, b: str) -> bool:
    from therapy_app.correction.normalize import normalize_text

    return normalize_text(a) == normalize_text(b)


def _scored(rows: list[dict[str, Any]], leave: float, unexplained: float) -> dict[str, Any]:
    """Per utterance: its largest book's sentences with phoneme and lexical scores.

    The books are nested (``data.book_for``): the smaller ones are read off the largest.
    """
    from dataclasses import replace

    from therapy_app.phrases import match

    settings = replace(
        match.DEFAULT_SETTINGS, phone_leave=leave, phone_unexplained=unexplained, phone_lexical=0.0
    )
    items = {i.uid: i for i in dev_items()}
    out: dict[str, Any] = {}
    for row in rows:
        path = WORK / f"{row['uid']}.npy"
        if not path.is_file() or not row["heard"].strip():
            out[row["uid"]] = None  # nothing heard: the app tries no match
            continue
        book = data.book_for(items[row["uid"]], max(data.SIZES))
        index = match.index_book(book)
        fit = match.combined_scores(np.load(path), index, row["heard"], settings)
        out[row["uid"]] = {
            p.text: (ph, lx, un)
            for p, ph, lx, un in zip(
                book.phrases, fit.combined, fit.lexical, fit.unexplained, strict=True
            )
        }
    return out


def _first(
    row: dict[str, Any],
    scores: dict[str, Any] | None,
    books: dict[int, list[str]],
    size: int,
    lexical: float,
    margin: float,
    share: float,
) -> tuple[str, bool]:
    base = row["no_book"][0] if row["no_book"] else row["heard"]
    if scores is None:
        return base, False
    combined = sorted(
        ((scores[t][0] + lexical * scores[t][1], t) for t in books[size]), reverse=True
    )
    if combined[0][0] - combined[1][0] >= margin and scores[combined[0][1]][2] <= share:
        return combined[0][1], True
    return base, False


def evaluate(
    rows: list[dict[str, Any]],
    scored: dict[str, Any],
    books: dict[str, Any],
    lexical: float,
    margin: float,
    share: float,
) -> dict[str, float]:
    """First-proposal rates per book size for one setting."""
    out: dict[str, float] = {}
    for size in data.SIZES:
        right = wrong = phrase_out = n_in = n_out = 0
        for row in rows:
            first, phrase = _first(
                row, scored[row["uid"]], books[row["uid"]], size, lexical, margin, share
            )
            if row["kind"] == "out-of-book":
                n_out += 1
                phrase_out += phrase
            else:
                n_in += 1
                ok = any(_same(first, m) for m in row["meant"])
                right += ok
                wrong += phrase and not ok
        out[f"in{size}_first_right"] = round(right / n_in, 3)
        out[f"in{size}_other_phrase_first"] = round(wrong / n_in, 3)
        out[f"out{size}_phrase_first"] = round(phrase_out / n_out, 3)
    return out


def sweep() -> None:
    import itertools
    import time

    from benchmarks.bookkeeping import write_report

    rows = load_rows()
    items = {i.uid: i for i in dev_items()}
    books = {
        row["uid"]: {s: [p.text for p in data.book_for(items[row["uid"]], s).phrases]
                     for s in data.SIZES}
        for row in rows
    }  # fmt: skip
    results = []
    began = time.perf_counter()
    for unexplained, leave in itertools.product(GRID["phone_unexplained"], GRID["phone_leave"]):
        scored = _scored(rows, leave, unexplained)
        for lexical, margin, share in itertools.product(
            GRID["phone_lexical"], GRID["phone_margin"], GRID["phone_unexplained_share"]
        ):
            settings = {"phone_unexplained": unexplained, "phone_leave": leave,
                        "phone_lexical": lexical, "phone_margin": margin,
                        "phone_unexplained_share": share}  # fmt: skip
            results.append({"settings": settings,
                            **evaluate(rows, scored, books, lexical, margin, share)})  # fmt: skip
        print(f"  unexplained {unexplained}, leave {leave}: {time.perf_counter() - began:.0f} s",
              file=sys.stderr)  # fmt: skip

    def worst_out(r: dict[str, Any]) -> float:
        return max(r[f"out{s}_phrase_first"] for s in data.SIZES)

    results.sort(key=lambda r: (worst_out(r) > OUT_LIMIT, -r["in100_first_right"],
                                worst_out(r), r["in100_other_phrase_first"]))  # fmt: skip
    n_in = sum(r["kind"] != "out-of-book" for r in rows)
    report = {
        "utterances": {"in_book": n_in, "out_of_book": len(rows) - n_in},
        "grid": GRID,
        "out_limit": OUT_LIMIT,
        "chosen": results[0],
        "best": results[:20],
    }
    write_report(ROOT / "benchmarks" / "results" / "phrase_phones_dev.json", report)
    for r in results[:10]:
        print(r["settings"], {k: v for k, v in r.items() if k != "settings"})


def load_rows() -> list[dict[str, Any]]:
    """The collected dev utterances."""
    lines = (WORK / "rows.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line]


if __name__ == "__main__":
    {"collect": collect, "sweep": sweep}[sys.argv[1]]()
