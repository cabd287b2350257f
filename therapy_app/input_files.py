"""Opens files the user points the app at: regular files only, size-capped, never blocking."""

from __future__ import annotations

import errno
import json
import os
import stat
from pathlib import Path
from typing import BinaryIO

from therapy_app.errors import TherapyAppError

# O_NONBLOCK: opening a FIFO for reading returns at once instead of waiting for
# a writer. O_NOCTTY: a terminal device never becomes our controlling terminal.
_OPEN_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_NOCTTY", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)
_BAD_PATH = (errno.ENOTDIR, errno.ENAMETOOLONG, errno.ELOOP, errno.EINVAL)


# A named pipe (FIFO) given as an input used to block the reader forever (and
# with it the GUI's only database worker), and /dev/zero filled memory at
# gigabytes per second. Every input file (WAV files, the
# backup passphrase file, custom-list imports, model descriptions) goes
# through open_regular: opened without blocking, checked with fstat to be a
# regular file within the caller's size limit, then read no further.


class InputFileError(TherapyAppError):
    """An input file cannot be used: missing, not a regular file, too big, unreadable."""


def _capitalised(what: str) -> str:
    return what[:1].upper() + what[1:]


def _megabytes(size: int) -> str:
    return f"{size / 1_000_000:.0f} Mo" if size >= 1_000_000 else f"{size / 1000:.0f} ko"


def describe_os_error(exc: OSError, what: str) -> tuple[str, str]:
    """The French message and hint for ``exc`` raised while opening ``what``.

    Args:
        exc: the error (``errno`` decides the message).
        what: the file in French with its article, e.g. "le fichier audio".
    """
    if exc.errno == errno.ENOENT:
        return (
            f"{_capitalised(what)} est introuvable.",
            "Vérifiez qu'il n'a pas été déplacé ou supprimé.",
        )
    if exc.errno in _BAD_PATH:
        # ENOTDIR: "/etc/passwd/x.wav"; ENAMETOOLONG: a 300-character name;
        # ELOOP: links pointing at each other.
        return (
            f"Le chemin indiqué pour {what} n'est pas valide.",
            "Vérifiez le nom du fichier et des dossiers qui le contiennent.",
        )
    if exc.errno in (errno.EACCES, errno.EPERM):
        return (
            f"{_capitalised(what)} ne peut pas être ouvert (droits d'accès insuffisants).",
            "Vérifiez les droits du fichier.",
        )
    if exc.errno == errno.EISDIR:
        return f"{_capitalised(what)} est un dossier, pas un fichier.", "Choisissez un fichier."
    return f"{_capitalised(what)} ne peut pas être lu.", "Vérifiez le fichier choisi."


def open_regular(
    path: str | os.PathLike[str],
    what: str,
    *,
    max_bytes: int | None,
    error: type[TherapyAppError] = InputFileError,
) -> tuple[BinaryIO, int]:
    """Open ``path`` for binary reading if it is a regular file of at most ``max_bytes``.

    Args:
        path: the file.
        what: the file in French with its article ("le fichier audio"), for messages.
        max_bytes: the largest size accepted; None when the caller reads in
            bounded blocks itself (WAV files).
        error: the error class to raise (callers keep their own types).

    Returns:
        The open file (the caller closes it) and its size in bytes.

    Raises:
        TherapyAppError: an instance of ``error`` with a French message.
    """
    path = Path(path)
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except OSError as exc:
        message, hint = describe_os_error(exc, what)
        raise error(message, hint, f"cannot open {path}: {exc}") from exc
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            kind = "un dossier" if stat.S_ISDIR(info.st_mode) else "un tube ou un périphérique"
            raise error(
                f"{_capitalised(what)} n'est pas un fichier ordinaire (c'est {kind}).",
                "Choisissez un fichier enregistré sur le disque.",
                f"{path}: not a regular file (mode {oct(info.st_mode)})",
            )
        if max_bytes is not None and info.st_size > max_bytes:
            raise error(
                f"{_capitalised(what)} est trop gros (plus de {_megabytes(max_bytes)}).",
                "Vérifiez que c'est le bon fichier.",
                f"{path}: {info.st_size} bytes, limit {max_bytes}",
            )
        handle = os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
    return handle, info.st_size


def read_bytes(
    path: str | os.PathLike[str],
    what: str,
    *,
    max_bytes: int,
    error: type[TherapyAppError] = InputFileError,
) -> bytes:
    """The content of a regular file of at most ``max_bytes`` (read no further).

    Raises:
        TherapyAppError: an instance of ``error`` with a French message.
    """
    handle, _ = open_regular(path, what, max_bytes=max_bytes, error=error)
    try:
        with handle:
            # One byte more than allowed: a file that grew since fstat is refused too.
            data = handle.read(max_bytes + 1)
    except OSError as exc:
        message, hint = describe_os_error(exc, what)
        raise error(message, hint, f"cannot read {path}: {exc}") from exc
    if len(data) > max_bytes:
        raise error(
            f"{_capitalised(what)} est trop gros (plus de {_megabytes(max_bytes)}).",
            "Vérifiez que c'est le bon fichier.",
            f"{path}: grew past {max_bytes} bytes while read",
        )
    return data


def read_text(
    path: str | os.PathLike[str],
    what: str,
    *,
    max_bytes: int,
    error: type[TherapyAppError] = InputFileError,
) -> str:
    """A UTF-8 text file (a leading byte-order mark, as Notepad writes, is dropped).

    Raises:
        TherapyAppError: an instance of ``error``: unreadable, or not UTF-8 text.
    """
    data = read_bytes(path, what, max_bytes=max_bytes, error=error)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise error(
            f"{_capitalised(what)} n'est pas un texte lisible (encodage UTF-8 attendu).",
            "Enregistrez-le en UTF-8, puis réessayez.",
            f"{path}: {exc}",
        ) from exc


def parse_json(text: str) -> object:
    """``json.loads`` that reports every malformed input as a ValueError.

    A document nested some thousands of levels deep makes the decoder raise
    RecursionError, which is not a ValueError.

    Raises:
        ValueError: not JSON, or nested too deeply.
    """
    try:
        return json.loads(text)
    except RecursionError as exc:
        raise ValueError("JSON nested too deeply") from exc
