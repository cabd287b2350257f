"""Phrase book in free speech: is the patient's own sentence proposed first? (issue 27)

Usage::

    python benchmarks/phrase_book.py [--quick] [--sizes 20 100 300] [--splits dev blind]
        [--fresh] [--out benchmarks/results/phrase_book.json]

Utterances, sentences and books: ``benchmarks/phrase_book_data.py`` (telegraphic,
halting renditions of 327 everyday sentences by the halting benchmark's voices and
rooms, Armelle's recorded words spliced into some, and the halting benchmark's own
utterances whose meaning is in no sentence). Each utterance goes through the app's
path once: ``therapy_app.speech.chain.hear`` (VAD, shortened pauses, recogniser),
then ``chain.correct`` without a book (the loop as it was) and with its book of
each size (``book=``, ``utterance=``: the phrase match, then the corrector).
Measured per split and book size: the first proposal is the meant sentence
(case and punctuation aside), the meant sentence is among the proposals, a book
sentence comes first (out of book: wrong by construction), the same without a
book, and the phrase-matching time (the book indexed beforehand, as a session
does once; the indexing is reported apart). Rates carry Wilson 95 % intervals.

The **blind** half (its utterance ids and texts) is frozen by SHA-256 in
``benchmarks/blind/phrase_book.sha256``, checked at every run, and reported in
aggregate only: its items are never printed or written out. Settings are chosen
on the **dev** half only. ``--quick`` measures a fifth of each kind of utterance.

Resumable: audio is rendered once into ``build/phrase_book/audio/``, every measured
utterance is appended to ``build/phrase_book/rows.jsonl`` and skipped by the next
run while the matcher, the corrector, the models and the data are unchanged
(a fingerprint of them; ``--fresh`` ignores the saved rows). A full run (220
utterances, 3 book sizes) took 9-12 minutes on the shared 2-core machine, about a
minute more the first time (rendering). Writes ``benchmarks/results/phrase_book.json``.
Never uses ``asterisk-core-sounds-fr*`` or ``ktuberling-data`` (reserved).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import statistics
import sys
import time
from collections.abc import Iterable
from dataclasses import asdict
from pathlib import Path
from typing import Any

os.environ["SOX_OPTS"] = "-R"  # repeatable conversion of Armelle's files (human_eval.load_audio)

ROOT = Path(__file__).resolve().parent.parent

import benchmarks.phrase_book_data as data  # noqa: E402
from benchmarks.bookkeeping import frozen_digest, write_report  # noqa: E402
from benchmarks.verdicts import wilson  # noqa: E402
from therapy_app.correction.normalize import normalize_text  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results" / "phrase_book.json"
BLIND_HASH = ROOT / "benchmarks" / "blind" / "phrase_book.sha256"
WORK = ROOT / "build" / "phrase_book"
TARGETS = {
    "first_right_in_book_100": 0.85,
    "phrase_first_out_of_book": 0.05,
    "match_ms_p90_300": 300.0,
}
# What the rows depend on besides the models: a change re-measures every utterance.
_FINGERPRINTED = (
    "therapy_app/phrases",
    "therapy_app/speech/chain.py",
    "therapy_app/correction",
    "therapy_app/asr",
    "benchmarks/phrase_book.py",
    "benchmarks/phrase_book_data.py",
    "benchmarks/phrase_book_sentences.py",
)


def freeze(path: Path = BLIND_HASH) -> str:
    """SHA-256 of the blind utterances (ids, words said, meant sentences); written once."""
    listing = [asdict(item) for item in data.items("blind")]
    note = f"{len(listing)} blind utterances of benchmarks/phrase_book.py"
    return frozen_digest(listing, path, note)


def fingerprint(model_versions: dict[str, str]) -> str:
    """Hash of the code and models the rows were measured with."""
    digest = hashlib.sha256(json.dumps(model_versions, sort_keys=True).encode())
    for name in _FINGERPRINTED:
        path = ROOT / name
        for file in sorted(path.rglob("*.py")) if path.is_dir() else [path]:
            digest.update(file.relative_to(ROOT).as_posix().encode())
            digest.update(file.read_bytes())
    return digest.hexdigest()[:16]


def _same(a: str, b: str) -> bool:
    return normalize_text(a) == normalize_text(b)


def judge(item: data.BenchItem, proposals: list[tuple[str, str]]) -> dict[str, bool]:
    """What a list of (text, source) proposals means for this item."""
    first = proposals[0] if proposals else ("", "")
    return {
        "first_right": any(_same(first[0], m) for m in item.meant),
        "among": any(_same(p, m) for p, _ in proposals for m in item.meant),
        "phrase_first": first[1] == "phrase",
    }


class Measure:
    """The loaded engines and one utterance through the app's path."""

    def __init__(self) -> None:
        from therapy_app.asr.recognizer import SpeechRecognizer
        from therapy_app.correction import Corrector
        from therapy_app.speech.loading import model_versions
        from therapy_app.speech.services import SilentPlayer, SpeechServices
        from therapy_app.vad.silero import VoiceActivityDetector

        recognizer = SpeechRecognizer.load(threads=2)
        self.services = SpeechServices(
            recognizer=recognizer,
            synthesizer=None,  # type: ignore[arg-type]  # nothing is spoken
            vad=VoiceActivityDetector.load(),
            recorder_factory=lambda: None,  # type: ignore[arg-type,return-value]
            player=SilentPlayer(),
            corrector=Corrector.load(),
            model_versions=model_versions(with_corrector=True),
        )
        # chain.correct drops the hearing's encoder output once its book is matched;
        # the app calls it once per utterance, this harness once per book size, so
        # the output is kept for every call (as the app's one call finds it).
        self.services.forget_heard = lambda: None  # type: ignore[method-assign]
        self.provider = recognizer.provider

    def utterance(self, item: data.BenchItem, sizes: Iterable[int]) -> dict[str, Any]:
        """Hear once, correct without a book and with each book; the row of the item."""
        from therapy_app.phrases.match import index_book
        from therapy_app.speech import chain

        clip = data.cached_clip(item, WORK / "audio")
        heard = chain.hear(self.services, clip)
        text = heard.transcript.text if heard is not None else ""
        row: dict[str, Any] = {
            "uid": item.uid, "split": item.split, "kind": item.kind, "family": item.family,
            "severity": item.severity, "pause_bin": item.pause_bin,
            "asr_s": round(heard.asr_seconds, 3) if heard is not None else None,
        }  # fmt: skip
        plain = chain.correct(self.services, text)
        plain_props = [(p.text, "corrector") for p in plain.proposals] if text else []
        row["no_book"] = judge(item, plain_props)
        details: dict[str, Any] = {"said": item.said, "meant": list(item.meant), "heard": text,
                                   "no_book": [p for p, _ in plain_props]}  # fmt: skip
        row["sizes"] = {}
        for size in sizes:
            book = data.book_for(item, size)
            start = time.perf_counter()
            index_book(book)
            index_ms = 1000 * (time.perf_counter() - start)
            props: list[tuple[str, str]] = []
            matches: list[Any] = []
            match_ms = 0.0
            if heard is not None:
                result = chain.correct(self.services, text, book=book, utterance=heard)
                props = [(p.text, p.source) for p in result.proposals]
                matches = list(result.matches)
                match_ms = 1000 * result.phrase_seconds
            cell = {**judge(item, props), "match_ms": round(match_ms, 1),
                    "index_ms": round(index_ms, 1)}  # fmt: skip
            # Diagnosis: the meant sentence among the match's candidates (clear or not).
            cell["in_matches"] = any(_same(m.phrase.text, t) for m in matches for t in item.meant)
            row["sizes"][str(size)] = cell
            details[str(size)] = {
                "proposals": [f"{p} [{s}]" for p, s in props],
                "matches": [[m.phrase.text, m.lexical, m.acoustic, m.clear] for m in matches[:3]],
            }
        if item.split != "blind":  # the blind half's items are never written out
            row["details"] = details
        return row


