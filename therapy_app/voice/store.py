"""A patient's voice folder: the adopted adapter, the last decision, its history and a run lock."""

from __future__ import annotations

import contextlib
import json
import logging
import os
import shutil
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from therapy_app import atomic, paths
from therapy_app.errors import TherapyAppError
from therapy_app.file_lock import try_lock, unlock
from therapy_app.input_files import parse_json, read_text
from therapy_app.model_store import sha256_file
from therapy_app.voice.model import PersonalModel, VoiceDecision, VoiceStatus, patient_voice_dir

if TYPE_CHECKING:
    from therapy_app.storage import SessionRepository
    from therapy_app.storage.row_types import Patient

_LOGGER = logging.getLogger(__name__)

ADAPTER_FILE = "adapter.npz"
DECISION_FILE = "decision.json"
MANIFEST_FILE = "manifest.json"
HISTORY_DIR = "history"
WORK_DIR = "work"
LOCK_FILE = "adapting.lock"
HISTORY_KEPT = 5
"""Earlier decisions kept (an adapter is a few MB; older ones teach nothing)."""
MAX_DECISION_BYTES = 100_000

REVERT_REASON = "Le thérapeute est revenu au modèle général."


class AdaptationRunningError(TherapyAppError):
    """Another adaptation of the same patient is under way."""


def voice_dir(data_dir: Path, patient_id: int, *, create: bool = False) -> Path:
    """The patient's voice folder; ``create`` makes it (and its parents) private 0700."""
    folder = patient_voice_dir(data_dir, patient_id)
    if create:
        paths.ensure_private_dir(folder)
    return folder


def work_dir(data_dir: Path, patient_id: int) -> Path:
    """The trainer's resumable work folder (created private)."""
    return paths.ensure_private_dir(voice_dir(data_dir, patient_id) / WORK_DIR)


