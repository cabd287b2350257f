"""Database schema as a list of forward migrations, versioned in ``PRAGMA user_version``.

Migrations are sqlite-utils ``Migrations`` (each runs in its own transaction
together with its record in ``_sqlite_migrations``). Each one also sets
``PRAGMA user_version`` to its position, inside the same transaction, so the
version is readable by any SQLite tool and a database written by a newer
release can be refused before anything touches it. Never edit a released
migration: add a new one at the end.
"""

from __future__ import annotations

import logging

from sqlite_utils import Database
from sqlite_utils.migrations import Migrations

from therapy_app import pause_tolerance
from therapy_app.storage.database import transaction
from therapy_app.storage.errors import DatabaseVersionError

_LOGGER = logging.getLogger(__name__)

MIGRATIONS = Migrations("therapy_app")


def _set_version(db: Database, version: int) -> None:
    # user_version is part of the database header and is transactional.
    db.execute(f"PRAGMA user_version = {int(version)}")


@MIGRATIONS()
def m001_core_tables(db: Database) -> None:
    """v1: patients, therapists, exercises, sessions, attempts."""
    db.executescript(
        """
        CREATE TABLE patients (
            id INTEGER PRIMARY KEY,
            display_name TEXT NOT NULL,
            initials TEXT NOT NULL,
            avatar_colour TEXT NOT NULL,
            created_at TEXT NOT NULL
        );
        CREATE TABLE therapists (
            id INTEGER PRIMARY KEY,
            username TEXT NOT NULL UNIQUE COLLATE NOCASE,
            password_hash BLOB NOT NULL,
            password_salt BLOB NOT NULL,
            scrypt_n INTEGER NOT NULL,
            scrypt_r INTEGER NOT NULL,
            scrypt_p INTEGER NOT NULL,
            failed_attempts INTEGER NOT NULL DEFAULT 0,
            locked_until TEXT,
            created_at TEXT NOT NULL
        );
        CREATE TABLE exercises (
            id INTEGER PRIMARY KEY,
            kind TEXT NOT NULL CHECK (kind IN ('free_speech', 'repetition', 'completion')),
            title TEXT NOT NULL,
            level INTEGER NOT NULL DEFAULT 1
        );
        CREATE TABLE sessions (
            id INTEGER PRIMARY KEY,
            patient_id INTEGER NOT NULL REFERENCES patients(id),
            exercise_kind TEXT NOT NULL
                CHECK (exercise_kind IN ('free_speech', 'repetition', 'completion')),
            exercise_id INTEGER REFERENCES exercises(id),
            started_at TEXT NOT NULL,
            ended_at TEXT
        );
        CREATE TABLE attempts (
            id INTEGER PRIMARY KEY,
            session_id INTEGER NOT NULL REFERENCES sessions(id),
            created_at TEXT NOT NULL,
            kind TEXT NOT NULL CHECK (kind IN ('free_speech', 'repetition', 'completion')),
            target_text TEXT,
            recording_path TEXT,
            recording_sha256 TEXT,
            duration_s REAL,
            raw_transcript TEXT NOT NULL DEFAULT '',
            token_logprobs TEXT,
            avg_logprob REAL,
            correction_best TEXT,
            correction_alternatives TEXT,
            chosen_sentence TEXT,
            repetition_transcript TEXT,
            wer REAL,
            accuracy REAL,
            target_score REAL,
            target_logprob REAL,
            success INTEGER CHECK (success IN (0, 1)),
            success_derived INTEGER NOT NULL DEFAULT 0,
            cue_level INTEGER,
            timings TEXT,
            provider TEXT,
            model_versions TEXT,
            pause_ratio REAL,
            word_count INTEGER NOT NULL DEFAULT 0,
            function_word_ratio REAL,
            verb_count INTEGER NOT NULL DEFAULT 0,
            words_per_minute REAL
        );
        INSERT INTO exercises (kind, title, level) VALUES
            ('free_speech', 'Parole libre', 1),
            ('repetition', 'Répétition de phrases', 1),
            ('completion', 'Complétion de phrases', 1);
        """
    )
    _set_version(db, 1)


