"""The corrector tooling asks OpenMP not to spin before any of its modules can load torch."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PROBE = (
    "import os, sys; import models.corrector; "
    "print(os.environ.get('OMP_WAIT_POLICY'), 'torch' in sys.modules)"
)


def _probe(policy: str | None) -> list[str]:
    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    if policy is not None:
        env["OMP_WAIT_POLICY"] = policy
    proc = subprocess.run(
        [sys.executable, "-c", PROBE], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.split()


@pytest.mark.parametrize(("exported", "seen"), [(None, "PASSIVE"), ("ACTIVE", "ACTIVE")])
def test_the_package_sets_the_wait_policy_before_torch_unless_exported(
    exported: str | None, seen: str
):
    assert _probe(exported) == [seen, "False"]
