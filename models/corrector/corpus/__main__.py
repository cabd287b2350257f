"""Command line: `python -m models.corrector.corpus [--out DIR] [--size N] [--seed S]`."""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from models.corrector.corpus.build import BuildConfig, build

_LOGGER = logging.getLogger(__name__)


def main(argv: list[str] | None = None) -> int:
    """Parses arguments and builds the corpus."""
    parser = argparse.ArgumentParser(
        prog="python -m models.corrector.corpus",
        description="Build the synthetic Broca's aphasia corpus.",
    )
    parser.add_argument("--out", type=Path, default=BuildConfig.out, help="output folder")
    parser.add_argument("--size", type=int, default=BuildConfig.size, help="number of pairs")
    parser.add_argument("--seed", type=int, default=BuildConfig.seed)
    parser.add_argument(
        "--workers",
        type=int,
        default=BuildConfig.workers,
        help="sampling processes (the machine is shared: 2 at most)",
    )
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.INFO,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    cfg = BuildConfig(
        out=args.out, size=args.size, seed=args.seed, workers=max(1, min(args.workers, 2))
    )
    build(cfg)
    return 0


if __name__ == "__main__":
    sys.exit(main())