@MIGRATIONS()
def m002_transcript_edits_and_indexes(db: Database) -> None:
    """v2: therapist edits beside the original transcripts, audit table, query indexes."""
    attempts = db.table("attempts")
    attempts.add_column("edited_transcript", str)
    attempts.add_column("edited_repetition_transcript", str)
    db.execute(
        """
        CREATE TABLE transcript_edits (
            id INTEGER PRIMARY KEY,
            attempt_id INTEGER NOT NULL REFERENCES attempts(id),
            field TEXT NOT NULL CHECK (field IN ('transcript', 'repetition_transcript')),
            old_text TEXT,
            new_text TEXT NOT NULL,
            editor TEXT NOT NULL,
            edited_at TEXT NOT NULL
        )
        """
    )
    # History and progress walk patient -> sessions -> attempts; without these
    # each lookup scans a whole table (seconds at 100k attempts).
    db.table("sessions").create_index(["patient_id", "started_at"], "idx_sessions_patient")
    db.table("attempts").create_index(["session_id", "created_at"], "idx_attempts_session")
    db.table("transcript_edits").create_index(["attempt_id"], "idx_transcript_edits_attempt")
    _set_version(db, 2)


@MIGRATIONS()
def m003_patient_pause_tolerance(db: Database) -> None:
    """v3: each patient's end-of-speech silence (word-finding pauses differ between patients)."""
    db.execute(
        "ALTER TABLE patients ADD COLUMN pause_tolerance_ms INTEGER NOT NULL"
        f" DEFAULT {pause_tolerance.DEFAULT_MS}"
        f" CHECK (pause_tolerance_ms BETWEEN {pause_tolerance.MIN_MS} AND {pause_tolerance.MAX_MS})"
    )
    _set_version(db, 3)


@MIGRATIONS()
def m004_queue_verdicts_throttle_backups(db: Database) -> None:
    """v4: replay ids, audited verdicts, login throttle, backup log.

    * ``sessions.client_uuid`` / ``attempts.client_uuid``: ids given before the
      row exists, so that an attempt queued on disk while the database was
      locked is written exactly once when the queue is replayed.
    * ``attempts.given_success`` (the caller's verdict as given, never
      changed), ``auto_success`` (the verdict without the therapist's
      override: given, derived, or recomputed after a transcript edit) and
      ``verdict_override``; ``success`` stays the verdict in force, which every
      query reads. ``verdict_changes`` audits each change of the verdict in force.
    * ``login_throttle``: wrong-password counts per typed username, existing
      or not, so that the lockout does not tell which usernames exist.
    * ``backups``: when backups were made and restored (the "last backup is
      old" warning).
    """
    db.executescript(
        """
        ALTER TABLE sessions ADD COLUMN client_uuid TEXT;
        CREATE UNIQUE INDEX idx_sessions_client_uuid ON sessions(client_uuid);
        ALTER TABLE attempts ADD COLUMN client_uuid TEXT;
        CREATE UNIQUE INDEX idx_attempts_client_uuid ON attempts(client_uuid);
        ALTER TABLE attempts ADD COLUMN given_success INTEGER
            CHECK (given_success IN (0, 1));
        ALTER TABLE attempts ADD COLUMN auto_success INTEGER
            CHECK (auto_success IN (0, 1));
        ALTER TABLE attempts ADD COLUMN verdict_override INTEGER
            CHECK (verdict_override IN (0, 1));
        UPDATE attempts SET
            auto_success = success,
            given_success = CASE WHEN success_derived THEN NULL ELSE success END;
        CREATE TABLE verdict_changes (
            id INTEGER PRIMARY KEY,
            attempt_id INTEGER NOT NULL REFERENCES attempts(id),
            cause TEXT NOT NULL
                CHECK (cause IN ('transcript_edit', 'override', 'override_removed')),
            old_success INTEGER CHECK (old_success IN (0, 1)),
            new_success INTEGER CHECK (new_success IN (0, 1)),
            editor TEXT NOT NULL,
            reason TEXT NOT NULL DEFAULT '',
            changed_at TEXT NOT NULL
        );
        CREATE INDEX idx_verdict_changes_attempt ON verdict_changes(attempt_id);
        CREATE TABLE login_throttle (
            username TEXT PRIMARY KEY COLLATE NOCASE,
            failed_attempts INTEGER NOT NULL DEFAULT 0,
            locked_until TEXT
        );
        INSERT INTO login_throttle (username, failed_attempts, locked_until)
            SELECT username, failed_attempts, locked_until FROM therapists
            WHERE failed_attempts > 0 OR locked_until IS NOT NULL;
        CREATE TABLE backups (
            id INTEGER PRIMARY KEY,
            kind TEXT NOT NULL CHECK (kind IN ('backup', 'restore')),
            made_at TEXT NOT NULL,
            file_name TEXT NOT NULL,
            encrypted INTEGER NOT NULL CHECK (encrypted IN (0, 1)),
            attempt_count INTEGER,
            size_bytes INTEGER
        );
        """
    )
    _set_version(db, 4)


