"""Silero VAD: build step, segments on committed speech, trim, pauses, streaming end of speech,
and the recorder's automatic stop fed from a file."""

from __future__ import annotations

import json
import shutil
import threading
import time

import numpy as np
import pytest

from benchmarks.vad_noises import judge_sound, synthetic_noises
from models.vad import build as vad_build
from therapy_app.audio.clip import AudioClip
from therapy_app.audio.recorder import FileAudioSource, Recorder, StopReason
from therapy_app.audio.wavio import read_wav
from therapy_app.errors import ModelInvalidError, ModelMissingError
from therapy_app.model_store import SIDECAR, find_model
from therapy_app.vad import VoiceActivityDetector
from therapy_app.vad.silero import WINDOW, segments_from_probabilities


@pytest.fixture(scope="session")
def vad() -> VoiceActivityDetector:
    try:
        return VoiceActivityDetector.load()
    except ModelMissingError:
        pytest.skip("Silero VAD not built: run python -m models.vad.build")


@pytest.fixture(scope="session")
def sentence(speech_dir) -> AudioClip:
    return read_wav(speech_dir / "sentence_01.wav")


def noise(seconds: float, dbfs: float = -30.0, seed: int = 0) -> AudioClip:
    rng = np.random.default_rng(seed)
    samples = rng.standard_normal(int(seconds * 16000)) * 10 ** (dbfs / 20)
    return AudioClip(samples.astype(np.float32))


# ----- build ----------------------------------------------------------------------------


@pytest.fixture
def cached_wheel(tmp_path, monkeypatch):
    """A private copy of the cached wheel (the build never hits the network here)."""
    source = vad_build.cache_dir() / vad_build.WHEEL
    if not source.is_file():
        pytest.skip("silero-vad wheel not cached: run python -m models.vad.build once")
    cache = tmp_path / "cache"
    cache.mkdir()
    shutil.copy(source, cache / vad_build.WHEEL)
    monkeypatch.setattr(vad_build, "cache_dir", lambda: cache)
    return cache / vad_build.WHEEL


def test_build_writes_verified_folder_and_is_idempotent(tmp_path, cached_wheel):
    out = tmp_path / "models"
    folder = vad_build.build(out)
    meta = json.loads((folder / SIDECAR).read_text())
    assert meta["name"] == "silero-vad" and meta["licence"] == "MIT"
    assert meta["source"]["packages"][0]["sha256"] == vad_build.WHEEL_SHA256
    assert meta["files"]["model"]["sha256"] == vad_build.ONNX_SHA256
    assert meta["vad"]["sample_rate"] == 16000 and meta["vad"]["window_samples"] == 512
    assert "MIT License" in (folder / "LICENSE").read_text()
    stamp = (folder / SIDECAR).stat().st_mtime_ns
    assert vad_build.build(out) == folder
    assert (folder / SIDECAR).stat().st_mtime_ns == stamp  # nothing rewritten
    (folder / "silero_vad.onnx").write_bytes(b"tampered")
    vad_build.build(out)
    assert (folder / SIDECAR).stat().st_mtime_ns != stamp  # damaged build is redone
    assert VoiceActivityDetector.load(folder) is not None
    assert sorted(p.name for p in out.iterdir()) == ["silero-vad"]  # no staging left


def test_build_refuses_a_wheel_with_another_hash(tmp_path, cached_wheel, monkeypatch):
    monkeypatch.setattr(vad_build, "WHEEL_SHA256", "0" * 64)
    with pytest.raises(RuntimeError, match="sha256"):
        vad_build.build(tmp_path / "models")
    assert not (tmp_path / "models" / "silero-vad").exists()


def test_load_errors(tmp_path, vad):
    with pytest.raises(ModelMissingError) as err:
        VoiceActivityDetector.load(tmp_path)
    assert "détecteur de parole" in err.value.user_message
    broken = tmp_path / "broken"
    shutil.copytree(find_model("silero-vad"), broken)
    (broken / "silero_vad.onnx").write_bytes(b"not a model")
    with pytest.raises(ModelInvalidError):
        VoiceActivityDetector.load(broken)


# ----- offline analysis -----------------------------------------------------------------


def test_speech_found_where_it_is_in_every_committed_file(vad, speech_dir, speech_transcripts):
    for name, info in speech_transcripts.items():
        segments = vad.speech_segments(read_wav(speech_dir / name), pad_ms=0)
        assert segments, name
        # Weak onsets ("femme": a soft fricative) are detected up to ~0.25 s late.
        assert -0.1 < segments[0].start_s - info["speech_start_s"] < 0.3, name
        assert segments[-1].end_s == pytest.approx(info["speech_end_s"], abs=0.2), name


@pytest.mark.parametrize(
    "clip",
    [AudioClip.silence(3.0), noise(3.0, -30.0), noise(3.0, -12.0, seed=2)],
    ids=["silence", "noise-30dB", "noise-12dB"],
)
def test_nothing_found_in_silence_and_noise(vad, clip):
    assert vad.speech_segments(clip) == []
    assert vad.trim(clip) is clip
    assert vad.pause_ratio(clip) == 0.0


