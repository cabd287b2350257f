"""Voice-adaptation test helpers: whether the trainer can run, a trainer's decision."""

from __future__ import annotations

from therapy_app import voice_pack
from therapy_app.voice.model import VoiceDecision, VoiceFigures


def trainer_available() -> bool:
    """True when the voice pack's trainer (torch and whisper-base-train) is installed."""
    try:
        voice_pack.find_trainer()
    except voice_pack.VoicePackMissing:
        return False
    return True


def voice_decision(
    adapter_sha256: str | None, *, adopted: bool = True, scoring: bool = False
) -> VoiceDecision:
    """A decision as the trainer writes it, on 48 recordings (12 held out) in 14.5 min.

    Words misheard: 42 % by the generic model, 18 % by the personal one.
    """
    return VoiceDecision(
        adopted=adopted,
        reason="Moins de mots mal reconnus sur les enregistrements de contrôle.",
        generic=VoiceFigures(wer=0.42, words_right=0.5, items=12, verdict_true_accept=0.6),
        personal=VoiceFigures(wer=0.18, words_right=0.75, items=12, verdict_true_accept=0.9),
        train_items=48,
        held_out_items=12,
        minutes=14.5,
        created_at="2025-03-14T09:30:00+00:00",
        scoring=scoring,
        adapter_sha256=adapter_sha256,
    )
