"""The switch at the end of a restore: renames only, each one journaled and undone on any failure.

What is replaced goes into a new ``avant-restauration-<date>[-n]/`` folder
of the data folder, never reused (two restores in the same second each get
their own): the database with its journals, the queue, and the rare
recording whose path the backup reuses with other content. Every other
recording stays where it is; nothing is deleted. So the folder plus the
recordings left in place are the complete earlier state: copying the
folder's content back over the data folder returns to it (its
``LISEZ-MOI.txt`` says so in French).
"""

from __future__ import annotations

import errno
import logging
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path, PurePosixPath

from therapy_app.paths import PRIVATE_DIR_MODE
from therapy_app.storage.errors import StorageUnavailableError
from therapy_app.storage.pending import PENDING_DIR
from therapy_app.voice.model import VOICE_FOLDER

_LOGGER = logging.getLogger(__name__)

ASIDE_PREFIX = "avant-restauration-"
NOTE_NAME = "LISEZ-MOI.txt"
_MAX_SAME_SECOND = 1000


@dataclass(frozen=True)
class SwitchPlan:
    """What a staged restore puts in place.

    Attributes:
        database: the staged database file (checked, migrated, its restore logged).
        database_name: its name in the data folder.
        files: relative path in the data folder -> staged file, for the files to put in place.
        made_at: when the backup was made (for the French note).
    """

    database: Path
    database_name: str
    files: dict[PurePosixPath, Path]
    made_at: datetime


@dataclass
class _Journal:
    """Undo actions of the steps done so far, newest last."""

    undo: list[tuple[str, Callable[[], None]]] = field(default_factory=list)

    def move(self, source: Path, target: Path) -> None:
        # Journaled first: a rename that happened but reported an error is undone too.
        def back() -> None:
            if os.path.lexists(target) and not os.path.lexists(source):
                os.replace(target, source)

        self.undo.append((f"move {target} back to {source}", back))
        os.replace(source, target)

    def mkdir(self, folder: Path) -> None:
        self.undo.append((f"remove {folder}", lambda: _remove_empty(folder)))
        try:
            os.mkdir(folder, PRIVATE_DIR_MODE)
        except FileExistsError:
            self.undo.pop()  # not ours: never removed
            raise

    def folders(self, root: Path, relative: PurePosixPath) -> None:
        """Create the missing folders of ``relative`` under ``root`` (none is a file: checked)."""
        folder = root
        for part in relative.parts:
            folder = folder / part
            if not folder.is_dir():
                self.mkdir(folder)

    def new_folder(self, base: Path, name: str) -> Path:
        """A folder that did not exist: ``name``, else ``name-2``, ``name-3``..."""
        for index in range(1, _MAX_SAME_SECOND + 1):
            folder = base / (name if index == 1 else f"{name}-{index}")
            try:
                self.mkdir(folder)
            except FileExistsError:
                continue
            return folder
        raise FileExistsError(f"{_MAX_SAME_SECOND} folders named {name} already")

    def write(self, path: Path, text: str) -> None:
        self.undo.append((f"remove {path}", lambda: path.unlink(missing_ok=True)))
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)

    def roll_back(self) -> list[str]:
        """Undo every step, newest first; returns what could not be undone."""
        failed: list[str] = []
        for what, action in reversed(self.undo):
            try:
                action()
            except OSError as exc:
                _LOGGER.error("restore roll-back: cannot %s: %s", what, exc)
                failed.append(what)
        self.undo.clear()
        return failed


def _remove_empty(folder: Path) -> None:
    try:
        folder.rmdir()
    except FileNotFoundError:
        pass


