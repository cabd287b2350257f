"""Finds installed model folders and validates their sidecar ``model.json``."""

from __future__ import annotations

import hashlib
import json
import logging
import os
from dataclasses import dataclass, field
from pathlib import Path, PurePath
from typing import Any

from therapy_app import atomic, paths
from therapy_app.errors import ModelInvalidError, ModelMissingError, TherapyAppError
from therapy_app.input_files import parse_json, read_text

_LOGGER = logging.getLogger(__name__)

SIDECAR = "model.json"
MAX_SIDECAR_BYTES = 2_000_000
"""The largest sidecar (the corrector's) is under 60 kB."""

# Model folder names and the French description / command used when one is missing.
ASR_MODEL = "whisper-base"
VAD_MODEL = "silero-vad"
CORRECTOR_MODEL = "corrector-fr"
PHONE_MODEL = "phone-reader"

_DESCRIPTIONS = {
    ASR_MODEL: "le modèle de reconnaissance vocale (Whisper base)",
    VAD_MODEL: "le détecteur de parole (Silero VAD)",
    CORRECTOR_MODEL: "le modèle de correction des phrases",
    PHONE_MODEL: "le lecteur de phonèmes (vérification des réponses)",
}
BUILD_COMMAND = "therapy-app build-models"


@dataclass(frozen=True)
class ModelBundle:
    """A model folder and its parsed sidecar.

    Attributes:
        name: folder name, e.g. ``whisper-base``.
        directory: absolute path of the folder.
        meta: the parsed ``model.json``.
    """

    name: str
    directory: Path
    meta: dict[str, Any] = field(repr=False)

    def __post_init__(self) -> None:
        problem = sidecar_problem(self.meta)
        if problem is not None:
            raise ModelInvalidError(
                f"Le modèle « {self.name} » est mal décrit.",
                f"Reconstruisez-le avec « {BUILD_COMMAND} ».",
                f"{self.directory / SIDECAR}: {problem}",
            )

    def file(self, role: str) -> Path:
        """Path of the file registered under ``role`` in the sidecar's ``files``."""
        try:
            entry = self.meta["files"][role]
        except KeyError as exc:
            raise ModelInvalidError(
                f"Le modèle « {self.name} » est incomplet.",
                f"Reconstruisez-le avec « {BUILD_COMMAND} ».",
                f"{self.directory / SIDECAR} has no file role {role!r}",
            ) from exc
        return self.directory / str(entry["path"])

    def verify(self) -> list[str]:
        """Check every registered file's size and sha256; returns the problems found."""
        problems = []
        for role, entry in self.meta.get("files", {}).items():
            path = self.directory / entry["path"]
            if not path.is_file():
                problems.append(f"{role}: missing {path.name}")
                continue
            if "bytes" in entry and path.stat().st_size != entry["bytes"]:
                problems.append(f"{role}: size differs for {path.name}")
                continue
            if "sha256" in entry and sha256_file(path) != entry["sha256"]:
                problems.append(f"{role}: sha256 differs for {path.name}")
        return problems


def sidecar_problem(meta: object) -> str | None:
    """What is wrong with a parsed ``model.json`` for the model store (English), or None.

    Checked once when a bundle is made, so that :meth:`ModelBundle.file` and
    :meth:`ModelBundle.verify` never meet a ``files`` list or an entry without
    ``path`` (they used to end in a KeyError or TypeError traceback).
    """
    if not isinstance(meta, dict):
        return "not a JSON object"
    files = meta.get("files", {})
    if not isinstance(files, dict):
        return "'files' is not an object"
    for role, entry in files.items():
        if not isinstance(entry, dict):
            return f"files[{role!r}] is not an object"
        path = entry.get("path")
        if not isinstance(path, str) or not path:
            return f"files[{role!r}] has no path"
        if PurePath(path).is_absolute() or ".." in PurePath(path).parts:
            return f"files[{role!r}] points outside the model folder: {path!r}"
        size = entry.get("bytes", 0)
        if not isinstance(size, int) or isinstance(size, bool):
            return f"files[{role!r}] has a bad size"
        if not isinstance(entry.get("sha256", ""), str):
            return f"files[{role!r}] has a bad sha256"
    return None


