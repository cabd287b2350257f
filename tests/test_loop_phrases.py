"""``therapy-app loop --phrases FILE | --patient NAME [--json]``: a phrase book on the CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_fixtures import assert_one_french_error, run_cli
from practice_fixtures import SPEECH_DIR, shared_engines

from therapy_app import cli, model_store
from therapy_app.phrases.model import Gender
from therapy_app.speech import loading
from therapy_app.speech.loading import LoadStep
from therapy_app.storage import SessionRepository

BOOK = """# Les phrases de Jeanne
Je voudrais un café.
Je suis allé à la boulangerie hier.
J'ai mal au dos.

Appelle ma fille Mathilde.
je voudrais un café.
"""

needs_models = pytest.mark.skipif(
    model_store.find_model(model_store.ASR_MODEL) is None,
    reason="speech models not built: run `python -m models.build`",
)


def _phrases(folder: Path, text: str = BOOK) -> Path:
    path = folder / "phrases.txt"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture
def loaded_engines(monkeypatch: pytest.MonkeyPatch) -> None:
    """The loop's own load steps, answered from the engines this process already loaded."""
    engines = shared_engines()
    real = loading.load_steps

    def load_steps(provider=None, with_corrector=True, personal=None):  # noqa: ANN001, ANN202
        steps = real(provider, with_corrector, personal)
        return [LoadStep(s.key, s.label, lambda k=s.key: engines[k]) for s in steps]

    monkeypatch.setattr(loading, "load_steps", load_steps)


@needs_models
@pytest.mark.slow
def test_loop_json_prints_one_line_per_utterance_and_nothing_else(tmp_path: Path):
    result = run_cli(
        "loop",
        "--input",
        str(SPEECH_DIR / "telegraphic_01.wav"),  # "moi aller boulangerie hier"
        "--input",
        str(SPEECH_DIR / "telegraphic_06.wav"),  # "chat dormir canapé": not in the book
        "--no-play",
        "--phrases",
        str(_phrases(tmp_path)),
        "--json",
        "--output-dir",
        str(tmp_path / "answers"),
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 2, result.stdout  # progress and "écrit" lines went to stderr
    first, second = (json.loads(line) for line in lines)
    assert set(first) == {"heard", "proposals", "timings"}
    assert "boulangerie" in first["heard"]
    assert first["proposals"][0] == {
        "text": "Je suis allé à la boulangerie hier.",
        "score": pytest.approx(first["proposals"][0]["score"]),
        "source": "phrase",
    }
    assert all(p["source"] == "corrector" for p in first["proposals"][1:])
    assert {"asr", "phrases", "tts"} <= set(first["timings"])
    assert second["proposals"] and all(p["source"] == "corrector" for p in second["proposals"])
    assert "Carnet de phrases : 4 phrase(s) du fichier." in result.stderr
    assert "reponse_001.wav" in result.stderr
    assert (tmp_path / "answers" / "reponse_001.wav").is_file()


@needs_models
@pytest.mark.slow
def test_loop_patient_uses_their_phrase_book_agreed_with_their_gender(
    capsys: pytest.CaptureFixture[str], loaded_engines: None
):
    with SessionRepository() as repository:
        jeanne = repository.patients.create("Jeanne Martin")
        repository.programs.add_custom_item(
            jeanne.id, "sentence", "Je suis allé(e) à la boulangerie hier."
        )
        repository.programs.add_custom_item(jeanne.id, "sentence", "Je voudrais un café.")
        repository.phrases.set_gender(jeanne.id, Gender.FEMININE, "test")
    argv = ["loop", "--input", str(SPEECH_DIR / "telegraphic_01.wav"), "--no-play"]
    assert cli.main([*argv, "--patient", "jeanne martin", "--json"]) == 0
    out, err = capsys.readouterr()
    utterance = json.loads(out.strip())
    assert utterance["proposals"][0]["text"] == "Je suis allée à la boulangerie hier."
    assert utterance["proposals"][0]["source"] == "phrase"
    assert "Carnet de phrases : 2 phrase(s) du carnet du patient." in err

    # The text output names the sentence of the book on its own line.
    assert cli.main([*argv, "--patient", "Jeanne Martin"]) == 0
    out, _ = capsys.readouterr()
    assert "[1] carnet" in out and "Je suis allée à la boulangerie hier." in out
    assert "[1] entendu" in out


@needs_models
@pytest.mark.slow
def test_loop_without_a_book_is_unchanged_and_json_has_no_phrase_timing(
    capsys: pytest.CaptureFixture[str], loaded_engines: None
):
    argv = ["loop", "--input", str(SPEECH_DIR / "telegraphic_01.wav"), "--no-play", "--json"]
    assert cli.main(argv) == 0
    out, err = capsys.readouterr()
    utterance = json.loads(out.strip())
    assert all(p["source"] == "corrector" for p in utterance["proposals"])
    assert "phrases" not in utterance["timings"]
    assert "Carnet" not in err


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (None, ("fichier de phrases",)),
        ("# rien que des commentaires\n\n", ("phrase",)),
        (b"caf\xe9\n", ("UTF-8",)),
    ],
)
def test_a_bad_phrases_file_is_refused_in_french_before_the_models_load(
    tmp_path: Path, content: str | bytes | None, words: tuple[str, ...]
):
    path = tmp_path / "phrases.txt"
    if isinstance(content, bytes):
        path.write_bytes(content)
    elif content is not None:
        path.write_text(content, encoding="utf-8")
    result = run_cli("loop", "--demo", "--no-play", "--phrases", str(path), "--json")
    assert_one_french_error(result, *words)
    assert result.stdout == ""
    assert "Chargement des modèles" not in result.stderr
