"""Storage benchmark: history query on 100,000 attempts and attempts.add latency.

Usage: ``python benchmarks/storage.py [--attempts 100000] [--keep DIR]``. Prints a
table and writes ``benchmarks/results/storage.json``. Targets: the history of one
patient in at most 1 s.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

from therapy_app.audio.clip import AudioClip  # noqa: E402
from therapy_app.domain.attempt_record import AttemptRecord, Candidate  # noqa: E402
from therapy_app.storage import SessionRepository  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results" / "storage.json"
HISTORY_TARGET_S = 1.0
PATIENTS = 50
ATTEMPTS_PER_SESSION = 25
_VOCAB = "le la un chat chien pain eau je veux manger boire dort maison sur dans et".split()


def _sentence(rng: random.Random) -> str:
    return " ".join(rng.choice(_VOCAB) for _ in range(rng.randint(1, 9)))


def _record(rng: random.Random, session_id: int, kind: str, at: datetime) -> AttemptRecord:
    target = _sentence(rng) if kind != "free_speech" else None
    return AttemptRecord(
        session_id=session_id,
        kind=kind,  # type: ignore[arg-type]
        raw_transcript=_sentence(rng),
        target_text=target,
        duration_s=rng.uniform(1.0, 8.0),
        token_logprobs=[-rng.random() for _ in range(6)],
        avg_logprob=-rng.random(),
        correction_best=_sentence(rng),
        correction_alternatives=[Candidate(_sentence(rng), -rng.random()) for _ in range(3)],
        target_score=rng.random(),
        pause_ratio=rng.uniform(0.0, 0.6),
        provider="CPUExecutionProvider",
        model_versions={"whisper-base": "1.0"},
        created_at=at,
    )


def populate(repo: SessionRepository, total: int, seed: int = 1) -> list[int]:
    """Fill the database through the public API, one outer transaction per session."""
    rng = random.Random(seed)
    kinds = ("free_speech", "repetition", "completion")
    patients = [repo.patients.create(f"Patient {i:03d}").id for i in range(PATIENTS)]
    start = datetime(2024, 1, 1, tzinfo=UTC)
    made = 0
    session_no = 0
    while made < total:
        patient_id = patients[session_no % PATIENTS]
        kind = kinds[session_no % 3]
        at = start + timedelta(hours=6 * session_no)
        session = repo.sessions.start(patient_id, kind)
        with repo.transaction("benchmark fill"):
            for j in range(min(ATTEMPTS_PER_SESSION, total - made)):
                repo.attempts.add(_record(rng, session.id, kind, at + timedelta(seconds=30 * j)))
                made += 1
        session_no += 1
    return patients


def _timings(fn: Callable[[], Any], runs: int) -> dict[str, float]:
    values = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()
        values.append(time.perf_counter() - t0)
    values.sort()
    return {
        "runs": runs,
        "median_s": statistics.median(values),
        "p95_s": values[min(len(values) - 1, int(0.95 * len(values)))],
        "max_s": values[-1],
    }


def _query_plan(db_path: Path, patient_id: int) -> list[str]:
    conn = sqlite3.connect(db_path)
    rows = conn.execute(
        "EXPLAIN QUERY PLAN SELECT s.id, COUNT(a.id), AVG(a.wer) FROM sessions AS s"
        " LEFT JOIN attempts AS a ON a.session_id = s.id WHERE s.patient_id = ? GROUP BY s.id",
        (patient_id,),
    ).fetchall()
    conn.close()
    return [row[-1] for row in rows]


def run(total: int, workdir: Path) -> dict[str, Any]:
    data_dir = workdir / "data"
    t0 = time.perf_counter()
    with SessionRepository(data_dir) as repo:
        patients = populate(repo, total)
    fill_s = time.perf_counter() - t0

    results: dict[str, Any] = {
        "attempts": total,
        "patients": PATIENTS,
        "fill_s": fill_s,
        "db_bytes": (data_dir / "therapy_app.sqlite3").stat().st_size,
    }
    # Fresh connection: the first query pays for a cold page cache of SQLite.
    with SessionRepository(data_dir) as repo:
        patient = patients[len(patients) // 2]
        t1 = time.perf_counter()
        history = repo.history.summaries(patient)
        results["history_first_call_s"] = time.perf_counter() - t1
        results["history_sessions"] = len(history)
        results["history_attempts"] = sum(h.attempt_count for h in history)
        results["history"] = _timings(lambda: repo.history.summaries(patient), 20)
        results["progress"] = _timings(lambda: repo.history.progress(patient, "accuracy"), 20)
        results["list_attempts_patient"] = _timings(
            lambda: repo.attempts.all(patient_id=patient), 5
        )
        results["export_patient"] = _timings(lambda: repo.history.export_rows(patient), 5)

        rng = random.Random(7)
        session = repo.sessions.start(patient, "repetition")
        results["add_attempt"] = _timings(
            lambda: repo.attempts.add(_record(rng, session.id, "repetition", datetime.now(UTC))),
            100,
        )
        clip = AudioClip(
            (np.random.default_rng(0).standard_normal(48_000) * 0.1).astype(np.float32)
        )
        results["add_attempt_with_3s_recording"] = _timings(
            lambda: repo.attempts.add(
                _record(rng, session.id, "repetition", datetime.now(UTC)), clip
            ),
            100,
        )
        results["integrity"] = repo.maintenance.integrity_check()
    results["history_query_plan"] = _query_plan(data_dir / "therapy_app.sqlite3", patient)
    results["history_target_s"] = HISTORY_TARGET_S
    results["history_within_target"] = results["history"]["max_s"] <= HISTORY_TARGET_S
    results["machine"] = {
        "python": platform.python_version(),
        "sqlite": sqlite3.sqlite_version,
        "platform": platform.platform(),
    }
    return results


def _print_table(results: dict[str, Any]) -> None:
    print(
        f"attempts: {results['attempts']:,}  patients: {results['patients']}  "
        f"db: {results['db_bytes'] / 1e6:.1f} MB  fill: {results['fill_s']:.1f} s"
    )
    print(
        f"history of one patient: {results['history_sessions']} sessions, "
        f"{results['history_attempts']} attempts, first call "
        f"{results['history_first_call_s'] * 1000:.1f} ms"
    )
    print(f"{'operation':<32}{'median ms':>12}{'p95 ms':>12}{'max ms':>12}")
    for key in (
        "history",
        "progress",
        "list_attempts_patient",
        "export_patient",
        "add_attempt",
        "add_attempt_with_3s_recording",
    ):
        t = results[key]
        print(
            f"{key:<32}{t['median_s'] * 1000:>12.2f}{t['p95_s'] * 1000:>12.2f}"
            f"{t['max_s'] * 1000:>12.2f}"
        )
    verdict = "OK" if results["history_within_target"] else "TOO SLOW"
    print(f"history target <= {results['history_target_s']:.0f} s: {verdict}")
    print("query plan:", "; ".join(results["history_query_plan"]))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--attempts", type=int, default=100_000)
    parser.add_argument("--keep", type=Path, help="build the database here and keep it")
    parser.add_argument("--output", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    if args.keep:
        args.keep.mkdir(parents=True, exist_ok=True)
        results = run(args.attempts, args.keep)
    else:
        with tempfile.TemporaryDirectory() as tmp:
            results = run(args.attempts, Path(tmp))
    _print_table(results)
    args.output.parent.mkdir(parents=True, exist_ok=True)
    args.output.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    print(f"wrote {args.output}")
    return 0 if results["history_within_target"] else 1


if __name__ == "__main__":
    raise SystemExit(main())
