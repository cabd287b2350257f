"""The repository is one database handle with small stores over it, and nothing else."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from therapy_app.storage import SessionRepository, StorageUnavailableError
from therapy_app.storage.store_base import Store

STORAGE_DIR = Path(__file__).resolve().parent.parent / "therapy_app" / "storage"
STORES = (
    "accounts",
    "patients",
    "sessions",
    "attempts",
    "queue",
    "history",
    "programs",
    "phrases",
    "scripts",
    "maintenance",
)


def test_every_store_works_over_this_repository(repo: SessionRepository) -> None:
    for name in STORES:
        store = getattr(repo, name)
        assert isinstance(store, Store), name
        assert store._repository is repo, name  # noqa: SLF001 - the handle is the point


def test_store_writes_grouped_in_one_transaction_roll_back_together(
    repo: SessionRepository,
) -> None:
    with pytest.raises(RuntimeError), repo.transaction("importing") as db:
        patient = repo.patients.create("Jeanne")
        repo.programs.add_custom_item(patient.id, "word", "couscous")
        assert db.execute("SELECT COUNT(*) FROM custom_items").fetchone()[0] == 1
        raise RuntimeError("the import fails half-way")
    assert repo.patients.all() == []
    assert repo.maintenance.data_counts() == (0, 0)


def test_a_read_only_handle_refuses_every_store_write_before_writing(
    repo: SessionRepository,
) -> None:
    patient = repo.patients.create("Jeanne")
    repo.read_only = True
    with pytest.raises(StorageUnavailableError):
        repo.patients.rename(patient.id, "Jeanne D.", "claire")
    with pytest.raises(StorageUnavailableError):
        repo.accounts.create("ortho", "bon mot de passe")
    repo.read_only = False
    assert repo.patients.get(patient.id).display_name == "Jeanne"
    assert not repo.accounts.exists()


def _private_reads_of_the_handle(path: Path) -> list[str]:
    """``self._repository._x`` or ``repository._x``: a store reaching into the handle."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute) or not node.attr.startswith("_"):
            continue
        owner = node.value
        name = owner.attr if isinstance(owner, ast.Attribute) else getattr(owner, "id", "")
        if name in ("_repository", "repository"):
            found.append(f"{path.name}:{node.lineno} .{node.attr}")
    return found


def test_stores_use_only_the_public_plumbing_of_the_handle() -> None:
    modules = [p for p in STORAGE_DIR.glob("*.py") if p.name != "repository.py"]
    assert any(p.name == "patient_store.py" for p in modules)
    offenders = [line for path in modules for line in _private_reads_of_the_handle(path)]
    assert offenders == []
