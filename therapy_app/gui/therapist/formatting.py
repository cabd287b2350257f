"""French text for numbers, ratios and dates shown in the therapist screens and report."""

from __future__ import annotations

from datetime import date, datetime

NBSP = "\u00a0"
"""French typography puts a non-breaking space before % and inside « »."""
MISSING = "–"
"""Shown where a value is undefined (no attempt had it)."""

_MONTHS = (
    "janvier",
    "février",
    "mars",
    "avril",
    "mai",
    "juin",
    "juillet",
    "août",
    "septembre",
    "octobre",
    "novembre",
    "décembre",
)


def number(value: float | None, digits: int = 1) -> str:
    """``3,2`` (decimal comma); ``MISSING`` for None."""
    if value is None:
        return MISSING
    return f"{value:.{digits}f}".replace(".", ",").replace("-", "\u2212")


def percent(ratio: float | None) -> str:
    """A ratio in [0, 1] as ``75 %``; ``MISSING`` for None."""
    if ratio is None:
        return MISSING
    return f"{round(ratio * 100)}{NBSP}%"


def short_datetime(moment: datetime) -> str:
    """``14/03/2025 10:30`` in local time."""
    return moment.astimezone().strftime("%d/%m/%Y %H:%M")


def short_date(day: date | datetime) -> str:
    """``14/03/2025`` (a datetime is taken in local time)."""
    if isinstance(day, datetime):
        day = day.astimezone().date()
    return day.strftime("%d/%m/%Y")


def long_date(day: date | datetime) -> str:
    """``14 mars 2025`` (a datetime is taken in local time)."""
    if isinstance(day, datetime):
        day = day.astimezone().date()
    return f"{day.day} {_MONTHS[day.month - 1]} {day.year}"


def clock_time(moment: datetime) -> str:
    """``10:30`` in local time."""
    return moment.astimezone().strftime("%H:%M")


def quoted(text: str | None) -> str:
    """``« text »`` with non-breaking spaces; ``MISSING`` for None or empty."""
    if not text:
        return MISSING
    return f"«{NBSP}{text}{NBSP}»"


def yes_no(value: bool | None) -> str:
    """``oui`` / ``non`` / ``MISSING``."""
    if value is None:
        return MISSING
    return "oui" if value else "non"
