"""Generic and personal recognisers compared on the patient's held-out recordings; the rules.

Each held-out recording is heard exactly as free transcription and practice
hear it (:func:`therapy_app.asr.utterance.hear`, the recogniser's default
options), once by each model, and judged through the practice's own rule
(:func:`therapy_app.practice.scoring.score_heard` on the item practice would
build for its text) against its own text and against another held-out text.

Three ways of judging are measured, because a personal model changes verdicts
twice: through the transcript the rule reads (when it is adopted) and through
the scores of the expected texts (only when ``scoring`` is on):

* ``generic``: generic hearing, generic scoring (no personal model);
* ``personal_hearing``: personal hearing, generic scoring (adopted, scoring off);
* ``personal_scoring``: personal hearing, personal scoring (adopted, scoring on).

**Adoption.** The personal model is adopted only when, on the held-out
recordings, its word error rate is at least :data:`MIN_RELATIVE_GAIN` lower
than the generic model's (relative) and it gets at least as many one-word
recordings exactly right. A tie, or a small gain, keeps the generic model: a
few held-out recordings cannot tell a small gain from chance.

**Scoring.** The personal model also scores expected texts only when, with
it, more held-out recordings are accepted for their own text than with
personal hearing and generic scoring, and no more recordings are accepted for
a text that was not said than with either other way: a personal model that
accepts more of everything would tell the patient a wrong word was right.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import astuple, dataclass
from typing import TYPE_CHECKING

from therapy_app.analysis.metrics import word_errors, words
from therapy_app.errors import AudioInputError
from therapy_app.voice.model import VoiceFigures, VoiceSample

if TYPE_CHECKING:
    from therapy_app.asr.recognizer import SpeechRecognizer
    from therapy_app.practice.items import ExerciseItem
    from therapy_app.vad.silero import VoiceActivityDetector

_LOGGER = logging.getLogger(__name__)

MIN_RELATIVE_GAIN = 0.10
"""The personal model must make at least 10 % fewer word errors than the generic one."""

GENERIC = "generic"
PERSONAL_HEARING = "personal_hearing"
PERSONAL_SCORING = "personal_scoring"
WAYS = (GENERIC, PERSONAL_HEARING, PERSONAL_SCORING)


def percent(value: float) -> str:
    """A share written the French way: ``0.125`` → ``"13 %"``."""
    return f"{value * 100:.0f} %"


@dataclass(frozen=True)
class Verdicts:
    """Verdicts of one way of judging on the held-out recordings.

    Attributes:
        true_accepts: recordings accepted for the text that was said.
        right_targets: recordings judged against the text that was said.
        false_accepts: recordings accepted for another held-out text.
        wrong_targets: recordings judged against another text.
    """

    true_accepts: int = 0
    right_targets: int = 0
    false_accepts: int = 0
    wrong_targets: int = 0

    @property
    def true_accept(self) -> float | None:
        """Share of right texts accepted (None when nothing was judged)."""
        return self.true_accepts / self.right_targets if self.right_targets else None

    @property
    def false_accept(self) -> float | None:
        """Share of wrong texts accepted (None when none could be tried)."""
        return self.false_accepts / self.wrong_targets if self.wrong_targets else None

    def add(self, right: bool, wrong: bool | None) -> Verdicts:
        """These counts with one more recording (``wrong`` None: no other text to try)."""
        return Verdicts(
            self.true_accepts + right,
            self.right_targets + 1,
            self.false_accepts + bool(wrong),
            self.wrong_targets + (wrong is not None),
        )


@dataclass(frozen=True)
class HeldOutItem:
    """One held-out recording as both models heard it.

    Attributes:
        text: what was said.
        generic: the generic model's transcript ("" when no speech was found).
        personal: the personal model's transcript.
    """

    text: str
    generic: str
    personal: str


@dataclass(frozen=True)
class Comparison:
    """Everything measured on the held-out recordings.

    Attributes:
        generic: the generic model's figures (verdicts: generic way).
        personal: the personal model's figures (verdicts: personal hearing,
            generic scoring; :func:`figures_in_use` picks the way adopted).
        verdicts: each way of judging (keys: :data:`WAYS`).
        items: each recording's transcripts.
        skipped: held-out recordings that could not be read.
    """

    generic: VoiceFigures
    personal: VoiceFigures
    verdicts: dict[str, Verdicts]
    items: tuple[HeldOutItem, ...]
    skipped: int = 0


def figures(
    pairs: Sequence[tuple[str, str]],
    true_accept: float | None = None,
    false_accept: float | None = None,
) -> VoiceFigures:
    """WER over all the (reference, transcript) pairs and exact one-word recognitions.

    The WER is pooled (all word errors over all reference words), so a long
    sentence weighs as its words do; ``words_right`` is the share of one-word
    references transcribed as exactly that word (0 when there is none).
    """
    errors = reference_words = one_word = one_word_right = 0
    for reference, heard in pairs:
        counted = word_errors(reference, heard)
        errors += counted.substitutions + counted.deletions + counted.insertions
        reference_words += counted.reference_words
        if counted.reference_words == 1:
            one_word += 1
            one_word_right += words(heard) == words(reference)
    return VoiceFigures(
        wer=errors / reference_words if reference_words else 0.0,
        words_right=one_word_right / one_word if one_word else 0.0,
        items=len(pairs),
        verdict_true_accept=true_accept,
        verdict_false_accept=false_accept,
    )


def adoption(generic: VoiceFigures, personal: VoiceFigures) -> tuple[bool, str]:
    """Whether to adopt the personal model, and why (French, for the therapist)."""
    versus = (
        f"{percent(personal.wer)} de mots mal reconnus contre {percent(generic.wer)} "
        "avec le modèle général"
    )
    if generic.wer == 0.0:
        return False, (
            "Le modèle général reconnaît déjà sans erreur les enregistrements de contrôle : "
            "il est gardé."
        )
    if personal.wer > generic.wer * (1.0 - MIN_RELATIVE_GAIN):
        return False, (
            "Le modèle personnel n'est pas meilleur sur les enregistrements de contrôle "
            f"({versus}) : le modèle général est gardé."
        )
    if personal.words_right < generic.words_right:
        return False, (
            "Le modèle personnel reconnaît moins de mots isolés sur les enregistrements de "
            f"contrôle ({percent(personal.words_right)} contre {percent(generic.words_right)} "
            "avec le modèle général) : le modèle général est gardé."
        )
    return True, f"Le modèle personnel reconnaît mieux ce patient ({versus})."


def scoring_choice(verdicts: dict[str, Verdicts]) -> tuple[bool, str]:
    """Whether the adopted personal model also scores expected texts, and why (French)."""
    with_it, without, generic = (verdicts[w] for w in (PERSONAL_SCORING, PERSONAL_HEARING, GENERIC))
    ta, ta_without = with_it.true_accept, without.true_accept
    fa = with_it.false_accept
    if ta is None or ta_without is None or fa is None:
        return False, (
            "Les réponses restent jugées par le modèle général : les enregistrements de "
            "contrôle ne suffisent pas à vérifier le modèle personnel sur des réponses fausses."
        )
    fewer_false = all(
        other.false_accept is None or fa <= other.false_accept for other in (without, generic)
    )
    if ta > ta_without and fewer_false:
        return True, (
            "Il juge aussi les réponses : il en accepte plus de justes "
            f"({percent(ta)} contre {percent(ta_without)}) sans en accepter plus à tort."
        )
    return False, (
        "Les réponses restent jugées par le modèle général : le modèle personnel ne les "
        f"juge pas mieux ({percent(ta)} de réponses justes acceptées contre {percent(ta_without)})."
    )


def figures_in_use(comparison: Comparison, scoring: bool) -> VoiceFigures:
    """The personal figures with the verdicts of the way of judging that will be used."""
    way = PERSONAL_SCORING if scoring else PERSONAL_HEARING
    p = comparison.personal
    chosen = comparison.verdicts[way]
    return VoiceFigures(p.wer, p.words_right, p.items, chosen.true_accept, chosen.false_accept)


def _item(text: str) -> ExerciseItem:
    """The item practice would present for ``text``: a picture's name, else a repetition."""
    from therapy_app.exercises import default_content
    from therapy_app.naming.bank import default_bank
    from therapy_app.practice import judging
    from therapy_app.practice.events import ExerciseKind

    bank = default_bank()
    kind = ExerciseKind.NAMING if bank.by_word(text) is not None else ExerciseKind.REPETITION
    return judging.item_for(kind, text, default_content(), bank)[0]