_KIND_LISTS = {
    "exercises": "CHECK (kind IN ('free_speech', 'repetition', 'completion'))",
    "sessions": "CHECK (exercise_kind IN ('free_speech', 'repetition', 'completion'))",
    "attempts": "CHECK (kind IN ('free_speech', 'repetition', 'completion'))",
}


@MIGRATIONS()
def m005_naming(db: Database) -> None:
    """v5: the picture-naming exercise, kind ``naming``.

    The exercise kind is a CHECK constraint of three tables. SQLite cannot
    alter a constraint, and rebuilding the tables is not possible here: the
    migration runs inside a transaction, where foreign keys cannot be turned
    off, and dropping ``attempts`` would break the references of
    ``transcript_edits`` and ``verdict_changes``. A constraint that only
    accepts more values is widened in the stored schema text instead, the
    procedure SQLite documents for loosening constraints (lang_altertable.html,
    "making other kinds of table schema changes"): writable_schema, the
    schema version bumped so every connection reloads it, then an integrity
    check. Naming attempts need no new column: the cue level that led to
    success is the successful attempt's ``cue_level``, the picture its
    ``target_text``.
    """
    _widen_kinds(db, "m005_naming", (), "naming")
    db.execute(
        "INSERT INTO exercises (kind, title, level) VALUES ('naming', 'Dénomination d''images', 1)"
    )
    _set_version(db, 5)


def _position(name: str) -> int:
    """The 1-based place of migration ``name`` in the list (its ``user_version``).

    Computed rather than written down: migrations developed on parallel
    branches (m005_naming, m006_programs) keep a right version whatever
    order the merge puts them in.
    """
    names = [m.name for m in MIGRATIONS._migrations]  # noqa: SLF001 - no public list
    return names.index(name) + 1


@MIGRATIONS()
def m006_programs(db: Database) -> None:
    """Therapist-set programs, custom lists, archived patients, recovery code.

    * ``patients.archived_at``: an archived patient is hidden from the
      patient start screen; history stays, and the therapist can restore them.
    * ``programs``: one per patient: the exercises in order (JSON list of
      ``{kind, level, category}``), items per session, speech rate.
    * ``custom_items``: the patient's own words and sentences (names of the
      family, street, favourite dishes), unique per patient whatever the case.
    * ``patient_changes``: audit of renames, archiving, restoring, deletions,
      program changes and list imports. No foreign key: the line saying a
      patient was deleted outlives the patient (it holds no name).
    * ``therapists.recovery_*``: scrypt hash of the recovery code (never the
      code itself), which lets the therapist set a new password.
    """
    db.executescript(
        """
        ALTER TABLE patients ADD COLUMN archived_at TEXT;
        CREATE TABLE programs (
            patient_id INTEGER PRIMARY KEY REFERENCES patients(id),
            steps TEXT NOT NULL,
            items_per_session INTEGER NOT NULL
                CHECK (items_per_session BETWEEN 1 AND 50),
            speech_rate_percent INTEGER NOT NULL DEFAULT 100
                CHECK (speech_rate_percent BETWEEN 60 AND 140),
            use_custom_items INTEGER NOT NULL DEFAULT 1 CHECK (use_custom_items IN (0, 1)),
            updated_at TEXT NOT NULL
        );
        CREATE TABLE custom_items (
            id INTEGER PRIMARY KEY,
            patient_id INTEGER NOT NULL REFERENCES patients(id),
            kind TEXT NOT NULL CHECK (kind IN ('word', 'sentence')),
            text TEXT NOT NULL COLLATE NOCASE,
            category TEXT NOT NULL DEFAULT '',
            created_at TEXT NOT NULL,
            UNIQUE (patient_id, text)
        );
        CREATE TABLE patient_changes (
            id INTEGER PRIMARY KEY,
            patient_id INTEGER NOT NULL,
            action TEXT NOT NULL CHECK (action IN
                ('rename', 'archive', 'restore', 'delete', 'program', 'import')),
            old_value TEXT,
            new_value TEXT,
            editor TEXT NOT NULL,
            changed_at TEXT NOT NULL
        );
        CREATE INDEX idx_patient_changes_patient ON patient_changes(patient_id);
        ALTER TABLE therapists ADD COLUMN recovery_hash BLOB;
        ALTER TABLE therapists ADD COLUMN recovery_salt BLOB;
        ALTER TABLE therapists ADD COLUMN recovery_n INTEGER;
        """
    )
    _set_version(db, _position("m006_programs"))


