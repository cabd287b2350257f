"""One utterance heard: speech found by the VAD, long pauses shortened, then recognised."""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np

from therapy_app.audio.clip import SAMPLE_RATE, AudioClip
from therapy_app.vad.silero import pause_ratio_of, speech_segments_in

if TYPE_CHECKING:
    from therapy_app.asr.recognizer import DecodeOptions, SpeechRecognizer, Transcript
    from therapy_app.vad.silero import SpeechSegment, VoiceActivityDetector

# Longest pause left between two stretches of speech for the recogniser. Whisper
# base hears a word-finding pause of 1-2.5 s as an utterance boundary and may
# guess fillers there; capped pauses cost nothing on a clean voice, helped on
# noisy ones and shorten the audio to decode (docs/decisions/0002-pauses-capped.md).
# The stored recording keeps the pauses as they were.
PAUSE_GAP_S = 0.3
SEGMENT_PAD_MS = 100
# Silence kept around the speech in the stored recording.
TRIM_PAD_MS = 300
# Shorter gaps are not pauses (the usual threshold in aphasia research, 200-250 ms).
PAUSE_MIN_MS = 250


@dataclass(frozen=True)
class HeardUtterance:
    """A recording after VAD and recognition.

    Attributes:
        clip: the recording trimmed to the speech, pauses intact (what is stored
            and what the therapist listens to).
        asr_clip: what the recogniser heard (pauses shortened); verdicts and the
            phrase match score this clip too.
        transcript: the recogniser's output.
        pause_ratio: share of pauses between the first and last speech.
        asr_seconds: time spent recognising.
    """

    clip: AudioClip
    asr_clip: AudioClip
    transcript: Transcript
    pause_ratio: float
    asr_seconds: float


def shorten_pauses(clip: AudioClip, segments: list[SpeechSegment], gap_s: float) -> AudioClip:
    """The clip from the first to the last segment with every pause capped at ``gap_s``.

    A longer pause keeps its first and last ``gap_s / 2`` (the room's own
    background, not digital silence, which Whisper treats differently); a
    shorter one is left as it was.
    """
    if not segments:
        return clip
    rate = clip.sample_rate
    half = int(round(gap_s * rate / 2))
    parts: list[np.ndarray] = []
    for i, seg in enumerate(segments):
        a, b = int(round(seg.start_s * rate)), int(round(seg.end_s * rate))
        parts.append(clip.samples[a:b])
        if i + 1 < len(segments):
            nxt = int(round(segments[i + 1].start_s * rate))
            if nxt - b <= 2 * half:
                parts.append(clip.samples[b:nxt])
            else:
                parts.append(clip.samples[b : b + half])
                parts.append(clip.samples[nxt - half : nxt])
    return AudioClip(np.concatenate(parts).astype(np.float32), rate)


def hear(
    recognizer: SpeechRecognizer,
    vad: VoiceActivityDetector,
    clip: AudioClip,
    options: DecodeOptions | None = None,
    gap_s: float = PAUSE_GAP_S,
) -> HeardUtterance | None:
    """Find the speech, shorten long pauses for the recogniser and transcribe.

    The VAD runs once over ``clip``: the same probabilities give the trimming
    and the pause ratio.

    Args:
        recognizer: the ASR.
        vad: the voice activity detector.
        clip: 16 kHz mono recording.
        options: decoding settings; the recogniser's defaults when None.
        gap_s: pause left between speech segments for the recogniser.

    Returns:
        None when the VAD finds no speech at all.

    Raises:
        AudioInputError: the clip cannot be recognised (too long, corrupt).
    """
    prepared = _prepare(vad, clip, gap_s)
    if prepared is None:
        return None
    start = time.perf_counter()
    transcript = recognizer.transcribe(prepared.asr_clip, options)
    return HeardUtterance(
        prepared.clip,
        prepared.asr_clip,
        transcript,
        prepared.pause_ratio,
        time.perf_counter() - start,
    )


def prepare(
    vad: VoiceActivityDetector, clip: AudioClip, gap_s: float = PAUSE_GAP_S
) -> tuple[AudioClip, AudioClip] | None:
    """The stored clip (trimmed, pauses intact) and the recogniser's clip (pauses capped).

    Shared by :func:`hear` and the recogniser's fine-tuning data, so that the
    model is trained on exactly what it hears in the app. None when the VAD
    finds no speech.
    """
    prepared = _prepare(vad, clip, gap_s)
    return None if prepared is None else (prepared.clip, prepared.asr_clip)


@dataclass(frozen=True)
class _Prepared:
    clip: AudioClip
    asr_clip: AudioClip
    pause_ratio: float


def _prepare(vad: VoiceActivityDetector, clip: AudioClip, gap_s: float) -> _Prepared | None:
    if clip.duration == 0:
        return None
    probs = vad.speech_probabilities(clip)  # the one pass of the model over the utterance
    length = int(round(clip.duration * SAMPLE_RATE))
    segments = speech_segments_in(probs, length, pad_ms=SEGMENT_PAD_MS)
    if not segments:
        return None
    extra = (TRIM_PAD_MS - SEGMENT_PAD_MS) / 1000.0
    first, last = segments[0].start_s - extra, segments[-1].end_s + extra
    trimmed = clip.slice(first, last)
    # Same edges as the stored clip: only the pauses inside differ.
    edged = [replace(segments[0], start_s=max(0.0, first))] + segments[1:]
    edged[-1] = replace(edged[-1], end_s=min(clip.duration, last))
    # Pauses between the first and the last speech: the same span as the trimmed clip.
    pauses = speech_segments_in(probs, length, min_silence_ms=PAUSE_MIN_MS, pad_ms=0)
    return _Prepared(trimmed, shorten_pauses(clip, edged, gap_s), pause_ratio_of(pauses))