def now_text() -> str:
    """The current UTC time as stored in a decision (ISO 8601, seconds)."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def _read_decision(path: Path) -> VoiceDecision | None:
    if not path.is_file():
        return None
    try:
        data = parse_json(read_text(path, "la décision d'adaptation", max_bytes=MAX_DECISION_BYTES))
        if not isinstance(data, dict):
            raise ValueError("not a JSON object")
        return VoiceDecision.from_dict(data)
    except (TherapyAppError, ValueError, TypeError, KeyError) as exc:
        # A damaged decision means "no personal model": the generic one is safe.
        _LOGGER.warning("unreadable voice decision %s: %s", path, exc)
        return None


def last_decision(data_dir: Path, patient_id: int) -> VoiceDecision | None:
    """The last adaptation's (or revert's) decision; None when there is none or it is unreadable."""
    return _read_decision(voice_dir(data_dir, patient_id) / DECISION_FILE)


def personal_model(data_dir: Path, patient_id: int) -> PersonalModel | None:
    """The patient's adopted adapter, or None: the generic model is then used.

    None too when the file is missing or its sha256 differs from the one the
    decision recorded (a damaged or swapped file is never loaded).
    """
    decision = last_decision(data_dir, patient_id)
    if decision is None or not decision.adopted or decision.adapter_sha256 is None:
        return None
    adapter = voice_dir(data_dir, patient_id) / ADAPTER_FILE
    try:
        digest = sha256_file(adapter)
    except OSError as exc:
        _LOGGER.warning("personal adapter of patient %d unreadable: %s", patient_id, exc)
        return None
    if digest != decision.adapter_sha256:
        _LOGGER.warning("personal adapter of patient %d does not match its decision", patient_id)
        return None
    return PersonalModel(adapter, digest, decision.scoring)


def _write_decision(folder: Path, decision: VoiceDecision) -> None:
    text = json.dumps(decision.to_dict(), ensure_ascii=False, indent=2) + "\n"
    atomic.write_bytes(folder / DECISION_FILE, text.encode("utf-8"))


def _archive(folder: Path, *, keep_adapter: bool) -> None:
    """Move the current decision (and copy or move its adapter) into ``history/``."""
    decision = folder / DECISION_FILE
    adapter = folder / ADAPTER_FILE
    if not decision.is_file() and not adapter.is_file():
        return
    history = paths.ensure_private_dir(folder / HISTORY_DIR)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%fZ")
    entry = paths.ensure_private_dir(history / stamp)
    if adapter.is_file():
        if keep_adapter:
            shutil.copy2(adapter, entry / ADAPTER_FILE)
        else:
            os.replace(adapter, entry / ADAPTER_FILE)
    if decision.is_file():
        os.replace(decision, entry / DECISION_FILE)
    atomic.fsync_dir(folder)
    for old in sorted(p for p in history.iterdir() if p.is_dir())[:-HISTORY_KEPT]:
        shutil.rmtree(old, ignore_errors=True)


def history(data_dir: Path, patient_id: int) -> list[tuple[Path, VoiceDecision]]:
    """Earlier decisions, newest first, each with its history folder."""
    folder = voice_dir(data_dir, patient_id) / HISTORY_DIR
    if not folder.is_dir():
        return []
    found = []
    for entry in sorted((p for p in folder.iterdir() if p.is_dir()), reverse=True):
        decision = _read_decision(entry / DECISION_FILE)
        if decision is not None:
            found.append((entry, decision))
    return found


def save_decision(
    data_dir: Path, patient_id: int, decision: VoiceDecision, adapter: Path | None
) -> VoiceDecision:
    """Record a new decision; the previous one and its adapter go to ``history/``.

    Args:
        decision: what the run concluded; when adopted, ``adapter_sha256`` must
            be the sha256 of ``adapter``.
        adapter: the trained adapter, copied into the voice folder when the
            decision adopts it (a rejected one is not kept: it measured worse).

    Raises:
        ValueError: an adopted decision without its adapter, or a sha256 mismatch.
    """
    folder = voice_dir(data_dir, patient_id, create=True)
    if decision.adopted:
        if adapter is None or sha256_file(adapter) != decision.adapter_sha256:
            raise ValueError("an adopted decision needs its adapter with the recorded sha256")
    _archive(folder, keep_adapter=False)
    if decision.adopted and adapter is not None:
        with atomic.atomic_path(folder / ADAPTER_FILE) as temporary:
            shutil.copyfile(adapter, temporary)
    _write_decision(folder, decision)
    _LOGGER.info("patient %d voice decision: adopted=%s", patient_id, decision.adopted)
    return decision


def revert(data_dir: Path, patient_id: int) -> VoiceDecision:
    """« Revenir au modèle général »: the generic model is used again from now on.

    The adopted decision goes to ``history/``; the adapter stays in the voice
    folder (and a copy in history) so that :func:`undo_revert` can bring it back.

    Raises:
        TherapyAppError: no personal model is in use (French).
    """
    current = last_decision(data_dir, patient_id)
    if current is None or not current.adopted:
        raise TherapyAppError(
            "Ce patient n'utilise pas de modèle personnel : le modèle général est déjà utilisé."
        )
    folder = voice_dir(data_dir, patient_id, create=True)
    _archive(folder, keep_adapter=True)
    reverted = replace(
        current, adopted=False, scoring=False, reason=REVERT_REASON, created_at=now_text()
    )
    _write_decision(folder, reverted)
    _LOGGER.info("patient %d back to the generic recogniser", patient_id)
    return reverted


def undo_revert(data_dir: Path, patient_id: int) -> VoiceDecision:
    """Bring back the personal model a :func:`revert` set aside.

    Raises:
        TherapyAppError: the last decision is not a revert, or its adapter is gone (French).
    """
    current = last_decision(data_dir, patient_id)
    earlier = history(data_dir, patient_id)
    folder = voice_dir(data_dir, patient_id)
    adapter = folder / ADAPTER_FILE
    if (
        current is None
        or current.adopted
        or current.reason != REVERT_REASON
        or not earlier
        or not earlier[0][1].adopted
        or not adapter.is_file()
        or sha256_file(adapter) != earlier[0][1].adapter_sha256
    ):
        raise TherapyAppError(
            "Il n'y a pas de modèle personnel mis de côté à reprendre.",
            "Lancez une nouvelle adaptation.",
        )
    entry, previous = earlier[0]
    os.replace(folder / DECISION_FILE, entry / "reverted.json")
    _write_decision(folder, previous)
    return previous


@contextlib.contextmanager
def adaptation_lock(data_dir: Path, patient_id: int) -> Iterator[None]:
    """Hold the patient's adaptation lock for the whole run.

    Raises:
        AdaptationRunningError: another run (this process or another) holds it (French).
    """
    folder = voice_dir(data_dir, patient_id, create=True)
    fd = os.open(folder / LOCK_FILE, os.O_RDWR | os.O_CREAT, paths.PRIVATE_FILE_MODE)
    try:
        if not try_lock(fd):
            raise AdaptationRunningError(
                "Une adaptation de la reconnaissance est déjà en cours pour ce patient.",
                "Attendez qu'elle se termine.",
                f"{folder / LOCK_FILE} is locked",
            )
        try:
            os.ftruncate(fd, 0)
            os.write(fd, f"{os.getpid()}\n".encode())
            yield
        finally:
            unlock(fd)
    finally:
        os.close(fd)


def is_running(data_dir: Path, patient_id: int) -> bool:
    """Whether an adaptation of this patient holds the lock now (a dead run never does)."""
    lock = voice_dir(data_dir, patient_id) / LOCK_FILE
    try:
        fd = os.open(lock, os.O_RDWR)
    except OSError:
        return False
    try:
        if try_lock(fd):
            unlock(fd)
            return False
        return True
    finally:
        os.close(fd)


def voice_status(repository: SessionRepository, patient_id: int) -> VoiceStatus:
    """Everything the « Voix » panel and ``voice status`` show for one patient."""
    from therapy_app.voice.samples import usable_counts

    data_dir = repository.data_dir
    return VoiceStatus(
        patient_id=patient_id,
        usable=usable_counts(repository, patient_id),
        decision=last_decision(data_dir, patient_id),
        active=personal_model(data_dir, patient_id) is not None,
        running=is_running(data_dir, patient_id),
    )


def find_patient(repository: SessionRepository, name: str) -> Patient:
    """The patient called ``name`` (case and spacing ignored, as ``voice import`` does).

    Raises:
        TherapyAppError: no such patient, or several with that name (French).
    """
    wanted = " ".join(name.split()).casefold()
    found = [
        p
        for p in repository.patients.all(include_archived=True)
        if " ".join(p.display_name.split()).casefold() == wanted
    ]
    if not found:
        raise TherapyAppError(
            f"Aucun patient ne s'appelle « {name.strip()} ».",
            "Vérifiez le nom tel qu'il apparaît dans l'espace thérapeute.",
        )
    if len(found) > 1:
        raise TherapyAppError(
            f"Plusieurs patients s'appellent « {name.strip()} ».",
            "Renommez-en un dans l'espace thérapeute.",
        )
    return found[0]
