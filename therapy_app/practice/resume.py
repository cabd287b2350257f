"""Where a repetition exercise picks up: after the last sentence the patient worked on."""

from __future__ import annotations

import logging
from dataclasses import dataclass

from therapy_app.exercises import ExerciseContent
from therapy_app.practice import cues, items
from therapy_app.practice.events import ExerciseKind
from therapy_app.storage import SessionRepository

_LOGGER = logging.getLogger(__name__)


@dataclass(frozen=True)
class ResumePoint:
    """The list and the item to present first.

    Attributes:
        level: repetition list (1..3).
        index: position in that list (may equal its length: the list is done).
    """

    level: int
    index: int


def repetition_resume_point(
    repository: SessionRepository, patient_id: int, content: ExerciseContent
) -> ResumePoint | None:
    """The sentence after the last one finished in the patient's latest repetition session.

    A sentence left unfinished (missed, cues still to give) is presented
    again. Only repetition sessions count: free speech also stores its
    repetition tries, of sentences that are not in the lists.

    Returns:
        None when the patient has not practised repetition yet, or when the
        last sentence is no longer in any list.
    """
    sessions = [
        s
        for s in repository.sessions.all(patient_id)
        if getattr(s.exercise_kind, "value", s.exercise_kind) == ExerciseKind.REPETITION.value
    ]
    for session in reversed(sessions):  # newest first
        attempts = repository.attempts.all(session_id=session.id)
        if not attempts:
            continue  # an empty sitting (opened and left): look further back
        last = attempts[-1]
        finished = bool(last.success) or (last.record.cue_level or 0) >= cues.MAX_CUE_LEVEL
        target = last.record.target_text or ""
        for level in content.levels:
            position = items.ItemList()
            position.replace(items.repetition_items(content, level.level))
            index = position.index_of(target)
            if index is not None:
                return ResumePoint(level.level, index + 1 if finished else index)
        _LOGGER.info("last repetition sentence %r is in no list: starting over", target)
        return None
    return None
