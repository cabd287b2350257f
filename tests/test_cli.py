"""The console script end to end: real models, data on stdout, logs on stderr."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from therapy_app import model_store
from therapy_app.audio.clip import AudioClip
from therapy_app.audio.wavio import read_wav, write_wav
from therapy_app.cli import EXIT_NO_SPEECH

pytestmark = pytest.mark.skipif(
    model_store.find_model(model_store.ASR_MODEL) is None,
    reason="speech models not built: run `python -m models.build`",
)


def _run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "therapy_app.cli", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, **(env or {})},
        check=False,
    )


def test_transcribe_prints_the_transcript_alone_as_last_stdout_line(speech_dir: Path):
    result = _run("transcribe", str(speech_dir / "sentence_06.wav"))
    assert result.returncode == 0, result.stderr
    last = result.stdout.strip().splitlines()[-1].lower()
    assert "mal" in last and "tête" in last
    assert "INFO" not in result.stdout  # logs go to stderr
    assert "runs on CPUExecutionProvider" in result.stderr


def test_transcribe_json_has_details(speech_dir: Path):
    result = _run("transcribe", "--json", str(speech_dir / "word_02.wav"))
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout.strip().splitlines()[-1])
    assert data["provider"] == "cpu"
    assert len(data["tokens"]) == len(data["token_logprobs"]) > 0
    assert data["audio_seconds"] > 0


def test_score_ranks_the_spoken_target_first(speech_dir: Path):
    result = _run(
        "score",
        "--json",
        str(speech_dir / "telegraphic_02.wav"),
        "chat dormir canapé",
        "femme manger pomme",
        "fils venir dimanche",
    )
    assert result.returncode == 0, result.stderr
    ranked = json.loads(result.stdout)
    assert ranked[0]["text"] == "femme manger pomme"
    assert [c["rank"] for c in ranked] == [1, 2, 3]


def test_speak_writes_a_16k_wav_slower_when_asked(tmp_path: Path):
    normal, slow = tmp_path / "normal.wav", tmp_path / "slow.wav"
    text = "Je voudrais un verre d'eau."
    assert _run("speak", text, "-o", str(normal)).returncode == 0
    assert _run("speak", text, "-o", str(slow), "--rate", "90").returncode == 0
    a, b = read_wav(normal), read_wav(slow)
    assert a.sample_rate == 16_000 and a.duration > 1.0
    assert b.duration > a.duration * 1.2


def test_loop_on_the_demo_recording_prints_every_stage(tmp_path: Path):
    result = _run("loop", "--demo", "--no-play", "--output-dir", str(tmp_path))
    assert result.returncode == 0, result.stderr
    assert "entendu" in result.stdout and "voix" in result.stdout
    assert "boulangerie" in result.stdout.lower()
    answer = read_wav(tmp_path / "reponse_001.wav")
    assert answer.duration > 1.0


def test_missing_model_gives_a_french_message_and_the_build_command(tmp_path: Path):
    result = _run(
        "transcribe",
        str(Path(__file__).parent / "data" / "speech" / "word_01.wav"),
        env={"THERAPY_APP_MODELS_DIR": str(tmp_path)},
    )
    assert result.returncode == 2
    assert "Il manque le modèle de reconnaissance vocale" in result.stderr
    assert "therapy-app build-models" in result.stderr
    assert "Traceback" not in result.stderr


def test_bad_audio_file_gives_a_french_message(tmp_path: Path):
    bogus = tmp_path / "bogus.wav"
    bogus.write_bytes(b"not a wav at all")
    result = _run("transcribe", str(bogus))
    assert result.returncode == 2
    assert result.stderr.startswith("Erreur") or "Erreur :" in result.stderr
    assert "Traceback" not in result.stderr


def test_doctor_reports_models_and_the_cpu_provider():
    result = _run("doctor", "--json", "--no-hash")
    data = json.loads(result.stdout)
    checks = {c["name"]: c for c in data["checks"]}
    assert checks["model whisper-base"]["ok"]
    assert checks["model silero-vad"]["ok"]
    assert checks["asr provider"]["detail"] == "cpu"
    assert checks["nvidia driver"]["detail"] == "absent"


def test_transcribe_on_silence_says_so_with_its_own_exit_code(tmp_path: Path):
    silent = tmp_path / "silence.wav"
    write_wav(silent, AudioClip(np.zeros(32_000, np.float32), 16_000))
    result = _run("transcribe", str(silent))
    assert result.returncode == EXIT_NO_SPEECH != 0
    assert result.stdout == ""  # no empty transcript line for scripts to mistake
    assert "Aucune parole détectée" in result.stderr
    assert "Traceback" not in result.stderr
    spoken = _run("transcribe", str(Path(__file__).parent / "data" / "speech" / "word_02.wav"))
    assert spoken.returncode == 0 and spoken.stdout.strip()


def test_correct_says_why_it_leaves_a_foreign_sentence_alone():
    result = _run("correct", "مرحبا كيف حالك")
    assert result.returncode == 0
    assert result.stdout.strip().splitlines()[-1] == "مرحبا كيف حالك"
    assert "Je n'ai pas corrigé cette phrase : elle n'est pas écrite en français." in result.stderr
