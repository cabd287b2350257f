"""A widget that reads and writes the database through the task runner."""

from __future__ import annotations

from PySide6.QtWidgets import QWidget

from therapy_app.gui.tasks import TaskRunner
from therapy_app.storage import SessionRepository


class RepositoryWidget(QWidget):
    """Holds the repository and the runner its database jobs go through (``pool="db"``)."""

    def __init__(
        self, repository: SessionRepository, runner: TaskRunner, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self._repository = repository
        self._runner = runner