def _other_text(texts: Sequence[str], index: int) -> str | None:
    """The next held-out text that is not the same words (the wrong target to try)."""
    own = words(texts[index])
    for step in range(1, len(texts)):
        other = texts[(index + step) % len(texts)]
        if words(other) != own:
            return other
    return None


def compare(
    held_out: Sequence[VoiceSample],
    generic: SpeechRecognizer,
    personal: SpeechRecognizer,
    vad: VoiceActivityDetector,
    on_item: Callable[[int, int], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> Comparison | None:
    """Hear and judge every held-out recording with both recognisers.

    Args:
        held_out: recordings never used for training.
        generic: the recogniser without a personal model.
        personal: the recogniser with the personal adapter, scoring with it too.
        vad: the voice activity detector.
        on_item: called with (done, total) after each recording.
        should_stop: checked between recordings; True returns None.

    Returns:
        The comparison, or None when stopped.
    """
    from therapy_app.asr.utterance import hear
    from therapy_app.audio.wavio import read_wav
    from therapy_app.practice.scoring import score_heard

    texts = [s.text for s in held_out]
    ways = dict.fromkeys(WAYS, Verdicts())
    items: list[HeldOutItem] = []
    skipped = 0
    for index, sample in enumerate(held_out):
        if should_stop is not None and should_stop():
            return None
        try:
            clip = read_wav(sample.audio)
        except AudioInputError as exc:
            _LOGGER.warning("held-out recording %s skipped: %s", sample.audio, exc.detail)
            skipped += 1
            if on_item is not None:
                on_item(index + 1, len(held_out))
            continue
        item = _item(sample.text)
        other = _other_text(texts, index)
        wrong = _item(other) if other is not None else None
        heard_g = hear(generic, vad, clip)
        heard_p = hear(personal, vad, clip)
        transcripts = HeldOutItem(
            sample.text,
            heard_g.transcript.text if heard_g else "",
            heard_p.transcript.text if heard_p else "",
        )
        _LOGGER.debug("held out %r: generic %r, personal %r", *astuple(transcripts))
        items.append(transcripts)
        for way, recognizer, heard in (
            (GENERIC, generic, heard_g),
            (PERSONAL_HEARING, generic, heard_p),
            (PERSONAL_SCORING, personal, heard_p),
        ):
            if heard is None:  # nothing heard: never accepted
                ways[way] = ways[way].add(False, None if wrong is None else False)
                continue
            right = score_heard(recognizer, item, heard).success
            accepted_wrong = (
                None if wrong is None else score_heard(recognizer, wrong, heard).success
            )
            ways[way] = ways[way].add(right, accepted_wrong)
        if on_item is not None:
            on_item(index + 1, len(held_out))
    return Comparison(
        generic=figures(
            [(i.text, i.generic) for i in items],
            ways[GENERIC].true_accept,
            ways[GENERIC].false_accept,
        ),
        personal=figures(
            [(i.text, i.personal) for i in items],
            ways[PERSONAL_HEARING].true_accept,
            ways[PERSONAL_HEARING].false_accept,
        ),
        verdicts=ways,
        items=tuple(items),
        skipped=skipped,
    )
