"""``therapy-app voice …`` and ``--patient`` end to end: real data, real models, real WAVs."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from cli_fixtures import assert_one_french_error, run_cli
from voice_fixtures import trainer_available, voice_decision

from therapy_app import model_store, paths
from therapy_app.storage import SessionRepository
from therapy_app.voice import store
from therapy_app.voice.adaptation import MIN_SAMPLES
from therapy_app.voice.model import VoiceDecision
from therapy_app.voice.runner import halting_adapter

DATA = Path(__file__).resolve().parent / "data"

needs_models = pytest.mark.skipif(
    model_store.find_model(model_store.ASR_MODEL) is None,
    reason="speech models not built: run `python -m models.build`",
)


def _recordings() -> list[tuple[Path, str]]:
    """Every committed test recording with its words (26 distinct clips, two voices)."""
    found = [
        (DATA / "human" / e["file"], e["text"])
        for e in json.loads((DATA / "human" / "index.json").read_text(encoding="utf-8"))
    ]
    speech = json.loads((DATA / "speech" / "transcripts.json").read_text(encoding="utf-8"))
    found += [(DATA / "speech" / name, entry["text"]) for name, entry in speech.items()]
    return found


def _tsv(folder: Path, rows: list[tuple[Path, str]]) -> Path:
    """A list with paths relative to it, as a therapist writes one."""
    audio = folder / "audio"
    audio.mkdir(parents=True, exist_ok=True)
    lines = ["file\ttext"]
    for index, (source, text) in enumerate(rows):
        name = f"{index:02d}-{source.name}"
        shutil.copyfile(source, audio / name)
        lines.append(f"audio/{name}\t{text}")
    path = folder / "liste.tsv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _ok(result: subprocess.CompletedProcess[str]) -> list[str]:
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    return result.stdout.strip().splitlines()


def _adopt(data_dir: Path, patient_id: int, *, scoring: bool) -> str:
    """Record an adopted personal model (the shipped halting adapter: a real adapter file)."""
    adapter = halting_adapter(paths.build_models_dir() / "whisper-base-train")
    if adapter is None:
        pytest.skip("no halting-speech adapter to stand for a personal one")
    sha = model_store.sha256_file(adapter)
    decision = voice_decision(sha, scoring=scoring)
    store.save_decision(data_dir, patient_id, decision, adapter)
    return sha


# -- errors before anything loads ------------------------------------------------------


@pytest.mark.parametrize(
    "args",
    [
        ("voice", "status", "--patient", "Jeanne"),
        ("voice", "adapt", "--patient", "Jeanne"),
        ("voice", "revert", "--patient", "Jeanne"),
        ("transcribe", str(DATA / "human" / "six.wav"), "--patient", "Jeanne"),
        (
            "judge",
            str(DATA / "human" / "six.wav"),
            "--exercise",
            "repetition",
            "--target",
            "six",
            "--patient",
            "Jeanne",
        ),  # fmt: skip
        ("loop", "--demo", "--once", "--no-play", "--patient", "Jeanne"),
    ],
)
def test_unknown_patient_on_a_fresh_install(user_data_dir: Path, args: tuple[str, ...]) -> None:
    result = run_cli(*args, data_dir=user_data_dir)
    assert_one_french_error(result, "Aucun patient", "Jeanne")
    assert not (user_data_dir / paths.DB_FILENAME).exists()  # nothing created to say so


def test_unknown_patient_among_others(user_data_dir: Path) -> None:
    with SessionRepository(user_data_dir) as repository:
        repository.patients.create("Paul Durand")
    result = run_cli("transcribe", str(DATA / "human" / "six.wav"), "--patient", "Jeanne")
    assert_one_french_error(result, "Aucun patient ne s'appelle « Jeanne »")


def test_voice_commands_need_a_patient() -> None:
    result = run_cli("voice", "status")
    assert result.returncode == 2 and "--patient" in result.stderr
    assert "Traceback" not in result.stderr


# -- import, status, too few, revert --------------------------------------------------


def test_import_creates_the_profile_then_status_counts(tmp_path: Path, user_data_dir: Path) -> None:
    rows = _recordings()[:4]
    tsv = _tsv(tmp_path, rows)

    first = _ok(run_cli("voice", "import", "--patient", "Jeanne Martin", str(tsv)))
    again = _ok(run_cli("voice", "import", "--patient", "jeanne  martin", str(tsv)))
    status = _ok(run_cli("voice", "status", "--patient", "Jeanne Martin"))

    assert any("profil a été créé" in line for line in first)
    assert any("4 enregistrement(s) ajouté(s)" in line for line in first)
    assert not any("créé" in line for line in again)
    assert any("0 enregistrement(s) ajouté(s)" in line for line in again)
    assert sum("ignorée" in line for line in again) == 4
    assert "enregistrements utilisables : 4 (importés 4)" in status
    assert "modèle utilisé : général" in status
    assert "dernière adaptation : aucune" in status
    assert "adaptation en cours : non" in status


def test_adapt_refuses_too_few_recordings(tmp_path: Path, user_data_dir: Path) -> None:
    _ok(run_cli("voice", "import", "--patient", "Jeanne", str(_tsv(tmp_path, _recordings()[:3]))))
    result = run_cli("voice", "adapt", "--patient", "Jeanne")
    assert_one_french_error(result, f"au moins {MIN_SAMPLES} enregistrements", "il y en a 3")
    assert result.stdout == ""


def test_adapt_says_when_the_voice_pack_is_missing(tmp_path: Path, user_data_dir: Path) -> None:
    rows = _recordings()
    assert len(rows) >= MIN_SAMPLES
    _ok(run_cli("voice", "import", "--patient", "Jeanne", str(_tsv(tmp_path, rows))))
    empty = tmp_path / "no-models"
    empty.mkdir()
    result = run_cli(
        "voice", "adapt", "--patient", "Jeanne", env={paths.ENV_MODELS_DIR: str(empty)}
    )
    assert_one_french_error(result, "Pack voix non installé")


def test_adapt_while_another_runs(tmp_path: Path, user_data_dir: Path) -> None:
    if not trainer_available():
        pytest.skip("voice pack not installed: adapt stops before the lock")
    _ok(run_cli("voice", "import", "--patient", "Jeanne", str(_tsv(tmp_path, _recordings()))))
    with SessionRepository(user_data_dir) as repository:
        patient_id = store.find_patient(repository, "Jeanne").id
    with store.adaptation_lock(user_data_dir, patient_id):
        status = _ok(run_cli("voice", "status", "--patient", "Jeanne"))
        result = run_cli("voice", "adapt", "--patient", "Jeanne")
    assert "adaptation en cours : oui" in status
    assert_one_french_error(result, "déjà en cours")


def test_revert_without_personal_model(user_data_dir: Path) -> None:
    with SessionRepository(user_data_dir) as repository:
        repository.patients.create("Jeanne")
    assert_one_french_error(run_cli("voice", "revert", "--patient", "Jeanne"), "modèle général")


@needs_models
def test_personal_model_used_then_reverted(user_data_dir: Path) -> None:
    with SessionRepository(user_data_dir) as repository:
        patient = repository.patients.create("Jeanne")
    sha = _adopt(user_data_dir, patient.id, scoring=True)
    recording = str(DATA / "speech" / "sentence_03.wav")

    status = _ok(run_cli("voice", "status", "--patient", "Jeanne"))
    heard = run_cli("transcribe", recording, "--patient", "Jeanne")
    judged = run_cli(
        "judge",
        recording,
        "--exercise",
        "repetition",
        "--target",
        "Le chat dort sur le canapé.",
        "--json",
        "--patient",
        "Jeanne",
    )
    generic = run_cli("judge", recording, "--exercise", "repetition", "--target", "chat", "--json")

    assert "modèle utilisé : personnel" in status
    assert "  décision : modèle personnel adopté" in status
    assert "  mots mal reconnus : modèle général 42 %, modèle personnel 18 %" in status
    assert "  jugement des réponses : modèle personnel" in status
    assert "canapé" in _ok(heard)[-1]
    assert "Modèle personnel de « Jeanne »" in heard.stderr
    version = json.loads(_ok(judged)[0])["recognizer"]
    assert version.endswith(f"+personal-{sha[:12]}+scoring")
    assert _ok(judged)[-1] == "réussi"
    assert "+personal" not in json.loads(_ok(generic)[0])["recognizer"]

    reverted = _ok(run_cli("voice", "revert", "--patient", "Jeanne"))
    after = _ok(run_cli("voice", "status", "--patient", "Jeanne"))
    heard_after = run_cli("transcribe", recording, "--patient", "Jeanne")
    assert "modèle général" in reverted[-1]
    assert "modèle utilisé : général" in after
    assert f"  raison : {store.REVERT_REASON}" in after
    assert "pas de modèle personnel adopté" in heard_after.stderr
    assert _ok(heard_after)[-1] == _ok(heard)[-1]  # the halting adapter stands in: same hearing

    undone = _ok(run_cli("voice", "revert", "--patient", "Jeanne", "--undo"))
    assert "modèle personnel" in undone[-1]
    assert store.personal_model(user_data_dir, patient.id) is not None


@needs_models
def test_status_json(user_data_dir: Path) -> None:
    with SessionRepository(user_data_dir) as repository:
        patient = repository.patients.create("Jeanne")
    _adopt(user_data_dir, patient.id, scoring=False)
    data = json.loads(_ok(run_cli("voice", "status", "--patient", "Jeanne", "--json"))[-1])
    assert data["active"] is True and data["running"] is False
    assert data["usable_total"] == 0
    assert data["decision"]["adopted"] is True and data["decision"]["scoring"] is False


# -- a real adaptation ---------------------------------------------------------------


@pytest.mark.slow
@needs_models
def test_real_adaptation_end_to_end(tmp_path: Path, user_data_dir: Path) -> None:
    """Import 26 real recordings, train two steps in the trainer process, validate, decide."""
    if not trainer_available():
        pytest.skip("voice pack (torch and whisper-base-train) not installed")
    _ok(run_cli("voice", "import", "--patient", "Jeanne", str(_tsv(tmp_path, _recordings()))))

    result = run_cli(
        "voice", "adapt", "--patient", "Jeanne", "--max-steps", "2", "--json", timeout=1200
    )

    decision = VoiceDecision.from_dict(json.loads(_ok(result)[-1]))
    progress = result.stderr.splitlines()
    assert any(line.startswith("Préparation des enregistrements") for line in progress)
    assert any(line.startswith("Apprentissage") for line in progress)
    assert any(line.startswith("Vérification") for line in progress)
    assert "Terminé." in progress
    assert decision.train_items + decision.held_out_items == len(_recordings())
    assert decision.held_out_items == 5
    assert decision.generic.items == decision.personal.items == 5  # type: ignore[union-attr]
    assert decision.reason
    assert 0 < decision.minutes < 60
    with SessionRepository(user_data_dir) as repository:
        patient_id = store.find_patient(repository, "Jeanne").id
    folder = store.voice_dir(user_data_dir, patient_id)
    assert not (folder / store.WORK_DIR).exists()  # done: the next run starts afresh
    assert (store.personal_model(user_data_dir, patient_id) is not None) is decision.adopted
    status = _ok(run_cli("voice", "status", "--patient", "Jeanne"))
    assert status[-1].startswith("  date : ")
    assert any(line.startswith("  décision : ") for line in status)
