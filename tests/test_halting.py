"""Simulated halting speech and the app's hearing path (VAD, shortened pauses, ASR)."""

from __future__ import annotations

import numpy as np
import pytest
from asr_fixtures import require_model

from models.halting.asr_slice import word_error_rate
from models.halting.sets import build_set, load_items, voice_rotation
from models.halting.speak import PAUSE_BINS, HaltingStyle, speak_halting, word_groups
from models.halting.voices import VoiceSpec, all_voices
from therapy_app.asr.utterance import PAUSE_GAP_S, hear, shorten_pauses
from therapy_app.audio.clip import AudioClip
from therapy_app.vad.silero import SpeechSegment

QUIET = HaltingStyle(hesitation_p=0.0, restart_p=0.0, reverb_p=0.0, noise_p=0.0, tape=(1, 1))
PICO = VoiceSpec("pico", "fr-FR")


def _longest_silence_s(clip: AudioClip) -> float:
    quiet = np.abs(clip.samples) < 1e-4
    best = run = 0
    for q in quiet:
        run = run + 1 if q else 0
        best = max(best, run)
    return best / clip.sample_rate


def test_same_item_same_audio() -> None:
    a = speak_halting("x1", "moi aller boulangerie hier", PICO, "1.0-1.7", seed="t")
    b = speak_halting("x1", "moi aller boulangerie hier", PICO, "1.0-1.7", seed="t")
    assert np.array_equal(a.clip.samples, b.clip.samples)
    assert a.conditions == b.conditions


def test_pauses_follow_the_bin() -> None:
    long = speak_halting("x2", "moi vouloir café demain", PICO, "1.7-2.5", QUIET)
    short = speak_halting("x2", "moi vouloir café demain", PICO, "0.3-0.6", QUIET)
    assert 1.7 <= _longest_silence_s(long.clip) <= 2.6
    assert _longest_silence_s(short.clip) < 0.9
    assert long.clip.duration > short.clip.duration + 1.5


def test_restart_and_hesitation_are_in_what_was_said() -> None:
    style = HaltingStyle(hesitation_p=1.0, restart_p=1.0, pair_p=0.0)
    utt = speak_halting("x3", "chien manger viande", PICO, "0.6-1.0", style)
    words = utt.spoken.split()
    assert words[0] == words[1] == "chien"
    assert "euh" in words
    assert utt.text == "chien manger viande"


def test_word_groups_keep_every_word_in_order() -> None:
    rng = np.random.default_rng(0)
    words = "un deux trois quatre cinq six".split()
    groups = word_groups(words, rng, 0.5)
    assert [w for g in groups for w in g] == words
    assert all(1 <= len(g) <= 2 for g in groups)


def test_every_espeak_voice_speaks() -> None:
    families = {v.family for v in all_voices()}
    assert families == {"pico", "espeak-fr", "espeak-fr-be", "espeak-fr-ch"}
    voice = VoiceSpec("espeak", "fr-be", "f2")
    utt = speak_halting("x4", "bonjour docteur", voice, "0.3-0.6", QUIET)
    assert utt.clip.duration > 0.5 and utt.clip.peak > 0.3


def test_sets_are_disjoint_and_cover_voices_and_bins() -> None:
    dev = {i.uid for i in load_items("dev")}
    blind = {i.uid for i in load_items("blind")}
    assert dev and blind and not dev & blind
    rotation = voice_rotation(40, "dev")
    assert sum(v.engine == "pico" for v in rotation) == 10
    assert len({v.family for v in rotation}) == 4
    small = build_set("dev", 8, "pico")
    assert {u.pause_bin for _, u in small} == set(PAUSE_BINS)


