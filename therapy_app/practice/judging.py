"""One recording judged exactly as practice judges it: the same item, the same rule.

Used by ``therapy-app judge`` (therapists and researchers checking a
recording) and by the benchmarks, so that a verdict measured outside the app
is the verdict a patient gets: the same hearing (:func:`therapy_app.asr.utterance.hear`,
what the practice's listening step runs), the same item (accepted forms,
distractors, margin) and :func:`therapy_app.practice.scoring.score_heard`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from therapy_app.errors import TherapyAppError
from therapy_app.exercises import ExerciseContent
from therapy_app.naming.bank import NamingBank
from therapy_app.naming.candidates import bare_answer
from therapy_app.practice import items
from therapy_app.practice.events import ExerciseKind
from therapy_app.practice.scoring import ScoreResult, score_heard

if TYPE_CHECKING:
    from therapy_app.asr.recognizer import SpeechRecognizer
    from therapy_app.audio.clip import AudioClip
    from therapy_app.vad.silero import VoiceActivityDetector

JUDGED_EXERCISES = (ExerciseKind.NAMING, ExerciseKind.REPETITION, ExerciseKind.COMPLETION)


@dataclass(frozen=True)
class Judgement:
    """A verdict and everything it was decided on.

    Attributes:
        item: the item as practice builds it.
        source: where the item came from ("banque d'images", "listes", "texte donné").
        heard: the recogniser's transcript ("" when no speech was found).
        result: the rule's numbers and verdict (None when no speech was found).
    """

    item: items.ExerciseItem
    source: str
    heard: str
    result: ScoreResult | None

    @property
    def success(self) -> bool:
        """The try counts as right (never when nothing was heard)."""
        return self.result is not None and self.result.success


def _same(a: str, b: str) -> bool:
    return a.strip().lower().rstrip(".!?…") == b.strip().lower().rstrip(".!?…")


def item_for(
    exercise: ExerciseKind, target: str, content: ExerciseContent, bank: NamingBank
) -> tuple[items.ExerciseItem, str]:
    """The item practice would present for ``target``, and where it came from.

    Naming takes the picture of the bank named ``target`` (with or without a
    determiner); repetition and completion take the item of the exercise
    lists whose target is ``target``, else build one from the given text with
    distractors chosen as practice chooses them.

    Raises:
        TherapyAppError: naming of a word the picture bank does not hold, or
            an exercise that has no known target (French message).
    """
    text = target.strip()
    if not text:
        raise TherapyAppError("La réponse attendue est vide.", "Indiquez-la avec --target.")
    if exercise is ExerciseKind.NAMING:
        picture = bank.by_word(text) or bank.by_word(bare_answer(text))
        if picture is None:
            raise TherapyAppError(
                f"« {text} » n'est pas une image de l'exercice de dénomination.",
                "Indiquez le mot d'une image de la banque (par exemple « chat »).",
            )
        return items.naming_item(picture, bank), "banque d'images"
    if exercise is ExerciseKind.REPETITION:
        for level in content.levels:
            for item in items.repetition_items(content, level.level):
                if _same(item.target, text):
                    return item, "listes"
        return items.repetition_item(text, content.all_sentences(), level=0), "texte donné"
    if exercise is ExerciseKind.COMPLETION:
        answers = [c.answer for c in content.completion]
        for source in content.completion:
            if any(_same(text, form) for form in (*source.accepted, source.completed())):
                return items.completion_item(source, answers), "listes"
        return items.completion_answer_item(text, answers), "texte donné"
    raise TherapyAppError(
        f"L'exercice « {exercise.value} » ne se juge pas sur une réponse attendue.",
        "Choisissez naming, repetition ou completion.",
    )


def judge(
    recognizer: SpeechRecognizer,
    vad: VoiceActivityDetector,
    clip: AudioClip,
    item: items.ExerciseItem,
    source: str = "",
    cue_level: int = 0,
) -> Judgement:
    """Hear ``clip`` as practice hears it and apply the rule to ``item``."""
    from therapy_app.asr.utterance import hear

    heard = hear(recognizer, vad, clip)
    if heard is None:
        return Judgement(item, source, "", None)
    result = score_heard(recognizer, item, heard, cue_level)
    return Judgement(item, source, heard.transcript.text, result)


def verdict_word(judgement: Judgement) -> str:
    """The last line of ``therapy-app judge``: « réussi » or « échoué »."""
    return "réussi" if judgement.success else "échoué"


def report_lines(judgement: Judgement) -> list[str]:
    """What ``therapy-app judge`` prints before the verdict (French, one fact a line)."""
    item, result = judgement.item, judgement.result
    lines = [
        f"cible : {item.target} ({judgement.source})",
        f"entendu : {judgement.heard or '(rien)'}",
    ]
    if result is None:
        return [*lines, "aucune parole détectée"]
    numbers = (
        ("taux d'erreur de mots", result.wer),
        ("marge sur les concurrents", result.margin),
        ("écart avec la transcription", result.transcript_gap),
        ("accord des phonèmes avec la cible", result.phone_fit),
        ("marge des phonèmes sur les concurrents", result.phone_margin),
        ("marge sur les variantes proches", result.near_margin),
        ("marge des phonèmes sur les variantes proches", result.phone_near_margin),
    )
    for label, value in numbers:
        lines.append(f"{label} : {'-' if value is None else f'{value:.2f}'}")
    lines.append(f"marge exigée : {item.rank_margin:.2f}")
    rules = (("les mots", result.by_words), ("le son", result.by_sound),
             ("les phonèmes", result.by_phones))  # fmt: skip
    reasons = [r for r, ok in rules if ok]
    lines.append(f"décidé par : {' et '.join(reasons) if reasons else '-'}")
    return lines


def as_json(judgement: Judgement) -> dict[str, object]:
    """Every number the rule used, and the item it was applied to (``judge --json``)."""
    from dataclasses import asdict

    item = judgement.item
    return {
        "exercise": item.kind.value,
        "target": item.target,
        "source": judgement.source,
        "accepted": list(item.accepted),
        "scored_forms": list(item.sound_forms or item.accepted),
        "distractors": list(item.distractors),
        "near_variants": list(item.near),
        "allow_within": item.allow_within,
        "rank_margin": item.rank_margin,
        "heard": judgement.heard,
        "result": None if judgement.result is None else asdict(judgement.result),
        "verdict": verdict_word(judgement),
    }
