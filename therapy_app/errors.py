"""Error types that carry a plain-French message for the patient or therapist."""

from __future__ import annotations


class TherapyAppError(Exception):
    """Base class for expected failures: the environment or the input, not a bug.

    Args:
        user_message: French text, short and plain, safe to show in the UI.
        hint: French text saying what to do about it (may be empty).
        detail: English technical detail for logs and developers.
    """

    def __init__(self, user_message: str, hint: str = "", detail: str = "") -> None:
        super().__init__(detail or user_message)
        self.user_message = user_message
        self.hint = hint
        self.detail = detail

    def french(self) -> str:
        """The message and the hint, as one French text for the user."""
        return f"{self.user_message} {self.hint}".strip()


class ModelMissingError(TherapyAppError):
    """A model folder or file the app needs is not installed."""


class ModelInvalidError(TherapyAppError):
    """A model folder exists but its files or sidecar do not match."""


class AudioInputError(TherapyAppError):
    """An audio file or buffer cannot be used (empty, corrupt, wrong format, too long)."""


class AudioDeviceError(TherapyAppError):
    """No sound system, no microphone or no speaker is usable."""


class SpeechSynthesisError(TherapyAppError):
    """No French voice is available or synthesis failed."""