@MIGRATIONS()
def m007_custom_pictures(db: Database) -> None:
    """A custom word may show a picture of the naming set ("Médor" with the dog).

    ``custom_items.picture`` holds the picture's id in ``resources/naming/bank.json``
    ("" for none); an id a later bank lacks just shows no picture.
    """
    db.execute("ALTER TABLE custom_items ADD COLUMN picture TEXT NOT NULL DEFAULT ''")
    _set_version(db, _position("m007_custom_pictures"))


def _widen_kinds(db: Database, name: str, kinds: tuple[str, ...], added: str) -> None:
    """Add kind ``added`` to the exercise-kind CHECK of the three tables (the m005 procedure).

    ``kinds`` are the kinds after ``'completion'`` the stored CHECK already lists.
    """
    old = "".join(f", '{kind}'" for kind in ("completion", *kinds)) + ")"
    new = old[:-1] + f", '{added}')"
    version = int(db.execute("PRAGMA schema_version").fetchone()[0])
    db.execute("PRAGMA writable_schema = ON")
    try:
        for table, check in _KIND_LISTS.items():
            current = check.replace(", 'completion')", old)
            cursor = db.execute(
                "UPDATE sqlite_master SET sql = replace(sql, ?, ?)"
                " WHERE type = 'table' AND name = ? AND instr(sql, ?) > 0",
                [current, current.replace(old, new), table, current],
            )
            if cursor.rowcount != 1:
                raise RuntimeError(f"{name}: unexpected schema of {table}")
        db.execute(f"PRAGMA schema_version = {version + 1}")
    finally:
        db.execute("PRAGMA writable_schema = OFF")
    problems = [row[0] for row in db.execute("PRAGMA quick_check").fetchall()]
    if problems != ["ok"]:
        raise RuntimeError(f"{name}: quick_check {problems[:3]}")


@MIGRATIONS()
def m008_phrase_book_scripts(db: Database) -> None:
    """The patient's gender, the phrase book's removals, scripts, kind ``script``.

    * ``patients.gender``: ``'f'``, ``'m'`` or ``''`` (not said); chooses the
      agreement of first-person sentences ("je suis allée").
    * ``phrase_removals``: sentences the therapist took out of the patient's
      phrase book (a sentence chosen in free speech lives in ``attempts``;
      removing it must not rewrite history).
    * ``scripts`` and ``script_turns``: short dialogues the patient practises
      (script training); ``speaker`` is ``partner`` (the app says it) or
      ``patient`` (the patient says it, judged like repetition).
    * ``attempts.script_id``: the script a ``script`` attempt belongs to (no
      foreign key: deleting a script keeps its attempts and their recordings).
    """
    _widen_kinds(db, "m008", ("naming",), "script")
    db.executescript(
        """
        ALTER TABLE patients ADD COLUMN gender TEXT NOT NULL DEFAULT ''
            CHECK (gender IN ('', 'f', 'm'));
        CREATE TABLE phrase_removals (
            id INTEGER PRIMARY KEY,
            patient_id INTEGER NOT NULL REFERENCES patients(id),
            text TEXT NOT NULL COLLATE NOCASE,
            removed_at TEXT NOT NULL,
            UNIQUE (patient_id, text)
        );
        CREATE TABLE scripts (
            id INTEGER PRIMARY KEY,
            patient_id INTEGER NOT NULL REFERENCES patients(id),
            title TEXT NOT NULL,
            created_at TEXT NOT NULL,
            updated_at TEXT NOT NULL,
            archived_at TEXT
        );
        CREATE INDEX idx_scripts_patient ON scripts(patient_id);
        CREATE TABLE script_turns (
            id INTEGER PRIMARY KEY,
            script_id INTEGER NOT NULL REFERENCES scripts(id),
            position INTEGER NOT NULL CHECK (position >= 0),
            speaker TEXT NOT NULL CHECK (speaker IN ('partner', 'patient')),
            text TEXT NOT NULL,
            UNIQUE (script_id, position)
        );
        ALTER TABLE attempts ADD COLUMN script_id INTEGER;
        INSERT INTO exercises (kind, title, level) VALUES ('script', 'Scripts de dialogue', 1);
        """
    )
    _set_version(db, _position("m008_phrase_book_scripts"))


