"""Builds every third-party model the app needs into build/models (idempotent, cached)."""

from __future__ import annotations

import argparse
import logging
import sys
import time
from pathlib import Path

from therapy_app import paths

_LOGGER = logging.getLogger("models.build")


def build_all(out_dir: Path, force: bool = False) -> list[Path]:
    """Build the ASR and VAD model folders; the corrector ships in resources/.

    Args:
        out_dir: folder receiving one sub-folder per model.
        force: rebuild even when the sidecar says the build is up to date.

    Returns:
        The model folders, in build order.
    """
    # Imported here so that `--help` works without the [build] extra.
    from models.asr import build as asr_build
    from models.vad import build as vad_build

    built = []
    for name, module in (("silero-vad", vad_build), ("whisper-base", asr_build)):
        start = time.perf_counter()
        folder = module.build(out_dir, force=force)
        _LOGGER.info("%s ready in %s (%.1f s)", name, folder, time.perf_counter() - start)
        built.append(folder)
    return built


def build_parser(description: str | None) -> argparse.ArgumentParser:
    """The command line every model build takes: ``--out DIR`` and ``--force``."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument(
        "--out",
        type=Path,
        default=paths.build_models_dir(),
        help="parent folder of the model folders (default: build/models)",
    )
    parser.add_argument("--force", action="store_true", help="rebuild even if up to date")
    return parser


def main(argv: list[str] | None = None) -> int:
    """Command line: ``python -m models.build [--out DIR] [--force]``."""
    args = build_parser(__doc__).parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    try:
        import torch  # noqa: F401  (build-time dependency check)
    except ImportError:
        print("Building models needs the build extra: pip install -e '.[build]'", file=sys.stderr)
        return 2
    for folder in build_all(args.out, force=args.force):
        print(folder)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
