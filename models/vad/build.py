"""Extracts the Silero VAD ONNX graph from the pinned silero-vad wheel into build/models."""

from __future__ import annotations

import hashlib
import json
import logging
import shutil
import tempfile
import zipfile
from pathlib import Path

from models import wheels
from models.build import build_parser
from models.wheels import PinnedWheel
from therapy_app import paths
from therapy_app.model_store import (
    SIDECAR,
    ModelBundle,
    file_entry,
    write_sidecar,
)

_LOGGER = logging.getLogger(__name__)

MODEL_NAME = "silero-vad"
PACKAGE = "silero-vad"
VERSION = "6.2.3"
WHEEL = f"silero_vad-{VERSION}-py3-none-any.whl"  # its name in the cache
# Pinned: the wheel is fetched from PyPI, so both the archive and the graph are checked.
WHEEL_SHA256 = "7b7f5436cfcb02fae583a05b512ea96467fd449fe54cb49a5e4f06c51a1e43b8"
# The stock streaming graph (opset 16): input [B, 64 + 512] (context + window),
# state [2, B, 128], sr int64 scalar; 8 and 16 kHz. Measured here to give the same
# probabilities (bit for bit) as the wheel's batched "sequence" graph.
MEMBER = "silero_vad/data/silero_vad.onnx"
ONNX_SHA256 = "1a153a22f4509e292a94e67d6f9b85e8deb25b4988682b7e174c65279d8788e3"
LICENSE_MEMBER = f"silero_vad-{VERSION}.dist-info/licenses/LICENSE"

SAMPLE_RATE = 16_000
WINDOW_SAMPLES = 512
CONTEXT_SAMPLES = 64
STATE_SHAPE = [2, 1, 128]


def cache_dir() -> Path:
    """Where downloaded wheels are kept between builds."""
    return paths.project_root() / "build" / "cache" / "wheels"


def fetch_wheel(cache: Path) -> Path:
    """The pinned wheel from the cache, downloaded with pip when absent.

    Raises:
        WheelError: pip failed or the wheel's hash is not the pinned one.
    """
    # Built at call time so that the pin can be changed in tests.
    return wheels.fetch_wheel(PinnedWheel(PACKAGE, VERSION, WHEEL_SHA256), cache)


def _up_to_date(folder: Path) -> bool:
    """True when the folder holds this exact build (same package pin, files intact)."""
    try:
        meta = json.loads((folder / SIDECAR).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    bundle = ModelBundle(MODEL_NAME, folder, meta)
    packages = bundle.meta.get("source", {}).get("packages", [])
    pinned = [p for p in packages if p.get("name") == PACKAGE]
    if not pinned or pinned[0].get("sha256") != WHEEL_SHA256:
        return False
    return not bundle.verify()


def build(out_dir: Path, force: bool = False) -> Path:
    """Build ``out_dir/silero-vad`` (ONNX graph, licence, ``model.json``).

    Args:
        out_dir: folder receiving one sub-folder per model (usually ``build/models``).
        force: rebuild even when an identical build is already there.

    Returns:
        The model folder.

    Raises:
        RuntimeError: download failed or a hash does not match its pin.
    """
    folder = out_dir / MODEL_NAME
    if not force and _up_to_date(folder):
        _LOGGER.info("%s is up to date in %s", MODEL_NAME, folder)
        return folder
    wheel = fetch_wheel(cache_dir())
    out_dir.mkdir(parents=True, exist_ok=True)
    # Build next to the target and swap it in, so a failed build never leaves
    # a half-written folder that the app would try to load.
    staging = Path(tempfile.mkdtemp(prefix=f".{MODEL_NAME}-", dir=out_dir))
    staging.chmod(0o755)  # mkdtemp makes it private; the models are read by every user
    try:
        with zipfile.ZipFile(wheel) as archive:
            onnx_bytes = archive.read(MEMBER)
            licence_bytes = archive.read(LICENSE_MEMBER)
        digest = hashlib.sha256(onnx_bytes).hexdigest()
        if digest != ONNX_SHA256:
            raise RuntimeError(f"{MEMBER}: sha256 {digest} differs from the pinned {ONNX_SHA256}")
        (staging / "silero_vad.onnx").write_bytes(onnx_bytes)
        (staging / "LICENSE").write_bytes(licence_bytes)
        meta = {
            "name": MODEL_NAME,
            "version": VERSION,
            "kind": "vad",
            "licence": "MIT",
            "source": {
                "packages": [
                    {"name": PACKAGE, "version": VERSION, "sha256": WHEEL_SHA256, "member": MEMBER}
                ]
            },
            "files": {
                "model": file_entry(staging, staging / "silero_vad.onnx"),
                "licence": file_entry(staging, staging / "LICENSE"),
            },
            "vad": {
                "sample_rate": SAMPLE_RATE,
                "window_samples": WINDOW_SAMPLES,
                "context_samples": CONTEXT_SAMPLES,
                "state_shape": STATE_SHAPE,
                "inputs": ["input", "state", "sr"],
                "outputs": ["output", "stateN"],
            },
        }
        write_sidecar(staging, meta)
        if folder.exists():
            shutil.rmtree(folder)
        staging.rename(folder)
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
    _LOGGER.info("built %s in %s", MODEL_NAME, folder)
    return folder


def main(argv: list[str] | None = None) -> int:
    """Command line: ``python -m models.vad.build [--out DIR] [--force]``."""
    args = build_parser(__doc__).parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    print(build(args.out, force=args.force))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
