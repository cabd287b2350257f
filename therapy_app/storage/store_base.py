"""What every store of the repository starts from: the database handle it works over."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from therapy_app.storage.repository import SessionRepository


class Store:
    """A small store over one ``SessionRepository``.

    It reads through the handle's ``connection()``, writes inside its
    ``transaction()``, takes the time from ``now()``, and reaches another
    store through the handle (``self._repository.sessions``).

    Args:
        repository: the database handle (its connection, lock, clock and data folder).
    """

    def __init__(self, repository: SessionRepository) -> None:
        self._repository = repository
