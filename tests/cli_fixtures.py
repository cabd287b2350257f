"""Running the real ``therapy-app`` command line in a test, and checking its one French error."""

from __future__ import annotations

import os
import resource
import subprocess
import sys
from pathlib import Path

from therapy_app.cli import EXIT_USER_ERROR


def run_cli(
    *args: str,
    data_dir: Path | None = None,
    env: dict[str, str] | None = None,
    umask: int | None = None,
    memory_limit: int | None = None,
    timeout: float = 120,
) -> subprocess.CompletedProcess[str]:
    """``therapy-app ARGS`` in a subprocess; a hang fails the test through TimeoutExpired.

    Args:
        data_dir: ``THERAPY_APP_DATA_DIR`` (default: the test's own, from conftest).
        env: more environment variables.
        umask: the child's umask.
        memory_limit: address-space limit in bytes (a runaway read fails, not the machine).
    """

    def limits() -> None:
        if umask is not None:
            os.umask(umask)
        if memory_limit is not None:
            resource.setrlimit(resource.RLIMIT_AS, (memory_limit, memory_limit))

    data = {"THERAPY_APP_DATA_DIR": str(data_dir)} if data_dir is not None else {}
    return subprocess.run(
        [sys.executable, "-m", "therapy_app.cli", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, **data, **(env or {})},
        preexec_fn=limits,
        check=False,
    )


def assert_one_french_error(result: subprocess.CompletedProcess[str], *words: str) -> None:
    """Exit 2, no traceback, exactly one ``Erreur : …`` line holding every one of ``words``."""
    assert result.returncode == EXIT_USER_ERROR, result.stderr
    assert "Traceback" not in result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("Erreur")]
    assert len(errors) == 1 and errors[0].startswith("Erreur : "), result.stderr
    for word in words:
        assert word in errors[0], errors[0]