# ----- figures -------------------------------------------------------------------------
def rate(rows: list[dict[str, Any]], key: str, size: str | None) -> dict[str, Any]:
    """Share of rows where ``key`` holds (with a book of ``size``; None: without a book)."""
    cells = [r["no_book"] if size is None else r["sizes"][size] for r in rows]
    hits = sum(bool(c[key]) for c in cells)
    n = len(cells)
    return {"n": n, "hits": hits, "rate": round(hits / n, 3) if n else None,
            "ci95": wilson(hits, n)}  # fmt: skip


def _spread(values: list[float]) -> dict[str, Any]:
    if not values:
        return {"n": 0, "median": None, "p90": None}
    ordered = sorted(values)
    p90 = ordered[min(len(ordered) - 1, int(round(0.9 * (len(ordered) - 1))))]
    return {"n": len(values), "median": round(statistics.median(values), 1), "p90": round(p90, 1)}


_GROUPS = {
    "in-book": ("in-book", "armelle"),
    "in-book-synthetic": ("in-book",),
    "in-book-armelle": ("armelle",),
    "out-of-book": ("out-of-book",),
}


def summarise(rows: list[dict[str, Any]], sizes: list[int]) -> dict[str, Any]:
    """split -> group -> figures per book size, and the no-book figures."""
    out: dict[str, Any] = {}
    for split in data.SPLITS:
        in_split = [r for r in rows if r["split"] == split]
        if not in_split:
            continue
        groups: dict[str, Any] = {}
        for group, kinds in _GROUPS.items():
            chosen = [r for r in in_split if r["kind"] in kinds]
            if not chosen:
                continue
            cell: dict[str, Any] = {
                "n": len(chosen),
                "no_book": {k: rate(chosen, k, None) for k in ("first_right", "among")},
                "sizes": {},
            }
            for size in map(str, sizes):
                measured = [r for r in chosen if size in r["sizes"]]
                keys = ("first_right", "among", "phrase_first", "in_matches")
                sized = {k: rate(measured, k, size) for k in keys}
                sized["no_book_first_right"] = rate(measured, "first_right", None)
                if group.startswith("in-book"):
                    sized["phrase_first_wrong"] = _wrong_phrase(measured, size)
                cell["sizes"][size] = sized
            groups[group] = cell
        out[split] = groups
    return out


