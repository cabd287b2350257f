"""What the Windows and Debian builds share: unpack wheels, trim them, copy checked models."""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import shutil
import zipfile
from pathlib import Path, PurePosixPath
from typing import Any

_LOGGER = logging.getLogger("stage")

# Files in the wheels that a clinic PC never runs, left out of every bundle:
# QML, headers, type stubs, Qt's binding generator files and onnxruntime's
# Python tooling. Globs relative to site-packages.
DEVELOPER_FILES = (
    "PySide6/qml",
    "PySide6/include",
    "PySide6/metatypes",
    "PySide6/typesystems",
    "PySide6/glue",
    "PySide6/scripts",
    "PySide6/*.pyi",
    "PySide6/Qt/lib/*.prl",
    "shiboken6/*.pyi",
    "onnxruntime/transformers",
    "onnxruntime/quantization",
    "onnxruntime/tools",
    "onnxruntime/datasets",
)
# Qt's translations kept: the app is in French.
KEEP_TRANSLATIONS = ("qt_fr.qm", "qtbase_fr.qm", "qt_help_fr.qm")


def sha256(path: Path) -> str:
    """Hex sha256 of a file."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def staging_args(
    parser: argparse.ArgumentParser, argv: list[str] | None, out_help: str, name: str
) -> tuple[argparse.Namespace, Path]:
    """Add ``--out`` to a staging command's parser, parse ``argv`` and set up its log lines.

    Args:
        parser: the command's other options.
        argv: its arguments (None: the command line).
        out_help: what ``--out`` is, for ``--help``.
        name: the log lines' prefix.

    Returns:
        The arguments, and the output folder, emptied (:func:`recreate`).
    """
    parser.add_argument("--out", type=Path, required=True, help=f"{out_help} (recreated)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format=f"{name}: %(message)s")
    return args, recreate(args.out)


def recreate(folder: Path) -> Path:
    """Remove ``folder`` when it exists (a staging output is always built afresh)."""
    if folder.exists():
        shutil.rmtree(folder)
    return folder


def extract_member(archive: zipfile.ZipFile, member: str | zipfile.ZipInfo, target: Path) -> Path:
    """Copy one archive member's bytes to ``target`` (its folders made); returns ``target``."""
    target.parent.mkdir(parents=True, exist_ok=True)
    with archive.open(member) as src, target.open("wb") as dst:
        shutil.copyfileobj(src, dst)
    return target


def extract_metadata(archive: zipfile.ZipFile, site_packages: Path) -> None:
    """Extract only a wheel's ``.dist-info`` folder (its metadata and licence files)."""
    for member in archive.namelist():
        if member.split("/", 1)[0].endswith(".dist-info") and not member.endswith("/"):
            archive.extract(member, site_packages)


def unpack_wheel(wheel: Path, site_packages: Path, installer: str = "therapy-app") -> None:
    """Install a wheel by unpacking it (a wheel is a zip laid out as site-packages).

    ``<name>.data/purelib`` and ``platlib`` go to site-packages; console-script
    and data entries are not needed by the bundle and are skipped.
    """
    with zipfile.ZipFile(wheel) as archive:
        dist_info = None
        for info in archive.infolist():
            parts = PurePosixPath(info.filename).parts
            if not parts or ".." in parts or info.filename.startswith("/"):
                raise SystemExit(f"{wheel.name}: unsafe path {info.filename!r}")
            if parts[0].endswith(".dist-info"):
                dist_info = parts[0]
            if parts[0].endswith(".data"):
                if len(parts) > 2 and parts[1] in {"purelib", "platlib"}:
                    parts = parts[2:]
                else:
                    _LOGGER.info("%s: skipping %s", wheel.name, info.filename)
                    continue
            if info.is_dir():
                continue
            extract_member(archive, info, site_packages.joinpath(*parts))
    if dist_info is None:
        raise SystemExit(f"{wheel.name}: no .dist-info folder")
    (site_packages / dist_info / "INSTALLER").write_text(installer + "\n")


def tree_size(path: Path) -> int:
    """Bytes in a file or folder tree."""
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def copy_model(source: Path, target: Path, label: str) -> dict[str, Any]:
    """Copy a built model folder's sidecar and the files it registers, checked against it.

    Each file's size and sha256 must match ``model.json``. Plain copies made
    readable by every user of the installed app: ``copyfile``, not ``copy2``,
    because sidecars are written 0600 (atomic writes).

    Args:
        source: the built model folder.
        target: where it goes (created).
        label: names the model in the errors.

    Returns:
        The sidecar's content.

    Raises:
        SystemExit: a file differs from the sidecar.
    """
    meta: dict[str, Any] = json.loads((source / "model.json").read_text(encoding="utf-8"))
    target.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source / "model.json", target / "model.json")
    (target / "model.json").chmod(0o644)
    for role, entry in meta.get("files", {}).items():
        rel = entry["path"]
        src = source / rel
        if entry.get("bytes") is not None and src.stat().st_size != entry["bytes"]:
            raise SystemExit(f"{label}: {role} size differs from model.json")
        if entry.get("sha256") and sha256(src) != entry["sha256"]:
            raise SystemExit(f"{label}: {role} sha256 differs from model.json")
        (target / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, target / rel)
        (target / rel).chmod(0o644)
    return meta


def copy_models(models: Path, package_dir: Path, names: list[str]) -> None:
    """Copy built model folders to ``therapy_app/_models/<name>/``, checked (:func:`copy_model`)."""
    for name in names:
        copy_model(models / name, package_dir / "_models" / name, f"model {name}")


def remove_globs(root: Path, globs: tuple[str, ...], keep: tuple[str, ...] = ()) -> int:
    """Delete the files and folders ``globs`` name under ``root``, but the ``keep`` paths.

    Returns:
        The bytes removed.
    """
    removed = 0
    for pattern in globs:
        for path in sorted(root.glob(pattern)):
            if path.relative_to(root).as_posix() in keep:
                continue
            removed += tree_size(path)
            shutil.rmtree(path) if path.is_dir() else path.unlink()
    return removed


def trim(site_packages: Path, globs: tuple[str, ...]) -> int:
    """Delete DEVELOPER_FILES, what ``globs`` name and the Qt translations not kept.

    Returns:
        The bytes removed.
    """
    removed = remove_globs(site_packages, (*DEVELOPER_FILES, *globs))
    translations = site_packages / "PySide6" / "translations"
    if not translations.is_dir():
        translations = site_packages / "PySide6" / "Qt" / "translations"
    if translations.is_dir():
        for path in translations.iterdir():
            if path.is_file() and path.name not in KEEP_TRANSLATIONS:
                removed += path.stat().st_size
                path.unlink()
    return removed
