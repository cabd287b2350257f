"""What the therapist area gives every one of its panels."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from therapy_app.gui.tasks import TaskRunner
from therapy_app.gui.therapist.voice_recording import AudioProvider
from therapy_app.storage import SessionRepository


@dataclass(frozen=True)
class TherapistContext:
    """The data, the task runner, the therapist and the speech path the panels share.

    Built once by the area; each panel takes it as its first argument.

    Attributes:
        repository: the data.
        runner: the application's task runner (storage on its database worker,
            the voice on its inference worker).
        editor: returns the logged-in therapist's username ("" while locked),
            recorded with every change a panel stores.
        audio: the app's loaded voice, detector and devices (« Écouter »,
            « Enregistrer la voix »); None, or a provider returning None, lets
            the panel load its own on first use.
    """

    repository: SessionRepository
    runner: TaskRunner
    editor: Callable[[], str]
    audio: AudioProvider | None = None
