"""The one module that knows where user data, caches, models and resources live."""

from __future__ import annotations

import errno
import logging
import os
import sys
from pathlib import Path

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
"""Health data is readable by its owner only (issue 11, item 6)."""


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


def ensure_private_dir(path: Path) -> Path:
    """Create ``path`` and its missing parents as 0700 folders; tighten it if it exists.

    Existing parents are left alone; the folder itself is made private even if
    an older version created it 0755 (best effort: a read-only disk still opens).

    Returns:
        ``path``.

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
        folder.mkdir(mode=PRIVATE_DIR_MODE, exist_ok=True)
    if not path.is_dir():
        raise NotADirectoryError(errno.ENOTDIR, "not a folder", str(path))
    try:
        make_private(path)
    except OSError as exc:
        # A read-only disk or someone else's folder: the data must stay readable.
        _LOGGER.warning("cannot make %s private: %s", path, exc)
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