def test_shorten_pauses_caps_silence() -> None:
    tone = np.sin(np.arange(8000) / 5.0).astype(np.float32) * 0.5
    clip = AudioClip(np.concatenate([tone, np.zeros(40000, np.float32), tone]))
    segments = [SpeechSegment(0.0, 0.5), SpeechSegment(3.0, 3.5)]
    short = shorten_pauses(clip, segments, 0.3)
    assert short.duration == pytest.approx(1.3, abs=0.01)
    assert np.array_equal(short.samples[:8000], tone)
    # A pause already shorter than the cap is left as it was.
    kept = shorten_pauses(clip, [SpeechSegment(0.0, 0.5), SpeechSegment(0.6, 1.0)], 0.3)
    assert kept.duration == pytest.approx(1.0, abs=0.01)
    assert shorten_pauses(clip, [], 0.3) is clip


def test_word_error_rate() -> None:
    assert word_error_rate("moi aller maison", "moi aller maison") == 0.0
    assert word_error_rate("moi euh aller maison", "Moi, aller à maison.") == pytest.approx(1 / 3)
    assert word_error_rate("a b", "") == 1.0


@pytest.mark.slow
def test_hear_shortens_long_pauses_and_recognises() -> None:
    require_model()
    from therapy_app.asr.recognizer import SpeechRecognizer
    from therapy_app.vad.silero import VoiceActivityDetector

    utt = speak_halting("x5", "je voudrais un café", PICO, "1.7-2.5", QUIET)
    heard = hear(SpeechRecognizer.load(), VoiceActivityDetector.load(), utt.clip)
    assert heard is not None
    # Three pauses of 1.7-2.5 s become PAUSE_GAP_S (+ padding) each.
    assert heard.asr_clip.duration < heard.clip.duration - 3 * (1.7 - PAUSE_GAP_S - 0.3)
    assert heard.pause_ratio > 0.4
    assert word_error_rate(utt.spoken, heard.transcript.text) <= 0.5


def test_merge_slice_filters_and_repeats(tmp_path) -> None:  # noqa: ANN001
    import json

    from models.halting.merge_slice import main as merge

    base = tmp_path / "base"
    base.mkdir()
    for split in ("train", "valid", "test"):
        pair = {"src": f"moi {split}", "tgt": f"Je {split}."}
        (base / f"{split}.jsonl").write_text(json.dumps(pair) + "\n", encoding="utf-8")
    (base / "MANIFEST.json").write_text(json.dumps({"command": "gen"}), encoding="utf-8")
    slice_dir = tmp_path / "slice"
    slice_dir.mkdir()
    rows = [
        {"src": "moi aller maison", "tgt": "Je vais à la maison.", "wer": 0.0, "voice": "pico"},
        {"src": "merci à vous", "tgt": "Je vais à la maison.", "wer": 1.0, "voice": "pico"},
        {"src": "", "tgt": "Il pleut.", "wer": 0.0, "voice": "pico"},
    ]
    (slice_dir / "asr_slice.jsonl").write_text(
        "".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8"
    )
    out = tmp_path / "merged"
    assert merge(["--corpus", str(base), "--slice", str(slice_dir), "--out", str(out),
                  "--repeat", "3"]) == 0  # fmt: skip
    train = [json.loads(x) for x in (out / "train.jsonl").read_text().splitlines()]
    assert sum(r["src"] == "moi aller maison" for r in train) == 3
    assert not any(r["src"] in ("merci à vous", "") for r in train)
    assert (out / "valid.jsonl").read_text() == (base / "valid.jsonl").read_text()
    manifest = json.loads((out / "MANIFEST.json").read_text())
    assert manifest["asr_slice"]["kept"] == 1 and "merge_slice" in manifest["command"]


def test_slice_draw_leaves_evaluation_texts_out(tmp_path) -> None:  # noqa: ANN001
    import json

    from models.halting.asr_slice import draw_pairs

    rows = [
        {"src": "je suis content", "tgt": "Je suis content."},  # a correct item of the first set
        {"src": "moi aller boulangerie hier", "tgt": "Je vais à la boulangerie."},  # its source
        {"src": "moi repeindre grenier", "tgt": "Je repeins le grenier."},
    ]
    (tmp_path / "train.jsonl").write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8"
    )
    assert draw_pairs(tmp_path, 10) == [rows[2]]
