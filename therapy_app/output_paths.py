"""Where output options may write: never into the data folder, never over a file unasked."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from therapy_app import paths
from therapy_app.errors import TherapyAppError

# `speak bonjour -o <data folder>/therapy_app.sqlite3` used to replace the live
# database with a WAV file, and `backup` to replace it with the archive while
# reporting success. Every command-line option that writes
# (speak -o, backup, loop --output-dir) checks its target here: nothing goes
# into the data folder or under it (resolved through links), an existing file
# is replaced only with --force, and missing folders are created 0700 whatever
# the umask (what is written is health data: the patient's own words).

FORCE_HINT = "Choisissez un autre nom, ou ajoutez --force pour le remplacer."


class OutputPathError(TherapyAppError):
    """An output location that must not be written (French message saying why)."""


@dataclass(frozen=True)
class OutputTarget:
    """A checked output location.

    Attributes:
        path: the file to write, or the folder to write into.
        is_folder: ``path`` is a folder; the writer names the file in it.
    """

    path: Path
    is_folder: bool

    def prepare(self) -> Path:
        """Create the folder (or the file's missing parent folders) 0700 and return ``path``.

        Raises:
            OutputPathError: the folder cannot be created.
        """
        make_output_dir(self.path if self.is_folder else self.path.parent)
        return self.path


def _real(path: Path) -> str:
    # realpath resolves every link in the existing part of the path, even a
    # dangling last component; normcase folds case where the disk does (Windows).
    return os.path.normcase(os.path.realpath(path))


def inside_data_folder(path: Path, data_dir: Path | None = None) -> bool:
    """Whether ``path`` is the data folder or anything under it, through links too.

    Args:
        path: the location to check (it may not exist yet).
        data_dir: the data folder; default ``paths.user_data_dir()``.
    """
    data = _real(data_dir if data_dir is not None else paths.user_data_dir())
    target = _real(path)
    try:
        return os.path.commonpath([data, target]) == data
    except ValueError:  # different drives (Windows)
        return False


def _refuse_data_folder(path: Path) -> None:
    if inside_data_folder(path):
        raise OutputPathError(
            f"L'application n'écrit pas dans son propre dossier des données (« {path} »).",
            "Choisissez un emplacement en dehors de ce dossier.",
            f"{path} is inside the data folder {paths.user_data_dir()}",
        )


def output_file(path: str | os.PathLike[str], *, force: bool) -> OutputTarget:
    """Check a file an option asks to write.

    Args:
        path: the file.
        force: replace it if it exists (``--force``).

    Raises:
        OutputPathError: inside the data folder, a folder, or an existing file
            without ``force``.
    """
    path = Path(path)
    _refuse_data_folder(path)
    if path.is_dir():
        raise OutputPathError(
            f"« {path} » est un dossier.",
            "Indiquez un nom de fichier.",
            f"{path} is a directory",
        )
    if os.path.lexists(path) and not force:
        raise OutputPathError(
            f"Le fichier « {path} » existe déjà.", FORCE_HINT, f"{path} exists, no --force"
        )
    return OutputTarget(path, is_folder=False)


def output_folder(path: str | os.PathLike[str]) -> OutputTarget:
    """Check a folder an option asks to write files into (created if missing).

    Raises:
        OutputPathError: inside the data folder, or a file.
    """
    path = Path(path)
    _refuse_data_folder(path)
    if os.path.lexists(path) and not path.is_dir():
        raise OutputPathError(
            f"« {path} » est un fichier, pas un dossier.",
            "Indiquez un dossier.",
            f"{path} is not a directory",
        )
    return OutputTarget(path, is_folder=True)


def backup_target(destination: str, *, force: bool) -> OutputTarget:
    """Check where ``therapy-app backup DESTINATION`` writes.

    An existing folder, or a name ending with a slash ("nouveau/"), is a
    folder to create the backup in (it used to become a file named
    "nouveau"); anything else is the backup file itself.

    Raises:
        OutputPathError: see :func:`output_file` and :func:`output_folder`.
    """
    separators = tuple(s for s in (os.sep, os.altsep) if s)
    if destination.endswith(separators) or Path(destination).is_dir():
        return output_folder(destination)
    return output_file(destination, force=force)


def make_output_dir(path: Path) -> Path:
    """Create ``path`` and its missing parents 0700 (never wider, whatever the umask).

    Raises:
        OutputPathError: a file is in the way, or the folder cannot be created.
    """
    try:
        paths.create_private_dirs(path)
    except OSError as exc:
        raise OutputPathError(
            f"Impossible de créer le dossier « {path} ».",
            "Choisissez un dossier où vous pouvez écrire.",
            f"cannot create {path}: {exc}",
        ) from exc
    return path
