"""The one module that knows where user data, caches, models and resources live."""

from __future__ import annotations

import errno
import logging
import os
import stat
import sys
from pathlib import Path

from therapy_app.errors import TherapyAppError

_LOGGER = logging.getLogger(__name__)

APP_NAME = "therapy_app"

# Environment overrides, mainly for tests and clinic deployments.
ENV_DATA_DIR = "THERAPY_APP_DATA_DIR"
ENV_MODELS_DIR = "THERAPY_APP_MODELS_DIR"


def project_root() -> Path:
    """The source checkout's root (parent of the package folder)."""
    return Path(__file__).resolve().parent.parent


def bundle_root() -> Path | None:
    """The PyInstaller bundle folder when running frozen, else None."""
    meipass = getattr(sys, "_MEIPASS", None)
    return Path(meipass) if meipass else None


def resources_dir() -> Path:
    """Bundled read-only resources (sentence lists, shipped models).

    Looked up, in order: inside a frozen bundle, inside the installed package
    (wheels map the top-level ``resources/`` to ``therapy_app/_resources``),
    then the source checkout.
    """
    bundle = bundle_root()
    if bundle is not None and (bundle / "resources").is_dir():
        return bundle / "resources"
    packaged = Path(__file__).resolve().parent / "_resources"
    if packaged.is_dir():
        return packaged
    return project_root() / "resources"


def installed_models_dir() -> Path:
    """Speech models bundled by an installer, inside the installed package.

    The Windows and Debian installers copy the built models to
    ``therapy_app/_models/<name>/`` (as wheels map ``resources/`` to
    ``_resources``): an installed copy never needs ``build-models``.
    """
    return Path(__file__).resolve().parent / "_models"


def build_models_dir() -> Path:
    """Where ``python -m models.build`` writes the models it builds."""
    return project_root() / "build" / "models"


def user_data_dir() -> Path:
    """Per-user writable folder for the database and recordings."""
    override = os.environ.get(ENV_DATA_DIR)
    if override:
        return Path(override)
    if sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA", Path.home() / "AppData" / "Local"))
    elif sys.platform == "darwin":
        base = Path.home() / "Library" / "Application Support"
    else:
        base = Path(os.environ.get("XDG_DATA_HOME", Path.home() / ".local" / "share"))
    return base / APP_NAME


def ensure_dir(path: Path) -> Path:
    """Create ``path`` (and parents) if needed and return it."""
    path.mkdir(parents=True, exist_ok=True)
    return path


PRIVATE_DIR_MODE = 0o700
PRIVATE_FILE_MODE = 0o600
"""Health data is readable by its owner only."""


def make_private(path: Path) -> None:
    """Remove group and other permissions from ``path`` if it has any (POSIX only).

    Raises:
        OSError: the path does not exist or belongs to someone else.
    """
    if os.name != "posix":
        return  # NTFS permissions come from the (private) profile folder
    mode = path.stat().st_mode
    if mode & 0o077:
        path.chmod(mode & 0o700)


DB_FILENAME = "therapy_app.sqlite3"
"""The database file's name in the data folder (``storage.repository`` uses it)."""

APP_DATA_PREFIXES = (
    DB_FILENAME,
    "recordings",
    "pending",
    "voice",
    "avant-restauration-",
    ".restauration-",
    ".sauvegarde-",
)
"""What the app itself keeps in its data folder: the database and the files
SQLite and the start-up lock put beside it, recordings, the on-disk queue,
data moved aside by a restore, and the work folders of restores and backups
(the storage modules own these names; a test checks that they match)."""


class UnsuitableFolderError(TherapyAppError):
    """An existing folder the app was pointed at cannot be its data folder."""


def create_private_dirs(path: Path) -> bool:
    """Create ``path`` and its missing parents as 0700 folders; existing ones are left alone.

    Returns:
        True when ``path`` itself was created by this call.

    Raises:
        NotADirectoryError: ``path`` (or a parent) is a file.
        OSError: it cannot be created.
    """
    path = Path(path)
    missing: list[Path] = []
    probe = path
    while not probe.exists() and probe != probe.parent:
        missing.append(probe)
        probe = probe.parent
    for folder in reversed(missing):
        # mkdir's mode is masked by the umask, never widened: 0700 at most.
        folder.mkdir(mode=PRIVATE_DIR_MODE, exist_ok=True)
    if not path.is_dir():
        raise NotADirectoryError(errno.ENOTDIR, "not a folder", str(path))
    return bool(missing) and missing[0] == path


