"""The one module that knows where user data, caches, models and resources live."""

from __future__ import annotations

import os
import sys
from pathlib import Path

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