def _wrong_phrase(rows: list[dict[str, Any]], size: str) -> dict[str, Any]:
    """In-book utterances where another book sentence came first."""
    hits = sum(r["sizes"][size]["phrase_first"] and not r["sizes"][size]["first_right"]
               for r in rows)  # fmt: skip
    return {"n": len(rows), "hits": hits, "rate": round(hits / len(rows), 3) if rows else None,
            "ci95": wilson(hits, len(rows))}  # fmt: skip


def latency(rows: list[dict[str, Any]], sizes: list[int]) -> dict[str, Any]:
    """Phrase-matching and book-indexing times per size (all utterances, both halves)."""
    out: dict[str, Any] = {}
    for size in map(str, sizes):
        cells = [r["sizes"][size] for r in rows if size in r["sizes"]]
        out[size] = {"match_ms": _spread([c["match_ms"] for c in cells]),
                     "index_ms": _spread([c["index_ms"] for c in cells])}  # fmt: skip
    out["asr_s"] = _spread([r["asr_s"] for r in rows if r["asr_s"] is not None])
    return out


def _cell(c: dict[str, Any] | None) -> str:
    if not c or not c["n"]:
        return "–"
    low, high = c["ci95"]
    return f"{100 * c['rate']:.0f} % [{100 * low:.0f}–{100 * high:.0f}]"


