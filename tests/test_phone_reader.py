"""The shipped phone reader on the real recogniser's frames: loading, checks, sound-alikes."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from asr_fixtures import require_model, shared_recognizer, synthesize

from therapy_app.asr.phone_reader import PhoneReader
from therapy_app.errors import ModelInvalidError, ModelMissingError
from therapy_app.paths import resources_dir
from therapy_app.verdict import PHONE_FIT, PHONE_MARGIN

SHIPPED = resources_dir() / "models" / "phone-reader"


def test_the_recogniser_loads_the_reader_of_its_encoder() -> None:
    require_model()
    recognizer = shared_recognizer()
    assert recognizer.phones is not None
    assert recognizer.model_version.startswith(recognizer.phones.meta["encoder_version"])


def test_another_encoders_recogniser_goes_without_the_reader(
    caplog: pytest.LogCaptureFixture,
) -> None:
    assert PhoneReader.for_encoder("small-2.0.0+onnx7") is None
    assert "trained on encoder" in caplog.text


def test_a_missing_or_foreign_reader_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ModelMissingError):
        PhoneReader(tmp_path / "absent")
    copy = tmp_path / "reader"
    shutil.copytree(SHIPPED, copy)
    meta = json.loads((copy / "model.json").read_text(encoding="utf-8"))
    meta["inventory"] = meta["inventory"][::-1]
    (copy / "model.json").write_text(json.dumps(meta), encoding="utf-8")
    with pytest.raises(ModelInvalidError):
        PhoneReader(copy)


@pytest.mark.parametrize(
    ("said", "other", "decides"),
    [
        ("Le chapeau.", "Le chameau.", True),
        ("Dix.", "Six.", True),
        # Pico's "chameau" fits its own word best, but not well enough to decide alone.
        ("Le chameau.", "Le chapeau.", False),
    ],
)
def test_the_word_said_fits_better_than_its_sound_alike(
    said: str, other: str, decides: bool
) -> None:
    require_model()
    recognizer = shared_recognizer()
    assert recognizer.phones is not None
    encoded = recognizer.encode(synthesize(said))
    scores = recognizer.phones.score(encoded, [said, other, "Le chefau."])
    fit_said, fit_other = scores.fit(said), scores.fit(other)
    assert fit_said is not None and fit_other is not None
    assert fit_said > fit_other
    # The phone rule never takes the sound-alike for the target...
    assert not (fit_other >= PHONE_FIT and fit_other - fit_said >= PHONE_MARGIN)
    # ...and accepts the word said when it is clear.
    assert (fit_said >= PHONE_FIT and fit_said - fit_other >= PHONE_MARGIN) == decides
    assert scores.fit("Le chefau.") is None  # no pronunciation: no evidence either way
