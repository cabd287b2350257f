"""How long a patient may pause before the recording ends: the default and its allowed range."""

from __future__ import annotations

DEFAULT_MS = 3500
"""End of speech after this much silence. Generous: word-finding pauses of 2-2.5 s
are common in Broca's aphasia and must never cut the patient off."""

MIN_MS = 1500
MAX_MS = 10000


def checked(ms: int) -> int:
    """``ms`` if it is an allowed pause tolerance.

    Raises:
        ValueError: outside ``MIN_MS``..``MAX_MS``.
    """
    value = int(ms)
    if not MIN_MS <= value <= MAX_MS:
        raise ValueError(f"pause tolerance must be {MIN_MS}..{MAX_MS} ms, got {ms!r}")
    return value