def print_table(summary: dict[str, Any], timing: dict[str, Any]) -> None:
    """Aggregate figures only (never an item of the blind half)."""
    print("| split | utterances | book | first right | among proposals | book sentence "
          "first | no book: first right |")  # fmt: skip
    print("|---|---|---|---|---|---|---|")
    for split, groups in summary.items():
        for group, cell in groups.items():
            for size, s in cell["sizes"].items():
                print(f"| {split} | {group} (n={cell['n']}) | {size} | {_cell(s['first_right'])} "
                      f"| {_cell(s['among'])} | {_cell(s['phrase_first'])} "
                      f"| {_cell(s['no_book_first_right'])} |")  # fmt: skip
    for split, groups in summary.items():
        for group, cell in groups.items():
            print(f"{split} {group} (n={cell['n']}) without a book: first right "
                  f"{_cell(cell['no_book']['first_right'])}, among proposals "
                  f"{_cell(cell['no_book']['among'])}")  # fmt: skip
    for size, t in timing.items():
        if size != "asr_s":
            print(
                f"book {size}: matching median {t['match_ms']['median']} ms, p90 "
                f"{t['match_ms']['p90']} ms; indexing median {t['index_ms']['median']} ms"
            )
    print(f"recognition median {timing['asr_s']['median']} s")


# ----- run ---------------------------------------------------------------------------
def _saved(path: Path, stamp: str) -> dict[str, dict[str, Any]]:
    rows: dict[str, dict[str, Any]] = {}
    if not path.is_file():
        return rows
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            row = json.loads(line)
            if row.get("fingerprint") == stamp:
                rows[row["uid"]] = row
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a fifth of the utterances")
    parser.add_argument("--sizes", nargs="*", type=int, default=list(data.SIZES))
    parser.add_argument("--splits", nargs="+", default=list(data.SPLITS), choices=data.SPLITS)
    parser.add_argument("--fresh", action="store_true", help="ignore the saved rows")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    digest = freeze()
    measure = Measure()
    versions = measure.services.model_versions
    stamp = fingerprint(versions)
    rows_path = WORK / "rows.jsonl"
    saved = {} if args.fresh else _saved(rows_path, stamp)
    WORK.mkdir(parents=True, exist_ok=True)
    rows: list[dict[str, Any]] = []
    began = time.perf_counter()
    for split in args.splits:
        todo = data.items(split, args.quick)
        for n, item in enumerate(todo, 1):
            row = saved.get(item.uid)
            if row is None or not all(str(s) in row["sizes"] for s in args.sizes):
                row = {**measure.utterance(item, args.sizes), "fingerprint": stamp}
                with rows_path.open("a", encoding="utf-8") as handle:
                    handle.write(json.dumps(row, ensure_ascii=False) + "\n")
            rows.append(row)
            if n % 10 == 0 or n == len(todo):
                elapsed = time.perf_counter() - began
                print(f"  {split}: {n}/{len(todo)} utterances, {elapsed:.0f} s", file=sys.stderr)
    summary = summarise(rows, args.sizes)
    timing = latency(rows, args.sizes)
    results: dict[str, Any] = {
        "machine": {"cpu_count": os.cpu_count(), "python": platform.python_version()},
        "provider": measure.provider,
        "model_versions": versions,
        "fingerprint": stamp,
        "quick": args.quick,
        "sizes": args.sizes,
        "sentences": len(data.texts()),
        "targets": TARGETS,
        "blind_sha256": digest,
        "summary": summary,
        "latency": timing,
        "dev_rows": [  # the dev sets' rows (never the blind half's)
            {k: v for k, v in r.items() if k != "fingerprint"}
            for r in rows
            if r["split"] != "blind"
        ],
    }
    write_report(args.out, results)
    print_table(summary, timing)
    return 0


if __name__ == "__main__":
    sys.exit(main())
