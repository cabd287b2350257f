"""Output options never write into the data folder nor over a file unasked (issue 24, item 1).

The real console script in a subprocess, real files, the real database.
"""

from __future__ import annotations

import hashlib
import os
import stat
from pathlib import Path

import pytest
from cli_fixtures import assert_one_french_error, run_cli

from therapy_app.audio.wavio import read_wav
from therapy_app.storage import SessionRepository
from therapy_app.storage.repository import DB_FILENAME

posix_only = pytest.mark.skipif(os.name != "posix", reason="POSIX permission bits")


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    """A data folder holding a real database with one patient."""
    folder = tmp_path / "donnees"
    with SessionRepository(folder) as repository:
        repository.patients.create("Jeanne")
    return folder


def test_speak_refuses_to_write_over_the_live_database(data_dir: Path) -> None:
    database = data_dir / DB_FILENAME
    before = digest(database)
    result = run_cli("speak", "bonjour", "-o", str(database), data_dir=data_dir)
    assert_one_french_error(result, "dossier des données")
    assert digest(database) == before
    with SessionRepository(data_dir) as repository:  # still the app's database
        assert [p.display_name for p in repository.patients.all()] == ["Jeanne"]


def test_speak_refuses_a_link_that_leads_into_the_data_folder(
    data_dir: Path, tmp_path: Path
) -> None:
    link = tmp_path / "raccourci"
    link.symlink_to(data_dir)
    result = run_cli("speak", "bonjour", "-o", str(link / "essai.wav"), data_dir=data_dir)
    assert_one_french_error(result, "dossier des données")
    assert not (data_dir / "essai.wav").exists()


def test_backup_refuses_the_database_and_the_data_folder(data_dir: Path) -> None:
    database = data_dir / DB_FILENAME
    before = digest(database)
    for destination in (str(database), str(data_dir), str(data_dir / "recordings") + "/"):
        result = run_cli("backup", destination, data_dir=data_dir)
        assert_one_french_error(result, "dossier des données")
        assert "Sauvegarde écrite" not in result.stdout
    assert digest(database) == before
    assert sorted(p.name for p in data_dir.iterdir()) == [DB_FILENAME, f"{DB_FILENAME}.lock"]


def test_speak_does_not_replace_a_file_without_force(data_dir: Path, tmp_path: Path) -> None:
    existing = tmp_path / "lettre.wav"
    existing.write_text("ma lettre, pas un son")
    refused = run_cli("speak", "bonjour", "-o", str(existing), data_dir=data_dir)
    assert_one_french_error(refused, "existe déjà", "--force")
    assert existing.read_text() == "ma lettre, pas un son"
    forced = run_cli("speak", "bonjour", "-o", str(existing), "--force", data_dir=data_dir)
    assert forced.returncode == 0, forced.stderr
    assert read_wav(existing).duration > 0.3


def test_backup_does_not_replace_a_file_without_force(data_dir: Path, tmp_path: Path) -> None:
    existing = tmp_path / "important.therapy-backup"
    existing.write_text("une autre sauvegarde")
    refused = run_cli("backup", str(existing), data_dir=data_dir)
    assert_one_french_error(refused, "existe déjà", "--force")
    assert existing.read_text() == "une autre sauvegarde"
    forced = run_cli("backup", str(existing), "--force", data_dir=data_dir)
    assert forced.returncode == 0, forced.stderr
    assert existing.read_bytes().startswith(b"PK")


@posix_only
def test_backup_to_a_new_folder_with_a_slash_creates_that_folder(
    data_dir: Path, tmp_path: Path
) -> None:
    result = run_cli("backup", f"{tmp_path / 'cle-usb' / 'sauvegardes'}/", data_dir=data_dir)
    assert result.returncode == 0, result.stderr
    folder = tmp_path / "cle-usb" / "sauvegardes"
    assert folder.is_dir()  # it used to be a file named "sauvegardes"
    backups = list(folder.iterdir())
    assert len(backups) == 1 and backups[0].name.endswith(".therapy-backup")
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700


@posix_only
def test_output_folders_are_private_whatever_the_umask(data_dir: Path, tmp_path: Path) -> None:
    # Under umask 000 they used to come out 0777 (issue 24, item 6).
    target = tmp_path / "sons" / "jeanne" / "bonjour.wav"
    existing_mode = stat.S_IMODE(tmp_path.stat().st_mode)
    result = run_cli("speak", "bonjour", "-o", str(target), data_dir=data_dir, umask=0)
    assert result.returncode == 0, result.stderr
    for folder in (target.parent, target.parent.parent):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700, folder
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert stat.S_IMODE(tmp_path.stat().st_mode) == existing_mode  # not ours: untouched


def test_loop_output_dir_refuses_the_data_folder_and_existing_answers(
    data_dir: Path, tmp_path: Path
) -> None:
    inside = run_cli(
        "loop", "--demo", "--no-play", "--output-dir", str(data_dir / "reponses"), data_dir=data_dir
    )
    assert_one_french_error(inside, "dossier des données")
    assert not (data_dir / "reponses").exists()
    answers = tmp_path / "reponses"
    answers.mkdir()
    (answers / "reponse_001.wav").write_text("la réponse d'hier")
    again = run_cli("loop", "--demo", "--no-play", "--output-dir", str(answers), data_dir=data_dir)
    assert_one_french_error(again, "contient déjà des réponses", "--force")
    assert "Chargement des modèles" not in again.stderr  # refused before the long load
    assert (answers / "reponse_001.wav").read_text() == "la réponse d'hier"


@posix_only
def test_loop_output_dir_is_created_private_under_umask_000(data_dir: Path, tmp_path: Path) -> None:
    from therapy_app import model_store

    if model_store.find_model(model_store.ASR_MODEL) is None:
        pytest.skip("speech models not built")
    answers = tmp_path / "nouveau" / "reponses"
    result = run_cli(
        *("loop", "--demo", "--no-play", "--once", "--no-correct", "--output-dir", str(answers)),
        data_dir=data_dir,
        umask=0,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    assert stat.S_IMODE(answers.stat().st_mode) == 0o700
    assert stat.S_IMODE(answers.parent.stat().st_mode) == 0o700
    assert stat.S_IMODE((answers / "reponse_001.wav").stat().st_mode) == 0o600


def test_inside_data_folder_resolves_links_and_dangling_names(tmp_path: Path) -> None:
    from therapy_app import output_paths

    data = tmp_path / "data"
    data.mkdir()
    (tmp_path / "lien").symlink_to(data)
    (tmp_path / "pendant").symlink_to(data / "absent.wav")  # dangling, into the data
    assert output_paths.inside_data_folder(data, data)
    assert output_paths.inside_data_folder(tmp_path / "lien" / "x" / "y.wav", data)
    assert output_paths.inside_data_folder(tmp_path / "pendant", data)
    assert output_paths.inside_data_folder(data / ".." / "data" / "x", data)
    assert not output_paths.inside_data_folder(tmp_path / "data-copie" / "x", data)
    assert not output_paths.inside_data_folder(tmp_path, data)