def _tighten(path: Path) -> None:
    try:
        make_private(path)
    except OSError as exc:
        # A read-only disk or someone else's folder: the data must stay readable.
        _LOGGER.warning("cannot make %s private: %s", path, exc)


def _inside_app_data(path: Path) -> bool:
    """Whether ``path`` is a data folder holding the database, or a folder inside one."""
    return any((folder / DB_FILENAME).is_file() for folder in (path, *path.parents))


def ensure_private_dir(path: Path) -> Path:
    """Create ``path`` and its missing parents as 0700 folders.

    An existing folder is made private only inside the app's data folder (a
    recordings folder an older version created 0755). Anywhere else (the
    folder of a backup on a USB stick, ``/tmp``) it is left as it is: the app
    must not change the permissions of folders that are not its own.

    Returns:
        ``path``.

    Raises:
        NotADirectoryError: ``path`` (or a parent) is a file.
        OSError: it cannot be created.
    """
    path = Path(path)
    if not create_private_dirs(path) and _inside_app_data(path):
        _tighten(path)
    return path


def _holds_only_app_data(path: Path) -> bool:
    """Empty, or nothing but what the app itself keeps in its data folder."""
    for entry in os.scandir(path):
        if not entry.name.startswith(APP_DATA_PREFIXES):
            return False
    return True


def _unsuitable_reason(path: Path) -> str | None:
    """Why an existing folder must not become the data folder (French), or None."""
    resolved = path.resolve()
    if resolved == Path(resolved.anchor):
        return "c'est la racine du disque"
    try:
        home = Path.home().resolve()
    except (OSError, RuntimeError):  # no home folder (a service account)
        home = None
    if resolved == home:
        return "c'est votre dossier personnel lui-même"
    info = path.stat()
    if info.st_uid != os.geteuid():
        return "il appartient à un autre utilisateur"
    if info.st_mode & stat.S_ISVTX:
        return "c'est un dossier partagé entre utilisateurs (comme /tmp)"
    if info.st_mode & stat.S_IWOTH and not _holds_only_app_data(path):
        return "tous les utilisateurs de l'ordinateur peuvent y écrire"
    return None


def ensure_data_dir(path: Path) -> Path:
    """Create the data folder 0700, or check an existing one before using it.

    ``THERAPY_APP_DATA_DIR`` may name any folder. The app used to make it 0700
    whatever it was, dropping the sticky bit of a shared folder such as
    ``/tmp``. Now an existing folder is refused when it is
    the root, the home folder itself, someone else's, or shared (sticky bit,
    or writable by everyone and holding other files). It is made private only
    when it holds nothing but the app's data, such as the database an older
    version left in a 0755 folder; a folder with other files in it is used as
    it is (the database and recordings in it are private files anyway).

    Returns:
        ``path``.

    Raises:
        NotADirectoryError: ``path`` (or a parent) is a file.
        UnsuitableFolderError: an existing folder that must not be used (French).
        OSError: it cannot be created or read.
    """
    path = Path(path)
    if create_private_dirs(path) or os.name != "posix":
        return path
    reason = _unsuitable_reason(path)
    if reason is not None:
        raise UnsuitableFolderError(
            f"Le dossier « {path} » ne peut pas servir de dossier des données : {reason}.",
            f"Indiquez un dossier dédié à l'application dans {ENV_DATA_DIR} "
            "(il est créé s'il n'existe pas).",
            f"refusing {path} as the data folder: {reason}",
        )
    if _holds_only_app_data(path):
        _tighten(path)
    else:
        _LOGGER.info("data folder %s holds other files: its permissions are left alone", path)
    return path


def create_private_file(path: Path) -> bool:
    """Create ``path`` empty with mode 0600 unless it already exists.

    Files that SQLite creates later beside a database (``-wal``, ``-shm``,
    ``-journal``) copy the database file's mode, so they are private too.

    Returns:
        True when this call created the file.

    Raises:
        OSError: the folder cannot be written.
    """
    try:
        fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, PRIVATE_FILE_MODE)
    except FileExistsError:  # already there, or another process was faster
        return False
    os.close(fd)
    return True