def read_sidecar(directory: Path, name: str) -> dict[str, Any]:
    """The parsed ``model.json`` of a model folder (a regular file of at most 2 MB).

    Raises:
        ModelInvalidError: unreadable, not JSON, or nested too deeply.
    """
    sidecar = directory / SIDECAR
    try:
        meta = parse_json(
            read_text(sidecar, "la description du modèle", max_bytes=MAX_SIDECAR_BYTES)
        )
    except (TherapyAppError, ValueError) as exc:
        raise ModelInvalidError(
            f"Le modèle « {name} » est endommagé.",
            f"Reconstruisez-le avec « {BUILD_COMMAND} ».",
            f"unreadable sidecar in {directory}: {exc}",
        ) from exc
    if not isinstance(meta, dict):
        raise ModelInvalidError(
            f"Le modèle « {name} » est mal décrit.",
            f"Reconstruisez-le avec « {BUILD_COMMAND} ».",
            f"{sidecar}: not a JSON object",
        )
    return meta


def sha256_file(path: Path, chunk: int = 1 << 20) -> str:
    """Hex sha256 of a file, read in chunks."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(chunk):
            digest.update(block)
    return digest.hexdigest()


def search_dirs() -> list[Path]:
    """Folders searched for model folders, in priority order.

    ``THERAPY_APP_MODELS_DIR``, when set, replaces the installer bundle, the
    installed package's ``_models`` folder and the project build folder (so a
    clinic can pin one folder, and tests can see a model as missing); models
    shipped with the resources are searched last.
    """
    dirs: list[Path] = []
    override = os.environ.get(paths.ENV_MODELS_DIR)
    if override:
        dirs.append(Path(override))
    else:
        bundle = paths.bundle_root()
        if bundle is not None:
            dirs.append(bundle / "models")
        dirs.append(paths.installed_models_dir())
        dirs.append(paths.build_models_dir())
    dirs.append(paths.resources_dir() / "models")
    return dirs


def find_model(name: str) -> Path | None:
    """The first folder named ``name`` holding a sidecar, or None."""
    for base in search_dirs():
        candidate = base / name
        if (candidate / SIDECAR).is_file():
            return candidate
    return None


def load_model(name: str) -> ModelBundle:
    """Resolve and parse a model folder.

    Raises:
        ModelMissingError: no folder found; the message names the build command.
        ModelInvalidError: the sidecar cannot be read.
    """
    directory = find_model(name)
    if directory is None:
        what = _DESCRIPTIONS.get(name, f"le modèle « {name} »")
        searched = ", ".join(str(d) for d in search_dirs())
        raise ModelMissingError(
            f"Il manque {what}.",
            f"Pour l'installer, lancez : {BUILD_COMMAND}",
            f"model {name!r} not found in: {searched}",
        )
    meta = read_sidecar(directory, name)
    _LOGGER.debug("model %s found in %s", name, directory)
    return ModelBundle(name, directory, meta)


def write_sidecar(directory: Path, meta: dict[str, Any]) -> Path:
    """Write ``model.json`` atomically (used by the build scripts)."""
    text = json.dumps(meta, indent=2, ensure_ascii=False) + "\n"
    return atomic.write_bytes(directory / SIDECAR, text.encode("utf-8"))


def file_entry(directory: Path, path: Path) -> dict[str, Any]:
    """Sidecar ``files`` entry (relative path, size, sha256) for a built file."""
    return {
        "path": str(path.relative_to(directory)),
        "bytes": path.stat().st_size,
        "sha256": sha256_file(path),
    }
