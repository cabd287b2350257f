"""SessionRepository: the database handle, and the stores over it that the GUI and the CLI use."""

from __future__ import annotations

import contextlib
import logging
import sqlite3
import threading
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path

from sqlite_utils import Database

from therapy_app.paths import DB_FILENAME as DB_FILENAME  # re-exported: callers import it here
from therapy_app.paths import UnsuitableFolderError, ensure_data_dir, user_data_dir
from therapy_app.storage import opening
from therapy_app.storage.account_store import AccountStore
from therapy_app.storage.attempt_store import AttemptStore
from therapy_app.storage.database import (
    connect,
    enable_wal,
    make_private_files,
    raise_translated,
    refuse_symlinks,
    transaction,
)
from therapy_app.storage.errors import StorageUnavailableError, translate_os_error
from therapy_app.storage.history_store import HistoryStore
from therapy_app.storage.maintenance_store import MaintenanceStore
from therapy_app.storage.patient_store import PatientStore
from therapy_app.storage.phrase_store import PhraseStore
from therapy_app.storage.program_store import ProgramStore
from therapy_app.storage.queue_store import QueueStore
from therapy_app.storage.recording_files import remove_abandoned_temporary_files
from therapy_app.storage.schema import check_not_newer, migrate, schema_version
from therapy_app.storage.script_store import ScriptStore
from therapy_app.storage.startup_lock import startup_lock
from therapy_app.storage.therapy_session_store import TherapySessionStore

_LOGGER = logging.getLogger(__name__)


def _utc_now() -> datetime:
    return datetime.now(UTC)