def test_probabilities_one_per_window(vad, sentence):
    probs = vad.speech_probabilities(sentence)
    assert len(probs) == -(-len(sentence.samples) // WINDOW)
    assert probs.max() > 0.9 and probs[:3].max() < 0.2  # 0.2 s of leading silence


def test_other_rates_are_resampled_first(vad, sentence):
    from therapy_app.audio.resample import resample

    at_48k = AudioClip(resample(sentence.samples, 16000, 48000), 48000)
    a, b = vad.speech_segments(sentence), vad.speech_segments(at_48k)
    assert len(a) == len(b)
    assert a[0].start_s == pytest.approx(b[0].start_s, abs=0.05)


def test_trim_keeps_the_speech_and_drops_the_rest(vad, sentence):
    padded = AudioClip.concatenate([AudioClip.silence(2.0), sentence, noise(2.0, -50.0)])
    trimmed = vad.trim(padded, pad_ms=200)
    assert trimmed.duration < padded.duration - 3.0
    assert trimmed.duration > sentence.duration - 0.5
    # All of the speech energy survives.
    assert np.sum(trimmed.samples**2) > 0.99 * np.sum(sentence.samples**2)


def test_pause_ratio_measures_long_pauses(vad, speech_dir):
    word_a = vad.trim(read_wav(speech_dir / "word_01.wav"), pad_ms=0)
    word_b = vad.trim(read_wav(speech_dir / "word_02.wav"), pad_ms=0)
    halting = AudioClip.concatenate([word_a, AudioClip.silence(1.5), word_b])
    ratio = vad.pause_ratio(halting)
    expected = 1.5 / halting.duration
    assert ratio == pytest.approx(expected, abs=0.12)
    assert vad.pause_ratio(word_a) == 0.0


def test_segment_rules_on_synthetic_probabilities():
    p = np.array([0.0] * 5 + [0.9] * 20 + [0.0] * 5 + [0.9] * 20 + [0.0] * 30)
    # A 160 ms gap does not split at min_silence 300 ms, does at 100 ms.
    assert len(segments_from_probabilities(p, min_silence_ms=300)) == 1
    assert len(segments_from_probabilities(p, min_silence_ms=100)) == 2
    # A short stretch (96 ms) beside longer speech is dropped...
    burst = [0.9] * 3 + [0.0] * 30
    word = [0.9] * 20 + [0.0] * 30
    beside = np.array([0.0] * 5 + burst + word)
    assert segments_from_probabilities(beside, min_speech_ms=250) == [(38 * WINDOW, 58 * WINDOW)]
    # ... but said alone it is the answer (Armelle's « six »: 224 ms, « onze »: 64 ms).
    alone = np.array([0.0] * 5 + burst)
    assert segments_from_probabilities(alone, min_speech_ms=250) == [(5 * WINDOW, 8 * WINDOW)]
    # One window (32 ms) is never speech.
    assert segments_from_probabilities(np.array([0.0] * 5 + [0.9] + [0.0] * 30)) == []


@pytest.mark.parametrize("word", ["six", "onze"])
def test_a_short_word_said_alone_is_heard_and_starts_the_recording(vad, speech_dir, word):
    # Her « six » is 224 ms above the threshold, her « onze » 64 ms: under the
    # 250 ms that segments speech, they were "nothing heard", live and as files.
    spoken = read_wav(speech_dir.parent / "human" / f"{word}.wav")
    clip = AudioClip.concatenate([AudioClip.silence(0.5), spoken, AudioClip.silence(1.0)])
    (segment,) = vad.speech_segments(clip, pad_ms=0)
    assert 0.5 < segment.start_s < segment.end_s < 0.5 + spoken.duration
    detector = vad.end_of_speech_detector(trailing_silence_ms=800)
    assert feed_in_chunks(detector, clip.samples, 1600) is not None
    assert detector.speech_started
    # Beside a longer word it is dropped, as a breath or a click would be.
    longer = read_wav(speech_dir.parent / "human" / "jeudi.wav")
    both = AudioClip.concatenate([clip, longer, AudioClip.silence(1.0)])
    (kept,) = vad.speech_segments(both, pad_ms=0)
    assert kept.start_s > clip.duration


def test_noises_never_start_a_recording_however_short_a_word_may_be(vad):
    # What keeps clicks out now that 60 ms alone is a word: Silero's probability.
    for name, samples in synthetic_noises().items():
        found = judge_sound(vad, samples)
        assert not found["heard_as_speech"] and not found["starts_recording"], (name, found)


# ----- streaming end of speech ----------------------------------------------------------


def feed_in_chunks(detector, samples: np.ndarray, chunk: int) -> float | None:
    """Feed until end of speech; returns the time it fired (seconds of audio fed)."""
    for start in range(0, len(samples), chunk):
        if detector.feed(samples[start : start + chunk]):
            return min(len(samples), start + chunk) / 16000
    return None


@pytest.mark.parametrize("chunk", [512, 300, 1600])
def test_end_of_speech_fires_after_the_trailing_silence(vad, sentence, chunk):
    trailing_ms = 1500
    detector = vad.end_of_speech_detector(trailing_silence_ms=trailing_ms)
    speech = vad.speech_segments(sentence, pad_ms=0)
    stream = AudioClip.concatenate([sentence, AudioClip.silence(5.0)]).samples
    fired = feed_in_chunks(detector, stream, chunk)
    assert detector.speech_started
    assert detector.speech_start_s == pytest.approx(speech[0].start_s, abs=0.15)
    # Fires once the silence after the last speech reaches the configured length.
    assert fired is not None
    assert fired - speech[-1].end_s == pytest.approx(trailing_ms / 1000, abs=0.25)


def test_pauses_shorter_than_the_trailing_silence_do_not_end_the_utterance(vad, speech_dir):
    word = read_wav(speech_dir / "word_03.wav")
    halting = AudioClip.concatenate([word, AudioClip.silence(1.2), word, AudioClip.silence(1.2)])
    detector = vad.end_of_speech_detector(trailing_silence_ms=1800)
    assert feed_in_chunks(detector, halting.samples, 512) is None
    assert detector.speech_started and not detector.end_of_speech
    assert feed_in_chunks(detector, AudioClip.silence(1.0).samples, 512) is not None


def test_end_of_speech_never_fires_without_speech(vad):
    detector = vad.end_of_speech_detector(trailing_silence_ms=500)
    assert feed_in_chunks(detector, noise(6.0, -30.0).samples, 512) is None
    assert not detector.speech_started
    detector.reset()
    assert detector.elapsed == 0.0


# ----- recorder auto stop through the file source --------------------------------------


def test_recorder_stops_at_end_of_speech(vad, sentence):
    detector = vad.end_of_speech_detector(trailing_silence_ms=1500)
    recorder = Recorder(FileAudioSource(sentence, trailing_silence_s=10.0))
    levels: list[float] = []
    clip = recorder.record_utterance(max_seconds=30, end_of_speech=detector, on_level=levels.append)
    assert recorder.stop_reason is StopReason.END_OF_SPEECH
    last_speech = vad.speech_segments(sentence, pad_ms=0)[-1].end_s
    assert clip.duration == pytest.approx(last_speech + 1.5, abs=0.3)
    assert np.array_equal(clip.samples[: len(sentence.samples)], sentence.samples)
    assert max(levels) == pytest.approx(sentence.peak, abs=1e-6)
    assert recorder.elapsed == pytest.approx(clip.duration)


def test_recorder_gives_up_when_nobody_speaks(vad):
    recorder = Recorder(FileAudioSource(AudioClip.silence(30.0)))
    clip = recorder.record_utterance(
        end_of_speech=vad.end_of_speech_detector(), no_speech_timeout_s=3.0
    )
    assert recorder.stop_reason is StopReason.NO_SPEECH
    assert clip.duration == pytest.approx(3.0, abs=0.05)


def test_recorder_stops_at_max_duration(vad, sentence):
    recorder = Recorder(FileAudioSource(sentence, trailing_silence_s=5.0))
    clip = recorder.record_utterance(max_seconds=2.0, end_of_speech=vad.end_of_speech_detector())
    assert recorder.stop_reason is StopReason.MAX_DURATION
    assert clip.duration == pytest.approx(2.0, abs=1e-6)


def test_recorder_without_detector_records_the_whole_source(sentence):
    recorder = Recorder(FileAudioSource(sentence))
    clip = recorder.record_utterance()
    assert recorder.stop_reason is StopReason.END_OF_INPUT
    assert np.array_equal(clip.samples, sentence.samples)


def test_recorder_resamples_a_48k_source(sentence):
    from therapy_app.audio.resample import resample

    source = FileAudioSource(AudioClip(resample(sentence.samples, 16000, 48000), 48000))
    clip = Recorder(source).record_utterance()
    assert clip.sample_rate == 16000
    assert len(clip.samples) == len(sentence.samples)
    assert np.corrcoef(clip.samples, sentence.samples)[0, 1] > 0.999


def test_manual_stop_from_another_thread_in_realtime(sentence):
    recorder = Recorder(FileAudioSource(sentence, realtime=True, trailing_silence_s=10.0))
    result: dict[str, AudioClip] = {}
    worker = threading.Thread(target=lambda: result.update(clip=recorder.record_utterance()))
    worker.start()
    time.sleep(1.0)
    assert recorder.is_recording
    assert 0.5 < recorder.elapsed < 1.5
    live = recorder.snapshot()  # what a live waveform would draw
    assert 0.5 < live.duration < 1.6
    assert np.array_equal(live.samples, sentence.samples[: len(live.samples)])
    stopped = recorder.stop()
    worker.join(timeout=5)
    assert not worker.is_alive()
    assert recorder.stop_reason is StopReason.MANUAL
    assert result["clip"] is stopped
    assert 0.7 < stopped.duration < 1.6
    assert recorder.stop() is stopped  # idempotent
