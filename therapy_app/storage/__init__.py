"""SQLite storage: the database handle, its stores, and the typed rows they return."""

from therapy_app.storage.errors import (
    AccountError,
    AccountLockedError,
    DatabaseCorruptError,
    DatabaseVersionError,
    ForeignDatabaseError,
    StorageError,
    StorageUnavailableError,
)
from therapy_app.storage.history_store import EXPORT_COLUMNS
from therapy_app.storage.queue_store import SavedAttempt
from therapy_app.storage.recording_files import SavedRecording, save_recording
from therapy_app.storage.repository import SessionRepository
from therapy_app.storage.row_types import (
    METRIC_NAMES,
    TRANSCRIPT_FIELDS,
    Attempt,
    Exercise,
    Patient,
    PatientChange,
    ProgressPoint,
    SessionSummary,
    TherapySession,
    TranscriptEdit,
    VerdictChange,
)
from therapy_app.storage.schema import SCHEMA_VERSION

__all__ = [
    "EXPORT_COLUMNS",
    "METRIC_NAMES",
    "SCHEMA_VERSION",
    "TRANSCRIPT_FIELDS",
    "AccountError",
    "AccountLockedError",
    "Attempt",
    "DatabaseCorruptError",
    "DatabaseVersionError",
    "ForeignDatabaseError",
    "Exercise",
    "Patient",
    "PatientChange",
    "ProgressPoint",
    "SavedAttempt",
    "SavedRecording",
    "SessionRepository",
    "SessionSummary",
    "StorageError",
    "StorageUnavailableError",
    "TherapySession",
    "TranscriptEdit",
    "VerdictChange",
    "save_recording",
]