def _note(made_at: datetime, now: datetime) -> str:
    return (
        f"Ce dossier contient les données telles qu'elles étaient avant la restauration "
        f"du {now.astimezone():%d/%m/%Y à %H:%M} (sauvegarde du "
        f"{made_at.astimezone():%d/%m/%Y à %H:%M}).\n\n"
        "Aucun enregistrement n'a été effacé : ceux qui ne sont pas dans ce dossier sont "
        "restés dans le dossier « recordings » des données.\n\n"
        "Pour revenir à ces données : fermez l'application, puis copiez tout le contenu de "
        "ce dossier (sauf ce fichier) dans le dossier des données, en remplaçant les "
        "fichiers qui s'y trouvent.\n"
    )


def _fsync_folder(folder: Path) -> None:
    """Make the renames in ``folder`` durable (best effort; Windows cannot open a folder)."""
    if os.name != "posix":
        return
    try:
        fd = os.open(folder, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
    except OSError as exc:
        _LOGGER.debug("cannot sync %s: %s", folder, exc)


def _put_in_place(
    journal: _Journal, files: dict[PurePosixPath, Path], base: Path, aside: Path | None
) -> None:
    for relative, staged in sorted(files.items()):
        target = base.joinpath(*relative.parts)
        if os.path.lexists(target):  # same path, other content: kept aside, never overwritten
            if aside is None:  # it appeared since the plan: refuse rather than overwrite
                raise FileExistsError(errno.EEXIST, "appeared during the restore", str(target))
            journal.folders(aside, relative.parent)
            journal.move(target, aside.joinpath(*relative.parts))
        journal.folders(base, relative.parent)
        journal.move(staged, target)


def switch_in(plan: SwitchPlan, base: Path, now: datetime) -> Path | None:
    """Move the current data aside and the staged data in; all of it or none.

    Args:
        plan: the staged files (on the data folder's disk: renames only).
        base: the data folder (the app is closed, the start-up lock held).
        now: the aside folder's date.

    Returns:
        The aside folder, or None when nothing was replaced (a new data folder).

    Raises:
        OSError: a step failed; every step done was undone.
        StorageUnavailableError: a step failed and undoing it failed too (the
            French message says where the previous data is).
    """
    name = plan.database_name
    # The queue and the personal voices are swapped whole: a voice file newer than the
    # backup left in place could give one patient another's model (ids are reused).
    whole = (PENDING_DIR, VOICE_FOLDER)
    current = [
        base / n
        for n in (name, f"{name}-wal", f"{name}-shm", f"{name}-journal", *whole)
        if os.path.lexists(base / n)
    ]
    recordings = {r: f for r, f in plan.files.items() if r.parts[0] not in whole}
    queue = {r: f for r, f in plan.files.items() if r.parts[0] in whole}
    reused = any(os.path.lexists(base.joinpath(*r.parts)) for r in recordings)
    journal = _Journal()
    aside: Path | None = None
    try:
        if current or reused:
            aside = journal.new_folder(base, f"{ASIDE_PREFIX}{now.astimezone():%Y-%m-%d-%H%M%S}")
        # Recordings first: new names only, unless a path is reused with other content.
        _put_in_place(journal, recordings, base, aside)
        # Then the database and the queue, in a few renames: the data folder is
        # without a database for the shortest time (a kill there is not undone).
        for path in current:
            assert aside is not None
            journal.move(path, aside / path.name)
        _put_in_place(journal, queue, base, aside)
        wal = plan.database.with_name(plan.database.name + "-wal")
        if wal.exists():
            journal.move(wal, base / f"{name}-wal")
        journal.move(plan.database, base / name)
        if aside is not None:
            journal.write(aside / NOTE_NAME, _note(plan.made_at, now))
    except BaseException as exc:
        failed = journal.roll_back()
        if failed:
            raise StorageUnavailableError(
                "La restauration a échoué et n'a pas pu être entièrement annulée.",
                f"Les données précédentes sont dans « {aside or base} » : ne lancez pas "
                "l'application et demandez de l'aide pour les remettre en place.",
                f"switch failed ({exc!r}); not undone: {failed}",
            ) from exc
        raise
    if aside is not None:
        _fsync_folder(aside)
    _fsync_folder(base)
    return aside