@MIGRATIONS()
def m009_verdict_measures(db: Database) -> None:
    """The measures practice judged a try with, stored as practice computed them.

    * ``attempts.matched_text``: the accepted form the verdict measured ("un
      chat" for the picture "chat"); the stored WER and accuracy are measured
      against it, so a right answer with another determiner is not stored
      with 0 % accuracy next to its success.
    * ``attempts.margin``: the target's score over the best distractor (mean
      log-probability per token); None without distractors. The personal
      voice's label guard and the per-patient calibration read it.
    """
    db.executescript(
        """
        ALTER TABLE attempts ADD COLUMN matched_text TEXT;
        ALTER TABLE attempts ADD COLUMN margin REAL;
        """
    )
    _set_version(db, _position("m009_verdict_measures"))


SCHEMA_VERSION = len(MIGRATIONS._migrations)  # noqa: SLF001 - no public count in sqlite-utils
"""The version this code writes; a database with a higher ``user_version`` is refused."""

MIGRATION_NAMES: tuple[str, ...] = tuple(m.name for m in MIGRATIONS._migrations)  # noqa: SLF001


def schema_version(db: Database) -> int:
    """The database's ``PRAGMA user_version`` (0 for a new file)."""
    return int(db.execute("PRAGMA user_version").fetchone()[0])


def check_not_newer(db: Database) -> int:
    """Refuse a database written by a newer release, before changing anything.

    Returns:
        The database's current schema version.

    Raises:
        DatabaseVersionError: its version is above ``SCHEMA_VERSION`` or it
            records migrations this code does not know.
    """
    found = schema_version(db)
    if found > SCHEMA_VERSION:
        raise DatabaseVersionError(found, SCHEMA_VERSION)
    unknown = [m.name for m in MIGRATIONS.applied(db) if m.name not in MIGRATION_NAMES]
    if unknown:
        _LOGGER.error("database records unknown migrations %s", unknown)
        raise DatabaseVersionError(max(found, SCHEMA_VERSION + 1), SCHEMA_VERSION)
    return found


def migrate(db: Database, *, stop_before: str | None = None) -> int:
    """Bring the database up to ``SCHEMA_VERSION`` (or to just before ``stop_before``).

    Args:
        db: an open database (see ``database.open_database``).
        stop_before: name of a migration not to apply, with those after it;
            tests use it to build old schema versions.

    Returns:
        The schema version after migrating.

    Raises:
        DatabaseVersionError: the database is newer than this code.
    """
    # BEGIN IMMEDIATE: the write lock is taken before reading what is pending,
    # so a second process (an older release without the start-up lock) waits,
    # then finds nothing left to do. sqlite-utils nests each migration as a savepoint.
    with transaction(db, "migrating"):
        before = check_not_newer(db)
        pending = [m.name for m in MIGRATIONS.pending(db)]
        if pending and (stop_before is None or pending[0] != stop_before):
            _LOGGER.info("migrating database from v%d: %s", before, ", ".join(pending))
        MIGRATIONS.apply(db, stop_before=stop_before)
    after = schema_version(db)
    applied = len(MIGRATIONS.applied(db))
    if applied != after:
        # Someone changed user_version by hand; the migrations table is what
        # decides what runs, so say it rather than guess.
        _LOGGER.warning("user_version %d but %d migrations recorded", after, applied)
    return after
