"""French words for numbers and clock times, so that digits reach the corrector as words."""

from __future__ import annotations

import re

_UNITS = ("zéro un deux trois quatre cinq six sept huit neuf dix onze douze treize "
          "quatorze quinze seize dix-sept dix-huit dix-neuf").split()  # fmt: skip
_TENS = {20: "vingt", 30: "trente", 40: "quarante", 50: "cinquante", 60: "soixante",
         80: "quatre-vingt"}  # fmt: skip
# The largest number spelt out; longer digit strings (telephone numbers) are refused.
MAX_NUMBER = 9999

# "15h30", "15 h 30", "15h", "15:30" (a clock time); "8 h" too.
_TIME = re.compile(r"\b([01]?\d|2[0-3])\s*(?:h|:)\s*([0-5]\d)?\b", re.IGNORECASE)
_NUMBER = re.compile(r"\b\d+\b")


def number_words(n: int) -> str:
    """French words for 0 <= n <= 9999, traditional spelling ("deux cent vingt et un")."""
    if not 0 <= n <= MAX_NUMBER:
        raise ValueError(f"{n} is outside 0..{MAX_NUMBER}")
    if n < 20:
        return _UNITS[n]
    if n < 100:
        tens, unit = (n // 10) * 10, n % 10
        if tens in (70, 90):  # soixante-dix, quatre-vingt-dix: 60/80 + 10..19
            joint = " et " if n == 71 else "-"
            return _TENS[tens - 10] + joint + _UNITS[10 + unit]
        if unit == 0:
            return "quatre-vingts" if tens == 80 else _TENS[tens]
        return _TENS[tens] + (" et " if unit == 1 and tens != 80 else "-") + _UNITS[unit]
    if n < 1000:
        hundreds, rest = divmod(n, 100)
        head = "cent" if hundreds == 1 else _UNITS[hundreds] + " cent"
        if rest == 0:
            return head + ("s" if hundreds > 1 else "")
        return head + " " + number_words(rest)
    thousands, rest = divmod(n, 1000)
    head = "mille" if thousands == 1 else number_words(thousands) + " mille"
    return head if rest == 0 else head + " " + number_words(rest)


def _time_words(match: re.Match[str]) -> str:
    hours = int(match.group(1))
    words = "midi" if hours == 12 and match.group(2) is None else None
    words = words or number_words(hours) + (" heure" if hours == 1 else " heures")
    if match.group(2) is not None and int(match.group(2)) > 0:
        words += " " + number_words(int(match.group(2)))
    return words


def spell_numbers(text: str) -> str:
    """``text`` with clock times and numbers up to :data:`MAX_NUMBER` in words.

    "rendez-vous demain 15h30" -> "rendez-vous demain quinze heures trente";
    larger numbers are left as digits (the caller decides what to do with them).
    """
    text = _TIME.sub(_time_words, text)
    return _NUMBER.sub(_number_or_digits, text)


def _number_or_digits(match: re.Match[str]) -> str:
    digits = match.group()
    # Length first: int() refuses strings of more than 4,300 digits with a
    # ValueError (CPython's conversion limit), which escaped as a traceback.
    if len(digits.lstrip("0")) > len(str(MAX_NUMBER)) or int(digits) > MAX_NUMBER:
        return digits
    return number_words(int(digits))
