"""Layering: no torch, Qt only in gui, pure text analysis, demo tooling not shipped."""

from __future__ import annotations

import ast
import pkgutil
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import therapy_app

PACKAGE_DIR = Path(therapy_app.__file__).parent
ROOT = PACKAGE_DIR.parent


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
        # Personal-voice training runs in its own process (issue 26): never imported here.
        if "therapy_voice" in roots:
            offenders.append(f"{rel} imports therapy_voice")
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
    # Text analysis and storage are core: a rename must not drop them from the check.
    assert {"therapy_app.analysis.metrics", "therapy_app.storage.repository"} <= set(core)
    script = textwrap.dedent(
        f"""
        import importlib, sys
        class Block:
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] in ("torch", "PySide6", "therapy_voice"):
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


def test_text_analysis_is_pure():
    # Stored metrics are recomputed after an edit: no I/O, no storage, no models (issue 10).
    stdlib = {"__future__", "collections", "dataclasses", "re", "typing", "unicodedata"}
    offenders = []
    for path in (PACKAGE_DIR / "analysis").rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names = [node.module]
            else:
                continue
            for name in names:
                if name.split(".")[0] not in stdlib and not name.startswith("therapy_app.analysis"):
                    offenders.append(f"{path.name} imports {name}")
    assert not offenders, offenders


def test_demo_and_screenshot_tooling_is_not_shipped():
    # Demo data and screenshots live in tools/ (issue 10): not in the GUI package,
    # not imported by the app, not in the wheel that the installers unpack.
    gui_modules = [
        m.name for m in pkgutil.walk_packages([str(PACKAGE_DIR / "gui")], prefix="therapy_app.gui.")
    ]
    assert "therapy_app.gui.therapist.area" in gui_modules
    tooling = [
        name
        for name in gui_modules
        if any(word in name.rsplit(".", 1)[-1] for word in ("demo", "screenshot"))
    ]
    assert not tooling, tooling
    importers = [
        path.relative_to(ROOT).as_posix()
        for path in PACKAGE_DIR.rglob("*.py")
        if "tools" in _imported_roots(path)
    ]
    assert not importers, importers
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert pyproject["tool"]["hatch"]["build"]["targets"]["wheel"]["packages"] == ["therapy_app"]
