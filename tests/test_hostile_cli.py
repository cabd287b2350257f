"""Hostile input files and values on the command line: no hang, bounded memory, no traceback.

Issue 24, items 4 and 5. Every case runs the real console script in a
subprocess, with a time limit (a FIFO used to block forever) and an
address-space limit (``/dev/zero`` used to fill gigabytes), and expects one
French line on stderr starting with ``Erreur : `` and exit code 2.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import cli_fixtures
import pytest
from cli_fixtures import assert_one_french_error

from therapy_app import model_store

pytestmark = pytest.mark.skipif(os.name != "posix", reason="FIFOs, /dev/zero, rlimits")

SPEECH = Path(__file__).resolve().parent / "data" / "speech" / "word_02.wav"
MEMORY_LIMIT = 3 << 30
"""Address space a command may use: onnxruntime and numpy fit; 2.5 GB of zeros do not."""

needs_asr = pytest.mark.skipif(
    model_store.find_model(model_store.ASR_MODEL) is None, reason="speech models not built"
)


def run_cli(
    *args: str, env: dict[str, str] | None = None, timeout: float = 60
) -> subprocess.CompletedProcess[str]:
    """``therapy-app ARGS`` under a memory limit; a hang fails the test through TimeoutExpired."""
    return cli_fixtures.run_cli(*args, env=env, memory_limit=MEMORY_LIMIT, timeout=timeout)


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "tube.wav"
    os.mkfifo(path)
    return path


# ----- item 4: hangs and memory -----------------------------------------------------------


def test_transcribe_a_fifo_does_not_hang(fifo: Path) -> None:
    assert_one_french_error(run_cli("transcribe", str(fifo)), "pas un fichier ordinaire")


def test_score_a_device_is_refused() -> None:
    assert_one_french_error(run_cli("score", "/dev/zero", "pain"), "pas un fichier ordinaire")


@pytest.mark.parametrize("source", ["fifo", "/dev/zero"])
def test_backup_passphrase_file_that_is_not_a_file(fifo: Path, tmp_path: Path, source: str) -> None:
    path = str(fifo) if source == "fifo" else source
    result = run_cli("backup", "--encrypt", "--passphrase-file", path, str(tmp_path / "copie"))
    assert_one_french_error(result, "fichier du mot de passe", "pas un fichier ordinaire")
    assert not (tmp_path / "copie").exists()


def test_backup_passphrase_file_too_big(tmp_path: Path) -> None:
    big = tmp_path / "mot-de-passe.txt"
    big.write_text("x" * 100_000)
    result = run_cli("backup", "--encrypt", "--passphrase-file", str(big), str(tmp_path / "b"))
    assert_one_french_error(result, "trop gros")


def test_speak_refuses_a_text_too_long_to_say_quickly(tmp_path: Path) -> None:
    start = time.perf_counter()
    result = run_cli("speak", "oui " * 20_000, "-o", str(tmp_path / "long.wav"))
    assert_one_french_error(result, "trop long")
    assert time.perf_counter() - start < 30
    assert not (tmp_path / "long.wav").exists()


def test_correct_says_too_long_before_checking_every_word() -> None:
    if model_store.find_model(model_store.CORRECTOR_MODEL) is None:
        pytest.skip("corrector model not built")
    start = time.perf_counter()
    # 13,500 words, half of them deformed: each is compared with the whole
    # vocabulary (difflib) before the length used to be checked: two minutes.
    result = run_cli("correct", "moi aller boulanzerie zournal " * 3_375, timeout=90)
    assert_one_french_error(result, "trop longue")
    assert time.perf_counter() - start < 30


# ----- item 5: tracebacks -----------------------------------------------------------------


def _bad_paths(tmp_path: Path) -> dict[str, Path]:
    text = tmp_path / "passwd"
    text.write_text("root:x:0:0\n")
    (tmp_path / "boucle-a").symlink_to(tmp_path / "boucle-b")
    (tmp_path / "boucle-b").symlink_to(tmp_path / "boucle-a")
    return {
        "not-a-folder": text / "x.wav",  # ENOTDIR
        "name-too-long": tmp_path / ("n" * 300 + ".wav"),  # ENAMETOOLONG
        "link-loop": tmp_path / "boucle-a",  # ELOOP
    }


@pytest.mark.parametrize("case", ["not-a-folder", "name-too-long", "link-loop"])
@pytest.mark.parametrize("command", ["transcribe", "score"])
def test_impossible_paths_get_a_french_line(tmp_path: Path, case: str, command: str) -> None:
    path = str(_bad_paths(tmp_path)[case])
    args = [command, path] + (["pain"] if command == "score" else [])
    assert_one_french_error(run_cli(*args), "fichier audio")


def test_a_5000_digit_number_is_not_corrected() -> None:
    if model_store.find_model(model_store.CORRECTOR_MODEL) is None:
        pytest.skip("corrector model not built")
    result = run_cli("correct", "moi appeler " + "7" * 5000, timeout=120)
    assert "Traceback" not in result.stderr, result.stderr[-2000:]
    assert result.returncode == 0
    assert "nombre trop long" in result.stderr


@needs_asr
def test_score_refuses_a_candidate_longer_than_the_decoder_context() -> None:
    result = run_cli("score", str(SPEECH), "pain", "mot " * 10_000, timeout=120)
    assert_one_french_error(result, "n° 2", "trop long")


def test_passphrase_that_is_not_utf8_in_the_environment(tmp_path: Path) -> None:
    env = {os.fsencode(k): os.fsencode(v) for k, v in os.environ.items()}
    env[b"THERAPY_APP_BACKUP_PASSPHRASE"] = b"mot-de-passe-\xe9t\xe9"
    result = subprocess.run(
        [sys.executable, "-m", "therapy_app.cli", "backup", "--encrypt", str(tmp_path / "c")],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,  # bytes, as a real environment may hold (POSIX)
        check=False,
    )
    assert_one_french_error(result, "caractères illisibles")


def test_passphrase_file_that_is_not_utf8(tmp_path: Path) -> None:
    latin1 = tmp_path / "mdp.txt"
    latin1.write_bytes(b"mot-de-passe-\xe9t\xe9\n")
    result = run_cli("backup", "--encrypt", "--passphrase-file", str(latin1), str(tmp_path / "c"))
    assert_one_french_error(result, "UTF-8")


def _broken_whisper(tmp_path: Path, change: str) -> Path:
    found = model_store.find_model(model_store.ASR_MODEL)
    assert found is not None
    models = tmp_path / "modeles"
    folder = models / model_store.ASR_MODEL
    folder.mkdir(parents=True)
    for name in os.listdir(found):
        if name != model_store.SIDECAR:
            (folder / name).symlink_to(found / name)
    meta = json.loads((found / model_store.SIDECAR).read_text(encoding="utf-8"))
    if change == "missing-path":
        del meta["files"]["encoder"]["path"]
        text = json.dumps(meta)
    elif change == "files-list":
        meta["files"] = list(meta["files"].values())
        text = json.dumps(meta)
    else:  # nested far deeper than the JSON decoder's recursion limit
        text = json.dumps(meta)[:-1] + ', "x": ' + "[" * 100_000 + "]" * 100_000 + "}"
    (folder / model_store.SIDECAR).write_text(text, encoding="utf-8")
    return models


@needs_asr
@pytest.mark.parametrize("change", ["missing-path", "files-list", "nested-deep"])
def test_broken_model_description_gets_a_french_line(tmp_path: Path, change: str) -> None:
    models = _broken_whisper(tmp_path, change)
    result = run_cli("transcribe", str(SPEECH), env={"THERAPY_APP_MODELS_DIR": str(models)})
    assert_one_french_error(result, "whisper-base", "build-models")


def test_an_ascii_terminal_gets_plain_letters_not_a_traceback(tmp_path: Path) -> None:
    env = {"PYTHONIOENCODING": "ascii", "THERAPY_APP_DATA_DIR": str(tmp_path / "d")}
    status = run_cli("backup", "--status", env=env)
    assert "Traceback" not in status.stderr, status.stderr
    assert status.stdout.startswith("derniere sauvegarde : aucune")
    missing = run_cli("transcribe", str(tmp_path / "absent.wav"), env=env)
    assert_one_french_error(missing, "Le fichier audio est introuvable. Verifiez")
