"""The French text a therapist panel shows when a background job fails; bugs go to the log."""

from __future__ import annotations

import logging

from therapy_app.errors import TherapyAppError

_LOGGER = logging.getLogger(__name__)

UNEXPECTED = "Une erreur inattendue s'est produite."
"""The usual ``fallback``: the panel has nothing more precise to say."""
TRY_AGAIN = f"{UNEXPECTED} Réessayez."
"""The ``fallback`` of the door pages (login, password reset)."""


def therapist_text(exc: BaseException) -> str:
    """The text for a failure the caller has already logged: the app's own, else TRY_AGAIN.

    Not the patient screens' message: that one tells the reader to warn their therapist.
    """
    return exc.french() if isinstance(exc, TherapyAppError) else TRY_AGAIN


def error_text(
    exc: BaseException,
    fallback: str,
    what: str,
    *,
    writes_file: bool = False,
    refused: str | None = None,
) -> str:
    """What to tell the therapist about ``exc``, raised by a job on the task runner.

    An error of the app's own (disk full, database locked, a refused name...)
    carries its French text; anything else is a bug: it is logged with its
    traceback and the therapist reads ``fallback``.

    Args:
        exc: what the job raised.
        fallback: the text for an unexpected error.
        what: the job, named in the log (``"<what> failed"``).
        writes_file: the job writes a file where the therapist chose: an
            ``OSError`` (no room, no permission) is the system's, shown with its reason.
        refused: the text for a ``ValueError``, when the job refuses what was typed.

    Returns:
        The French text for the panel's status line.
    """
    if isinstance(exc, TherapyAppError):
        return exc.french()
    if writes_file and isinstance(exc, OSError):
        return f"Impossible d'écrire le fichier : {exc.strerror or exc}."
    if refused is not None and isinstance(exc, ValueError):
        return refused
    _LOGGER.error("%s failed", what, exc_info=exc)
    return fallback
