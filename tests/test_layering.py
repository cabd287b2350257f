"""The core imports neither torch nor PySide6; only therapy_app.gui may import Qt."""

from __future__ import annotations

import ast
import pkgutil
import subprocess
import sys
import textwrap
from pathlib import Path

import therapy_app

PACKAGE_DIR = Path(therapy_app.__file__).parent


def _imported_roots(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    roots: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            roots.add(node.module.split(".")[0])
    return roots


def test_no_module_imports_torch_and_only_gui_imports_qt():
    offenders = []
    for path in PACKAGE_DIR.rglob("*.py"):
        roots = _imported_roots(path)
        rel = path.relative_to(PACKAGE_DIR.parent).as_posix()
        if "torch" in roots:
            offenders.append(f"{rel} imports torch")
        if "PySide6" in roots and not rel.startswith("therapy_app/gui/"):
            offenders.append(f"{rel} imports PySide6")
    assert not offenders, offenders


def test_core_modules_import_with_torch_and_qt_blocked():
    # Importing for real catches indirect imports through third-party packages.
    core = [
        m.name
        for m in pkgutil.walk_packages([str(PACKAGE_DIR)], prefix="therapy_app.")
        if not m.name.startswith("therapy_app.gui")
    ]
    script = textwrap.dedent(
        f"""
        import importlib, sys
        class Block:
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] in ("torch", "PySide6"):
                    raise ImportError("blocked: " + name)
                return None
        sys.meta_path.insert(0, Block())
        for name in {core!r}:
            importlib.import_module(name)
        print("imported", len({core!r}))
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr
    assert "imported" in result.stdout
