"""Judging and reporting the fault probes: one result per probe, tables per category."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from benchmarks.fault_sandbox import MEMORY_KILL_MB, MEMORY_LIMIT_MB, Outcome

# Python and NumPy warnings are English: the user must never see one.
_ENGLISH_WARNING = re.compile(r"\w+Warning\b|overflow encountered|invalid value encountered")


@dataclass
class Result:
    """One probe's outcome, as written to ``faults.json``.

    Attributes:
        name: the probe.
        category: its table row.
        crashed: a traceback, an unexpected exit status or behaviour.
        lost: attempts, recordings or files lost.
        orphans: recordings or temporary files no attempt refers to.
        network: network calls.
        seconds: wall time.
        detail: the last stderr line, or what went wrong.
        outside: paths written outside the data folder and declared outputs.
        hung: killed at its time limit.
        peak_mb: peak memory of its process tree, MiB (None: not measured).
        expected: what the probe must do to pass.
        outside_paths: the first few of those paths.
    """

    name: str
    category: str
    crashed: bool
    lost: int
    orphans: int
    network: int
    seconds: float
    detail: str
    outside: int = 0
    hung: bool = False
    peak_mb: float | None = None
    expected: str = ""
    outside_paths: list[str] = field(default_factory=list)

    @classmethod
    def measured(
        cls, name: str, category: str, outcome: Outcome, crashed: bool, detail: str, **more: Any
    ) -> Result:
        """A result carrying ``outcome``'s measurements."""
        return cls(
            name,
            category,
            crashed,
            more.pop("lost", 0),
            more.pop("orphans", 0),
            max(outcome.network, 0),
            round(outcome.seconds, 2),
            detail,
            outside=len(outcome.outside),
            hung=outcome.hung,
            peak_mb=round(outcome.peak_mb, 1),
            outside_paths=outcome.outside[:5],
            **more,
        )

    @property
    def over_memory(self) -> bool:
        return self.peak_mb is not None and self.peak_mb > MEMORY_LIMIT_MB

    @property
    def failed(self) -> bool:
        """Any count off target."""
        return bool(
            self.crashed or self.lost or self.orphans or self.network or self.outside
            or self.hung or self.over_memory
        )  # fmt: skip


def judge(outcome: Outcome, expected: set[int], warnings: bool = False) -> tuple[bool, str]:
    """Whether a finished command crashed, and a one-line detail.

    A crash is a Python traceback, an exit status not in ``expected``, an exit
    status 2 without its ``Erreur : `` line, or (``warnings``) a Python or
    NumPy warning on stderr. A hang is not judged here: it has its own count.

    Returns:
        (crashed, detail).
    """
    err = outcome.err
    if outcome.hung:
        return False, f"hang: killed after {outcome.seconds:.0f} s"
    if outcome.peak_mb > MEMORY_KILL_MB:
        return False, f"killed past {MEMORY_KILL_MB:.0f} MB"
    if "Traceback" in err:
        return True, err.strip().splitlines()[-1][:200]
    if outcome.returncode not in expected:
        return True, f"exit {outcome.returncode}: {err.strip()[-200:]}"
    if outcome.returncode == 2 and not any(
        line.startswith("Erreur : ") for line in err.splitlines()
    ):
        return True, f"no French error line: {err.strip()[:200]}"
    if warnings and (found := _ENGLISH_WARNING.search(err)):
        return True, f"English warning on stderr: {found.group(0)}"
    return False, (err.strip().splitlines() or [""])[-1][:160]


COLUMNS = (
    "category", "probes", "crashes", "lost", "orphans", "network", "outside", "hangs",
    "over 1 GiB", "peak MiB",
)  # fmt: skip


_COUNTED = ("probes", "crashes", "lost", "orphans", "network", "outside", "hangs", "over_memory")


def _row(name: str, group: list[Result]) -> list[str]:
    counts = totals(group)
    measured = any(r.peak_mb is not None for r in group)
    return [
        name,
        *(str(counts[k]) for k in _COUNTED),
        f"{counts['peak_mb_max']:.0f}" if measured else "-",
    ]


def table_rows(results: list[Result]) -> list[list[str]]:
    """One row per category, then the total (the columns of ``COLUMNS``)."""
    rows = [
        _row(category, [r for r in results if r.category == category])
        for category in dict.fromkeys(r.category for r in results)
    ]
    return rows + [_row("total", results)]


def text_table(results: list[Result]) -> str:
    """The per-category table, aligned for a terminal."""
    widths = [max(len(c), 12 if i == 0 else 0) for i, c in enumerate(COLUMNS)]
    lines = [[*COLUMNS], *table_rows(results)]
    return "\n".join(
        " ".join(
            cell.ljust(w) if i == 0 else cell.rjust(w)
            for i, (cell, w) in enumerate(zip(line, widths, strict=True))
        )  # fmt: skip
        for line in lines
    )


def markdown(results: list[Result]) -> str:
    """The per-category table, then one line per probe, as Markdown."""
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + " --- |" * len(COLUMNS)]
    lines += ["| " + " | ".join(row) + " |" for row in table_rows(results)]
    lines += [
        "",
        "| probe | expected | outcome | peak MiB | detail |",
        "| --- | --- | --- | --- | --- |",
    ]
    for r in results:
        if r.category == "kill" and not r.failed:
            continue  # fifty identical lines say nothing the table does not
        outcome = "fails" if r.failed else "passes"
        peak = "-" if r.peak_mb is None else f"{r.peak_mb:.0f}"
        detail = r.detail + (f" [outside: {', '.join(r.outside_paths)}]" if r.outside_paths else "")
        detail = detail.replace("|", "\\|").replace("\n", " ")
        lines.append(f"| {r.category}: {r.name} | {r.expected} | {outcome} | {peak} | {detail} |")
    return "\n".join(lines)


def totals(results: list[Result]) -> dict[str, float | int]:
    """The counts of the whole run (``faults.json``'s ``totals``)."""
    peaks = [r.peak_mb for r in results if r.peak_mb is not None]
    return {
        "probes": len(results),
        "crashes": sum(r.crashed for r in results),
        "lost": sum(r.lost for r in results),
        "orphans": sum(r.orphans for r in results),
        "network": sum(r.network for r in results),
        "outside": sum(r.outside for r in results),
        "hangs": sum(r.hung for r in results),
        "over_memory": sum(r.over_memory for r in results),
        "peak_mb_max": max(peaks, default=0.0),
    }
