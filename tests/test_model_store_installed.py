"""An installed copy finds the speech models its installer put inside the package."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from therapy_app import model_store, paths


def test_models_inside_the_installed_package_are_found(tmp_path: Path, monkeypatch):
    vad = model_store.find_model("silero-vad")
    if vad is None:
        pytest.skip("silero-vad is not built")
    installed = tmp_path / "therapy_app" / "_models"
    shutil.copytree(vad, installed / "silero-vad")
    monkeypatch.delenv(paths.ENV_MODELS_DIR, raising=False)
    monkeypatch.setattr(paths, "installed_models_dir", lambda: installed)
    # No source checkout's build folder: only the installer's copy is there.
    monkeypatch.setattr(paths, "build_models_dir", lambda: tmp_path / "no-build")
    assert model_store.find_model("silero-vad") == installed / "silero-vad"
    assert model_store.load_model("silero-vad").directory == installed / "silero-vad"


def test_the_installed_folder_is_searched_before_a_checkout_build(monkeypatch):
    monkeypatch.delenv(paths.ENV_MODELS_DIR, raising=False)
    dirs = model_store.search_dirs()
    assert dirs.index(paths.installed_models_dir()) < dirs.index(paths.build_models_dir())
    assert paths.installed_models_dir().parent == Path(paths.__file__).resolve().parent


def test_the_override_replaces_the_installed_folder(tmp_path: Path, monkeypatch):
    monkeypatch.setenv(paths.ENV_MODELS_DIR, str(tmp_path))
    assert paths.installed_models_dir() not in model_store.search_dirs()
