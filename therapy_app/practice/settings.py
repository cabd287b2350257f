"""What a practice session may be tuned with: recording limits and where the lists start."""

from __future__ import annotations

from dataclasses import dataclass

from therapy_app.vad.silero import DEFAULT_TRAILING_SILENCE_MS


@dataclass(frozen=True)
class PracticeSettings:
    """Recording limits and where the lists start.

    Attributes:
        max_seconds: longest recording (one recogniser window).
        no_speech_timeout_s: stop listening when nothing is said for this long;
            generous because starting to speak is hard in Broca's aphasia.
        trailing_silence_ms: silence that ends an utterance (the patient's own
            ``Patient.pause_tolerance_ms`` in the app); Space or the button ends it sooner.
        repetition_level: first repetition level (1..3), when there is nothing to resume.
        completion_level: completion level, None for all items.
        resume: repetition starts after the last sentence finished in the
            patient's latest repetition session (its list, its position).
        max_items: the exercise ends after this many items (the therapist's
            program); None: the list goes round until the patient leaves.
        rate_factor: the voice's pace relative to the cues' usual rates
            (the therapist's program; 1.0 unchanged, 0.8 slower).
        completion_category: completion items of this theme only ("" all).
        custom_items: the patient's own words and sentences, practised first
            (repetition; completion for sentences of three words or more;
            naming for the words that have a picture).
        custom_pictures: (word, naming picture id) for the patient's words the
            therapist gave a picture of the set.
        naming_level: naming pictures up to this word-frequency band
            (1 very frequent .. 3 rarer; None: all).
        naming_category: naming pictures of this category only ("" all).
    """

    max_seconds: float = 30.0
    no_speech_timeout_s: float = 20.0
    trailing_silence_ms: int = DEFAULT_TRAILING_SILENCE_MS
    repetition_level: int = 1
    completion_level: int | None = None
    resume: bool = True
    max_items: int | None = None
    rate_factor: float = 1.0
    completion_category: str = ""
    custom_items: tuple[str, ...] = ()
    custom_pictures: tuple[tuple[str, str], ...] = ()
    naming_level: int | None = None
    naming_category: str = ""
