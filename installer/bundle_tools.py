"""What the Windows and Debian builds share: unpack wheels, trim them, copy checked models."""

from __future__ import annotations

import hashlib
import json
import logging
import shutil
import zipfile
from pathlib import Path, PurePosixPath

_LOGGER = logging.getLogger("stage")


def sha256(path: Path) -> str:
    """Hex sha256 of a file."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while block := handle.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


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
            target = site_packages.joinpath(*parts)
            target.parent.mkdir(parents=True, exist_ok=True)
            with archive.open(info) as src, target.open("wb") as dst:
                shutil.copyfileobj(src, dst)
    if dist_info is None:
        raise SystemExit(f"{wheel.name}: no .dist-info folder")
    (site_packages / dist_info / "INSTALLER").write_text(installer + "\n")


def tree_size(path: Path) -> int:
    """Bytes in a file or folder tree."""
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def copy_models(models: Path, package_dir: Path, names: list[str]) -> None:
    """Copy built model folders to ``therapy_app/_models/<name>/`` and check their files.

    Only the files the sidecar registers are copied (plus the sidecar), after
    checking their sizes and sha256 against it.
    """
    for name in names:
        source = models / name
        meta = json.loads((source / "model.json").read_text(encoding="utf-8"))
        target = package_dir / "_models" / name
        target.mkdir(parents=True, exist_ok=True)
        # copyfile, not copy2: sidecars are written 0600 (atomic writes) and every
        # user of the installed app must read them.
        shutil.copyfile(source / "model.json", target / "model.json")
        (target / "model.json").chmod(0o644)
        for role, entry in meta.get("files", {}).items():
            rel = entry["path"]
            src = source / rel
            if entry.get("bytes") is not None and src.stat().st_size != entry["bytes"]:
                raise SystemExit(f"model {name}: {role} size differs from model.json")
            if entry.get("sha256") and sha256(src) != entry["sha256"]:
                raise SystemExit(f"model {name}: {role} sha256 differs from model.json")
            (target / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, target / rel)
            (target / rel).chmod(0o644)


def trim(site_packages: Path, globs: tuple[str, ...], keep_translations: tuple[str, ...]) -> int:
    """Delete what ``globs`` name and Qt translations not kept; returns the bytes removed."""
    removed = 0
    for pattern in globs:
        for path in sorted(site_packages.glob(pattern)):
            removed += tree_size(path)
            shutil.rmtree(path) if path.is_dir() else path.unlink()
    translations = site_packages / "PySide6" / "translations"
    if not translations.is_dir():
        translations = site_packages / "PySide6" / "Qt" / "translations"
    if translations.is_dir():
        for path in translations.iterdir():
            if path.is_file() and path.name not in keep_translations:
                removed += path.stat().st_size
                path.unlink()
    return removed
