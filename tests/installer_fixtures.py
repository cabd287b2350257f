"""The built installers and the tools the installer tests need: found, or the test skips."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DIST = ROOT / "dist"
TOOLS_COMMAND = "bash scripts/installer_tools.sh"


@dataclass(frozen=True)
class Built:
    """One file the installer build writes to ``dist/``.

    Attributes:
        pattern: its name in ``dist/`` (a glob: the version varies); the last
            match in name order is taken.
        build: the command that builds it, named in the skip reason.
        env: a variable that names another file to test instead.
    """

    pattern: str
    build: str
    env: str | None = None

    def find(self) -> Path | None:
        """The file to test, or None when none was built."""
        override = os.environ.get(self.env) if self.env else None
        if override:
            return Path(override)
        found = sorted(DIST.glob(self.pattern))
        return found[-1] if found else None

    def require(self) -> Path:
        """The file to test; the test skips, saying how to build it, when there is none."""
        path = self.find()
        if path is None or not path.is_file():
            where = path if path is not None else f"dist/{self.pattern}"
            pytest.skip(f"not built: {where} (run {self.build})")
        return path


SETUP_EXE = Built("TherapyApp-Setup-*.exe", "installer/windows/build.sh", "THERAPY_WIN_SETUP")
GPU_PACK_EXE = Built(
    "TherapyApp-GPU-*.exe", "installer/windows/build.sh --gpu-pack", "THERAPY_WIN_GPU_PACK"
)
VOICE_PACK_EXE = Built(
    "TherapyApp-Voice-*.exe", "installer/windows/build_voice_pack.sh", "THERAPY_WIN_VOICE_PACK"
)
APP_DEB = Built("therapy-app_*_amd64.deb", "installer/deb/build.sh")
VOICE_DEB = Built("therapy-app-voice_*_amd64.deb", "installer/deb/build_voice.sh")


def require_tools(tools: Iterable[str], *, root: bool = False) -> None:
    """Skip the test unless every tool is on PATH (and, with ``root``, it runs as root)."""
    missing = [tool for tool in tools if shutil.which(tool) is None]
    if missing:
        pytest.skip(f"missing tools: {', '.join(missing)} (install them: {TOOLS_COMMAND})")
    if root and os.geteuid() != 0:
        pytest.skip("needs root (chroot, mount, unshare -n)")
