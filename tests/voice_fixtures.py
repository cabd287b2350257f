"""Voice-adaptation test helpers: whether this machine has the trainer to run."""

from __future__ import annotations

from therapy_app import voice_pack


def trainer_available() -> bool:
    """True when the voice pack's trainer (torch and whisper-base-train) is installed."""
    try:
        voice_pack.find_trainer()
    except voice_pack.VoicePackMissing:
        return False
    return True
