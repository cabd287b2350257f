"""The personal-voice types shared by data collection, adaptation, the CLI and the GUI."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

# Where a training recording comes from. Only these sources are ever taught:
# a therapist's word (override, edited transcript, marked enrolment), an import the
# therapist asked for, or a try accepted with a clear margin.
Source = Literal["confirmed", "edited", "enrolment", "imported", "clear_margin"]

VOICE_FOLDER = "voice"


def patient_voice_dir(data_dir: Path, patient_id: int) -> Path:
    """The patient's personal-voice folder (private, backed up, deleted with the patient)."""
    return data_dir / VOICE_FOLDER / f"patient-{patient_id}"


@dataclass(frozen=True)
class VoiceSample:
    """One recording the personal model may learn from, with the words really said."""

    audio: Path
    text: str
    source: Source
    attempt_id: int | None = None


@dataclass(frozen=True)
class VoiceFigures:
    """Recognition of the patient's held-out recordings by one model."""

    wer: float
    words_right: float  # share of one-word recordings transcribed exactly
    items: int
    verdict_true_accept: float | None = None
    verdict_false_accept: float | None = None


@dataclass(frozen=True)
class VoiceDecision:
    """What an adaptation run concluded, as stored in ``decision.json``."""

    adopted: bool
    reason: str  # French, for the therapist
    generic: VoiceFigures
    personal: VoiceFigures | None
    train_items: int
    held_out_items: int
    minutes: float
    created_at: str
    scoring: bool = False  # the personal model also scores known targets
    adapter_sha256: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> VoiceDecision:
        personal = data.get("personal")
        return cls(
            **{
                **data,
                "generic": VoiceFigures(**data["generic"]),
                "personal": VoiceFigures(**personal) if personal else None,
            }
        )


@dataclass(frozen=True)
class PersonalModel:
    """The adopted adapter of one patient, as the recogniser loads it."""

    adapter: Path
    sha256: str
    scoring: bool


@dataclass(frozen=True)
class VoiceStatus:
    """What the therapist's « Voix » panel and ``voice status`` show."""

    patient_id: int
    usable: dict[str, int] = field(default_factory=dict)  # count per Source
    decision: VoiceDecision | None = None
    active: bool = False  # a personal model is in use
    running: bool = False  # an adaptation process is under way

    @property
    def usable_total(self) -> int:
        return sum(self.usable.values())


@dataclass(frozen=True)
class AdaptProgress:
    """One progress report of the training process (a JSON line on its stderr)."""

    stage: Literal["prepare", "train", "validate", "done", "cancelled", "failed"]
    done: int
    total: int
    eta_s: float | None = None
    message: str = ""
