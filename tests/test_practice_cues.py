"""Each cue level is audibly different: the real voice's clips get longer level after level."""

from __future__ import annotations

import pytest

from therapy_app.exercises import CompletionItem
from therapy_app.practice.cues import completion_cue, repetition_cue
from therapy_app.practice.events import Cue
from therapy_app.tts import SpeechSynthesizer, SynthesisOptions

SENTENCES = ["Je suis allé à la boulangerie hier.", "Ma femme mange une pomme.", "Bonjour."]
# A patient must hear the difference: at least this much longer than the level before.
AUDIBLY_LONGER = 1.15


@pytest.fixture(scope="module")
def voice() -> SpeechSynthesizer:
    return SpeechSynthesizer.load()


def _seconds(voice: SpeechSynthesizer, cue: Cue) -> float:
    options = SynthesisOptions(rate_wpm=cue.rate_wpm, pause_between_words_ms=cue.pause_ms)
    return voice.synthesize(cue.spoken, options).duration


@pytest.mark.parametrize("sentence", SENTENCES)
@pytest.mark.parametrize("slow_start", [False, True], ids=["repetition", "free_speech"])
def test_repetition_cues_get_audibly_slower(voice, sentence: str, slow_start: bool) -> None:
    cues = [repetition_cue(sentence, level, slow_start=slow_start) for level in (0, 1, 2)]
    assert cues[1].message == "Écoutez encore, plus lentement."
    seconds = [_seconds(voice, cue) for cue in cues]
    # Before: in free speech, cue 1 ("plus lentement") had level 0's speed.
    assert seconds[1] >= AUDIBLY_LONGER * seconds[0], seconds
    if len(sentence.split()) > 1:  # one word has no pauses to add
        assert seconds[2] >= AUDIBLY_LONGER * seconds[1], seconds


def test_completion_slower_cue_is_slower(voice) -> None:
    item = CompletionItem("pomme", "C'est une …", "pomme")
    assert _seconds(voice, completion_cue(item, 1)) >= AUDIBLY_LONGER * _seconds(
        voice, completion_cue(item, 0)
    )
