"""French TTS: Pico voice, rate and pauses, level without clipping, espeak-ng fallback."""

from __future__ import annotations

import logging
import shutil

import numpy as np
import pytest

from therapy_app.errors import SpeechSynthesisError
from therapy_app.tts import SpeechSynthesizer, SynthesisOptions
from therapy_app.tts import espeak as espeak_backend
from therapy_app.tts import pico as pico_backend
from therapy_app.tts.options import count_words, with_word_pauses
from therapy_app.tts.pico import clamp_breaks

SENTENCES = [
    "Je voudrais une baguette et deux croissants, s'il vous plaît.",
    "Hier, je suis allé au marché avec ma fille.",
    "Il fait beau aujourd'hui, nous pouvons sortir nous promener.",
    "Pouvez-vous m'aider à porter ces sacs jusqu'à la maison ?",
]
TELEGRAPHIC = "moi aller boulangerie hier"


@pytest.fixture(scope="module")
def pico() -> SpeechSynthesizer:
    return SpeechSynthesizer.load(prefer="pico")


@pytest.fixture(scope="module")
def espeak() -> SpeechSynthesizer:
    if shutil.which("espeak-ng") is None:
        pytest.skip("espeak-ng not installed (apt-get install espeak-ng)")
    return SpeechSynthesizer.load(prefer="espeak")


def speech_span(samples: np.ndarray) -> float:
    """Seconds from the first to the last audible sample."""
    loud = np.nonzero(np.abs(samples) > 0.02)[0]
    return (loud[-1] - loud[0]) / 16000


def measured_wpm(synth: SpeechSynthesizer, rate: float) -> float:
    options = SynthesisOptions(rate_wpm=rate)
    seconds = sum(speech_span(synth.synthesize(s, options).samples) for s in SENTENCES)
    return 60 * sum(count_words(s) for s in SENTENCES) / seconds


def test_pico_is_the_default_voice(pico):
    assert not pico.is_fallback
    assert "Pico" in pico.voice_name


@pytest.mark.parametrize("text", SENTENCES + [TELEGRAPHIC, "pomme"])
def test_output_is_16k_at_target_peak_and_never_clipped(pico, text):
    clip = pico.synthesize(text)
    assert clip.sample_rate == 16000
    assert clip.samples.dtype == np.float32
    assert clip.peak == pytest.approx(10 ** (-1 / 20), abs=1e-4)  # -1 dBFS
    assert np.count_nonzero(np.abs(clip.samples) >= 0.999) == 0
    assert 0.3 < clip.duration < 8.0
    # Engine silence trimmed to a short margin at both ends.
    assert np.max(np.abs(clip.samples[:400])) < 0.05 and np.max(np.abs(clip.samples[-400:])) < 0.05


def test_volume_scales_the_peak(pico):
    clip = pico.synthesize("Bonjour.", SynthesisOptions(volume=0.5))
    assert clip.peak == pytest.approx(0.5 * 10 ** (-1 / 20), abs=1e-4)


def test_requested_rate_is_what_comes_out(pico):
    for rate in (100, 140, 200):
        assert measured_wpm(pico, rate) == pytest.approx(rate, rel=0.15)


def test_slower_rate_gives_longer_audio(pico):
    text = SENTENCES[0]
    durations = [
        pico.synthesize(text, SynthesisOptions(rate_wpm=r)).duration for r in (200, 140, 90)
    ]
    assert durations[0] < durations[1] < durations[2]
    assert durations[2] / durations[0] > 1.7


def test_pauses_between_words_add_duration(pico):
    plain = pico.synthesize(TELEGRAPHIC).duration
    paused = pico.synthesize(TELEGRAPHIC, SynthesisOptions(pause_between_words_ms=600)).duration
    # Three gaps of 600 ms each (Pico already puts a little silence there).
    assert paused - plain > 3 * 0.45


def test_break_tags_in_the_text_pass_through(pico):
    plain = pico.synthesize("voiture garage").duration
    tagged = pico.synthesize('voiture <break time="800ms"/> garage').duration
    assert tagged - plain > 0.6


def test_long_breaks_are_clamped_to_what_pico_honours(pico):
    one_second = pico.synthesize('voiture <break time="1000ms"/> garage').duration
    three_seconds = pico.synthesize('voiture <break time="3s"/> garage').duration
    assert three_seconds == pytest.approx(one_second, abs=0.05)
    assert clamp_breaks("<break time=\"1200ms\"/> <break time='2s'/>") == (
        "<break time=\"1000ms\"/> <break time='1000ms'/>"
    )


