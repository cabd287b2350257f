"""SQLite session store: patients, sessions, attempts, metrics."""

from therapy_app.storage.errors import (
    AccountError,
    AccountLockedError,
    DatabaseCorruptError,
    DatabaseVersionError,
    ForeignDatabaseError,
    StorageError,
    StorageUnavailableError,
)
from therapy_app.storage.queries import EXPORT_COLUMNS
from therapy_app.storage.queueing import SavedAttempt
from therapy_app.storage.recordings import SavedRecording, save_recording
from therapy_app.storage.records import (
    EXERCISE_KINDS,
    METRIC_NAMES,
    TRANSCRIPT_FIELDS,
    Attempt,
    AttemptRecord,
    Candidate,
    Exercise,
    Patient,
    ProgressPoint,
    SessionSummary,
    StepTimings,
    TherapySession,
    TranscriptEdit,
    VerdictChange,
)
from therapy_app.storage.repository import SessionRepository
from therapy_app.storage.schema import SCHEMA_VERSION

__all__ = [
    "EXERCISE_KINDS",
    "EXPORT_COLUMNS",
    "METRIC_NAMES",
    "SCHEMA_VERSION",
    "TRANSCRIPT_FIELDS",
    "AccountError",
    "AccountLockedError",
    "Attempt",
    "AttemptRecord",
    "Candidate",
    "DatabaseCorruptError",
    "DatabaseVersionError",
    "ForeignDatabaseError",
    "Exercise",
    "Patient",
    "ProgressPoint",
    "SavedAttempt",
    "SavedRecording",
    "SessionRepository",
    "SessionSummary",
    "StepTimings",
    "StorageError",
    "StorageUnavailableError",
    "TherapySession",
    "TranscriptEdit",
    "VerdictChange",
    "save_recording",
]