class SessionRepository:
    """The database handle: patients, accounts, sessions, attempts... through its stores.

    Opening migrates the database to the current schema. One connection,
    guarded by a lock, so the object may be shared with a database worker
    thread. Every write is one transaction. The data is read and written
    through the stores, each over this handle's :meth:`connection` and
    :meth:`transaction`:

    - ``accounts`` (:class:`AccountStore`): the therapist account, login, recovery code;
    - ``patients`` (:class:`PatientStore`): patients and the audit of their changes;
    - ``sessions`` (:class:`TherapySessionStore`): the exercise catalogue and sessions;
    - ``attempts`` (:class:`AttemptStore`): attempts, recordings, edits, overrides;
    - ``queue`` (:class:`QueueStore`): saving through the on-disk queue, its replay;
    - ``history`` (:class:`HistoryStore`): session summaries, progress, CSV rows;
    - ``programs`` (:class:`ProgramStore`): programs and custom word lists;
    - ``phrases`` (:class:`PhraseStore`) and ``scripts`` (:class:`ScriptStore`);
    - ``maintenance`` (:class:`MaintenanceStore`): backups, checks, clean-up.

    Args:
        data_dir: folder for the database and recordings (default
            ``paths.user_data_dir()``, i.e. ``THERAPY_APP_DATA_DIR`` in tests).
        db_path: database file (default ``<data_dir>/therapy_app.sqlite3``).
        clock: returns the current aware UTC time (tests pass a fake one).

    Raises:
        DatabaseVersionError: the database comes from a newer release.
        StorageError: the folder or the file cannot be used.
    """

    def __init__(
        self,
        data_dir: Path | None = None,
        *,
        db_path: Path | None = None,
        clock: Callable[[], datetime] = _utc_now,
        check_integrity: bool = True,
    ) -> None:
        self.data_dir = Path(data_dir) if data_dir is not None else user_data_dir()
        self.db_path = Path(db_path) if db_path is not None else self.data_dir / DB_FILENAME
        self._clock = clock
        self._lock = threading.RLock()
        self.read_only = False
        """True when the data folder cannot be written: everything can be viewed, nothing saved."""
        self.notices: list[str] = []
        """French messages to show once the app is open (read-only mode, old backup...)."""
        self.removed_temporary_files: list[str] = []
        """Half-written recordings of dead writers deleted at opening (relative paths)."""
        self.accounts = AccountStore(self)
        self.patients = PatientStore(self)
        self.sessions = TherapySessionStore(self)
        self.attempts = AttemptStore(self)
        self.queue = QueueStore(self)
        self.history = HistoryStore(self)
        self.programs = ProgramStore(self)
        self.phrases = PhraseStore(self)
        self.scripts = ScriptStore(self)
        self.maintenance = MaintenanceStore(self)
        try:
            ensure_data_dir(self.db_path.parent)
        except UnsuitableFolderError as exc:
            raise StorageUnavailableError(exc.user_message, exc.hint, exc.detail) from exc
        except (NotADirectoryError, FileExistsError) as exc:
            raise StorageUnavailableError(
                "Le dossier des données est remplacé par un fichier du même nom.",
                f"Renommez ou déplacez le fichier « {self.db_path.parent} », puis réessayez.",
                f"data folder {self.db_path.parent} is not a folder: {exc}",
            ) from exc
        except OSError as exc:
            translated = translate_os_error(exc, f"creating {self.db_path.parent}")
            if translated is exc:
                raise
            raise translated from exc
        refuse_symlinks(self.db_path)  # before the lock file is created beside it
        if self.db_path.exists() and not self.db_path.is_file():
            raise StorageUnavailableError(
                "Un dossier porte le nom du fichier de la base de données.",
                f"Renommez ou déplacez le dossier « {self.db_path} », puis réessayez.",
                f"{self.db_path} is not a file",
            )
        if not opening.is_writable(self.db_path):
            self._open_read_only(check_integrity)
            return
        # One process at a time creates, converts and migrates the file.
        with startup_lock(self.db_path):
            self._db: Database = connect(self.db_path, tighten=False)
            try:
                with self._reading("migrating"):
                    # Nothing writes to the file before it is known to be ours,
                    # sound and not newer than this code.
                    opening.check_is_ours(self._db, self.db_path)
                    check_not_newer(self._db)
                    if check_integrity:
                        opening.check_sound(self._db, self.db_path)
                    make_private_files(self.db_path)
                    enable_wal(self._db)
                    self.schema_version = migrate(self._db)
            except BaseException:
                self._db.close()
                raise
        # Only half-written temporary files of dead writers are deleted: a
        # finished recording never is, referenced or not (a database moved
        # away or restored must find its recordings again); those
        # without a row are listed by maintenance.orphan_recordings.
        try:
            self.removed_temporary_files = remove_abandoned_temporary_files(
                self.data_dir, keep=self.maintenance.referenced_recordings()
            )
        except (OSError, StorageUnavailableError):
            _LOGGER.warning("temporary recordings not cleaned", exc_info=True)
        # Attempts queued while the database was locked.
        self.queue.replay_pending()

    def _open_read_only(self, check_integrity: bool) -> None:
        """Open for viewing only: a read-only folder or disk."""
        if not self.db_path.is_file():
            raise opening.read_only_missing(self.db_path)
        self._db = connect(self.db_path, read_only=True)
        try:
            with self._reading("opening read-only"):
                opening.check_is_ours(self._db, self.db_path)
                check_not_newer(self._db)
                opening.check_readable_as_is(self._db, self.db_path)
                if check_integrity:
                    opening.check_sound(self._db, self.db_path)
                self.schema_version = schema_version(self._db)
        except BaseException:
            self._db.close()
            raise
        _LOGGER.warning("%s opened read-only", self.db_path)
        self.read_only = True
        self.notices.append(opening.READ_ONLY_NOTICE)

    # -- plumbing ---------------------------------------------------------------

    def close(self) -> None:
        """Close the connection (the WAL is checkpointed by SQLite)."""
        with self._lock:
            self._db.close()

    def __enter__(self) -> SessionRepository:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def require_writable(self, action: str) -> None:
        """Refuse a write in read-only mode, before anything is written (a recording...).

        Raises:
            StorageUnavailableError: read-only mode (French message).
        """
        if self.read_only:
            raise StorageUnavailableError(
                "Les données sont ouvertes en lecture seule : rien ne peut être enregistré.",
                "Vérifiez les droits d'accès au dossier des données, puis relancez l'application.",
                f"{action}: read-only mode",
            )

    @contextlib.contextmanager
    def transaction(self, action: str = "writing") -> Iterator[Database]:
        """One write transaction over the connection (nested calls join it), under the lock.

        Stores write inside it; callers group several store writes into one.

        Raises:
            StorageUnavailableError: read-only mode, or the database is locked, full...
        """
        self.require_writable(action)
        with self._lock, transaction(self._db, action) as db:
            yield db

    @contextlib.contextmanager
    def connection(self, action: str) -> Iterator[Database]:
        """The connection, under the lock, for the stores' reads.

        SQLite errors become ``StorageError``s. A write goes inside
        :meth:`transaction` instead, or a store's own (``account_store``).
        """
        with self._reading(action):
            yield self._db

    def now(self) -> datetime:
        """The repository's current time (the fake clock in tests)."""
        return self._clock()

    @contextlib.contextmanager
    def _reading(self, action: str) -> Iterator[None]:
        with self._lock:
            try:
                yield
            except sqlite3.Error as exc:
                raise_translated(exc, action)