def test_word_pause_markup_keeps_tags_and_punctuation():
    assert with_word_pauses("moi aller", 0) == "moi aller"
    out = with_word_pauses('moi <break time="100ms"/> aller  maison ?', 300)
    assert out == ('moi <break time="100ms"/> aller <break time="300ms"/> maison ?')
    assert count_words("aujourd'hui, s'il <break time=\"1s\"/> vous plaît") == 4


@pytest.mark.parametrize("text", ["", "   \n\t", '<break time="500ms"/>', "…!?"])
def test_nothing_to_say_is_a_french_error(pico, text):
    with pytest.raises(SpeechSynthesisError) as err:
        pico.synthesize(text)
    assert err.value.user_message == "Il n'y a rien à lire."
    assert err.value.hint


@pytest.mark.parametrize(
    "kwargs",
    [
        {"rate_wpm": 10},
        {"rate_wpm": 1000},
        {"pause_between_words_ms": -1},
        {"pause_between_words_ms": 5000},
        {"volume": 1.5},
        {"target_peak_dbfs": 3.0},
    ],
)
def test_invalid_options_are_refused(kwargs):
    with pytest.raises(ValueError):
        SynthesisOptions(**kwargs)


def test_sentences_are_streamed_one_clip_each(pico):
    clips = list(pico.synthesize_sentences("Bonjour. Comment allez-vous ? Très bien !"))
    assert len(clips) == 3
    assert all(c.sample_rate == 16000 for c in clips)


def test_synthesis_is_fast_once_loaded(pico):
    import time

    pico.synthesize(SENTENCES[0])
    start = time.perf_counter()
    for text in SENTENCES:
        pico.synthesize(text)
    assert (time.perf_counter() - start) / len(SENTENCES) < 0.5  # measured ~0.03 s


# ----- fallback ---------------------------------------------------------------------------


def test_forced_espeak_fallback(espeak):
    assert espeak.is_fallback
    assert "eSpeak" in espeak.voice_name
    clip = espeak.synthesize(SENTENCES[1])
    assert clip.sample_rate == 16000  # espeak-ng writes 22.05 kHz: resampled
    assert clip.peak == pytest.approx(10 ** (-1 / 20), abs=1e-4)
    assert np.count_nonzero(np.abs(clip.samples) >= 0.999) == 0
    slow = espeak.synthesize(SENTENCES[1], SynthesisOptions(rate_wpm=80)).duration
    fast = espeak.synthesize(SENTENCES[1], SynthesisOptions(rate_wpm=200)).duration
    assert slow > 1.5 * fast
    paused = espeak.synthesize(TELEGRAPHIC, SynthesisOptions(pause_between_words_ms=500))
    assert paused.duration - espeak.synthesize(TELEGRAPHIC).duration > 3 * 0.35


def test_fallback_is_used_and_logged_when_pico_is_missing(monkeypatch, caplog):
    if shutil.which("espeak-ng") is None:
        pytest.skip("espeak-ng not installed")
    # Simulate the wheel not being installed: the import itself fails.
    monkeypatch.setitem(__import__("sys").modules, "py_nanotts", None)
    with caplog.at_level(logging.WARNING, logger="therapy_app.tts.synthesizer"):
        synth = SpeechSynthesizer.load()
    assert synth.is_fallback
    assert "fallback" in caplog.text and "py-nanotts" in caplog.text
    assert synth.synthesize("Bonjour.").sample_rate == 16000


def test_no_voice_at_all_is_a_french_error(monkeypatch):
    monkeypatch.setitem(__import__("sys").modules, "py_nanotts", None)
    monkeypatch.setattr(espeak_backend.shutil, "which", lambda name: None)
    with pytest.raises(SpeechSynthesisError) as err:
        SpeechSynthesizer.load()
    assert err.value.user_message == "Aucune voix française n'est disponible."
    assert "espeak-ng" in err.value.hint


def test_engine_failure_is_a_french_error(pico, monkeypatch):
    class Broken:
        def speak(self, *args, **kwargs):
            raise RuntimeError("pico_initialize failed")

    voice = pico_backend.PicoVoice(Broken())
    with pytest.raises(SpeechSynthesisError) as err:
        SpeechSynthesizer(voice).synthesize("Bonjour.")
    assert "pico_initialize" in err.value.detail
    assert err.value.user_message.startswith("La voix")
