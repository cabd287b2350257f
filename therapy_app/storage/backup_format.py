"""The backup file format: manifest, names and sizes, all checked before anything is unpacked.

A backup is a ZIP archive (optionally encrypted whole, see
:mod:`therapy_app.storage.backup_crypto`) holding ``manifest.json``, the
database and the files under ``recordings/``, ``pending/`` and, from format 2,
``voice/`` (each patient's personal-voice folder). A restore
reads it as hostile input: every value of the manifest has its type checked,
every name must be a plain relative path that no other name turns into a
folder, and the unpacked size is bounded before a byte is written.
"""

from __future__ import annotations

import json
import re
import zipfile
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path, PurePosixPath

from therapy_app import __version__
from therapy_app.errors import TherapyAppError
from therapy_app.storage import backup_crypto
from therapy_app.storage.pending import PENDING_DIR
from therapy_app.storage.recording_files import RECORDINGS_DIR
from therapy_app.storage.repository import DB_FILENAME
from therapy_app.storage.row_codec import from_db_time, to_db_time
from therapy_app.storage.schema import SCHEMA_VERSION
from therapy_app.voice.model import VOICE_FOLDER

BACKUP_SUFFIX = ".therapy-backup"
MANIFEST = "manifest.json"
DB_MEMBER = DB_FILENAME
"""The database's name in the archive: its name in the data folder."""
FORMAT = 2
"""The newest format this code reads."""
VOICE_FORMAT = 2
"""The first format with ``voice/`` files. A backup without any is still written as
format 1, so that an older version of the app can restore it."""
MAX_VOICE_DEPTH = 6
"""``voice/patient-<id>/`` and at most four levels below (``history/<date>/adapter.npz``)."""
_VOICE_PATIENT = re.compile(r"^patient-[0-9]+$")
MAX_MANIFEST_BYTES = 32 << 20
"""A manifest lists one line per file: 32 MiB is hundreds of thousands of recordings."""
MAX_EXPANSION = 50
"""Unpacked bytes per archive byte: recordings are stored, only the database is compressed."""
MIN_UNPACKED_LIMIT = 64 << 20
"""Below this the expansion ratio is not checked (a small, very compressible database)."""
MAX_NAME_BYTES = 255
"""The longest file name most file systems accept (NAME_MAX)."""
MAX_PATH_BYTES = 1024
_ALLOWED_COMPRESSION = (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED)
_SHA256 = re.compile(r"^[0-9a-f]{64}$")
_MAX_COUNT = 2**63


class BackupFormatError(TherapyAppError):
    """The file is not a backup of this app, or it is damaged."""


def not_a_backup(detail: str) -> BackupFormatError:
    """The French "not a backup, or damaged" error with ``detail`` for the logs."""
    return BackupFormatError(
        "Ce fichier n'est pas une sauvegarde de l'application, ou il est abîmé.",
        "Choisissez un fichier « .therapy-backup » fait par l'application. Rien n'a été modifié.",
        detail,
    )


def newer_format(detail: str) -> BackupFormatError:
    """The French "made by a newer version" error."""
    return BackupFormatError(
        "Cette sauvegarde vient d'une version plus récente de l'application.",
        "Installez la dernière version de l'application, puis restaurez-la.",
        detail,
    )


@dataclass(frozen=True)
class BackupInfo:
    """What a backup holds.

    Attributes:
        path: the backup file.
        made_at: when the database was copied (UTC).
        encrypted: protected by a passphrase.
        patient_count: patients in it.
        attempt_count: attempts in it.
        file_count: recordings and queue files in it.
        missing: recordings the database refers to that were not on disk.
        size_bytes: size of the backup file.
    """

    path: Path
    made_at: datetime
    encrypted: bool
    patient_count: int
    attempt_count: int
    file_count: int
    missing: tuple[str, ...]
    size_bytes: int

    def summary(self) -> str:
        """The French confirmation shown after a backup (CLI and therapist area)."""
        return (
            f"Sauvegarde écrite : {self.path} ({self.patient_count} patient(s), "
            f"{self.attempt_count} essai(s), {self.file_count} fichier(s)"
            f"{', chiffrée' if self.encrypted else ''})."
        )


@dataclass(frozen=True)
class Manifest:
    """``manifest.json``, checked.

    Attributes:
        made_at: when the database was copied (aware).
        patients: patients in the database.
        attempts: attempts in the database.
        files: archive name -> SHA-256 (hex), the database included.
        missing: recordings that were not on disk when the backup was made.
        app_version: the version of the app that wrote it.
        schema_version: the database's schema version then.
        format: this file format's version.
    """

    made_at: datetime
    patients: int
    attempts: int
    files: dict[str, str]
    missing: tuple[str, ...] = ()
    app_version: str = __version__
    schema_version: int = SCHEMA_VERSION
    format: int = FORMAT

    def to_json(self) -> str:
        """The JSON text written into the archive."""
        content = {
            "format": self.format,
            "app": "therapy_app",
            "app_version": self.app_version,
            "schema_version": self.schema_version,
            "made_at": to_db_time(self.made_at),
            "patients": self.patients,
            "attempts": self.attempts,
            "files": self.files,
            "missing": list(self.missing),
        }
        return json.dumps(content, ensure_ascii=False, indent=1)


def _count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < _MAX_COUNT


def parse_manifest(raw: bytes) -> Manifest:
    """Read and check ``manifest.json``: every field has the type it must have.

    Raises:
        BackupFormatError: not this app's manifest, a wrong value, or a newer format.
    """
    try:
        data = json.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError) as exc:  # UnicodeDecodeError is a ValueError
        raise not_a_backup(f"manifest is not JSON: {exc!r}"[:300]) from None
    if not isinstance(data, dict) or data.get("app") != "therapy_app":
        raise not_a_backup("manifest is not this app's")
    version = data.get("format")
    if not isinstance(version, int) or not _count(version) or version < 1:
        raise not_a_backup(f"manifest format {version!r}"[:100])
    if version > FORMAT:
        raise newer_format(f"backup format {version}")
    files = data.get("files")
    if not isinstance(files, dict) or not all(
        isinstance(k, str) and isinstance(v, str) and _SHA256.match(v) for k, v in files.items()
    ):
        raise not_a_backup("manifest files: not a map of names to SHA-256")
    if DB_MEMBER not in files:
        raise not_a_backup("no database in the manifest")
    try:
        made_at = from_db_time(data.get("made_at"))
    except (ValueError, TypeError) as exc:
        raise not_a_backup(f"manifest made_at: {exc}"[:200]) from None
    missing = data.get("missing", [])
    app_version = data.get("app_version", "")
    schema = data.get("schema_version", 0)
    if made_at is None or not all(_count(data.get(k)) for k in ("patients", "attempts")):
        raise not_a_backup("manifest made_at, patients or attempts missing or of the wrong type")
    if not isinstance(missing, list) or not all(isinstance(m, str) for m in missing):
        raise not_a_backup("manifest missing: not a list of names")
    if not isinstance(app_version, str) or not _count(schema):
        raise not_a_backup("manifest app_version or schema_version of the wrong type")
    return Manifest(
        made_at=made_at,
        patients=data["patients"],
        attempts=data["attempts"],
        files=files,
        missing=tuple(missing),
        app_version=app_version,
        schema_version=schema,
        format=version,
    )


def member_path(name: str, *, voice: bool = True) -> PurePosixPath | None:
    """``name`` as a file under ``recordings/``, ``pending/`` or ``voice/``, or None.

    Refused: absolute paths, ``..`` and ``.``, empty parts, Windows separators
    and drives, control characters, names too long for the disk, the
    folders themselves (a file where a folder is expected), anything deeper
    than one level in the queue folder, and in ``voice/`` anything outside a
    ``patient-<id>/`` folder or deeper than :data:`MAX_VOICE_DEPTH`.

    Args:
        name: a name in the archive.
        voice: ``voice/`` names are allowed (format 2 and later).
    """
    path = PurePosixPath(name)
    if str(path) != name or path.is_absolute() or "\\" in name or ":" in name:
        return None
    if any(ord(c) < 32 for c in name) or len(name.encode("utf-8")) > MAX_PATH_BYTES:
        return None
    parts = path.parts
    folders = (RECORDINGS_DIR, PENDING_DIR, *((VOICE_FOLDER,) if voice else ()))
    if len(parts) < 2 or parts[0] not in folders:
        return None
    if parts[0] == PENDING_DIR and len(parts) != 2:
        return None
    if parts[0] == VOICE_FOLDER and not (
        3 <= len(parts) <= MAX_VOICE_DEPTH and _VOICE_PATIENT.match(parts[1])
    ):
        return None
    if any(p in (".", "..") or len(p.encode("utf-8")) > MAX_NAME_BYTES for p in parts):
        return None
    return path


@dataclass(frozen=True)
class Member:
    """A file of the archive to unpack.

    Attributes:
        name: its name in the archive.
        relative: where it goes, relative to the data folder.
        sha256: its hash in the manifest.
        size: its unpacked size, as the archive declares it.
    """

    name: str
    relative: PurePosixPath
    sha256: str
    size: int


def _member(zf: zipfile.ZipFile, name: str, relative: PurePosixPath, digest: str) -> Member:
    info = zf.getinfo(name)  # KeyError: not in the archive
    if info.is_dir() or info.compress_type not in _ALLOWED_COMPRESSION:
        raise not_a_backup(f"{name!r}: folder or compression {info.compress_type}")
    if info.flag_bits & 0x1:
        raise not_a_backup(f"{name!r}: ZIP-encrypted member")
    return Member(name, relative, digest, info.file_size)


def check_members(zf: zipfile.ZipFile, manifest: Manifest, archive_bytes: int) -> list[Member]:
    """The archive's files, checked against the manifest, each other and the size limit.

    The database comes first. Two names that would be the same file (one only
    differs in case), or a file and a folder of the same name
    (``recordings/a`` then ``recordings/a/b``), are refused.

    Raises:
        BackupFormatError: a name is unsafe, missing from the archive, clashes with
            another, or the archive unpacks to more than :data:`MAX_EXPANSION` times its size.
    """
    members = [_member(zf, DB_MEMBER, PurePosixPath(DB_MEMBER), manifest.files[DB_MEMBER])]
    folded: set[str] = set()
    folders: set[str] = set()
    for name, digest in manifest.files.items():
        if name == DB_MEMBER:
            continue
        relative = member_path(name, voice=manifest.format >= VOICE_FORMAT)
        if relative is None:
            raise not_a_backup(f"unsafe name in archive: {name!r}"[:300])
        key = name.casefold()
        if key in folded or key in folders:
            raise not_a_backup(f"{name!r} clashes with another name"[:300])
        folded.add(key)
        folders.update(p.as_posix().casefold() for p in relative.parents)
        members.append(_member(zf, name, relative, digest))
    if clash := folded & folders:
        raise not_a_backup(f"both a file and a folder: {sorted(clash)[:3]!r}"[:300])
    total = sum(m.size for m in members)
    if total > max(MIN_UNPACKED_LIMIT, MAX_EXPANSION * archive_bytes):
        raise not_a_backup(f"unpacks to {total} bytes from {archive_bytes}")
    return members


def open_archive(archive: Path, work: Path, passphrase: str | None) -> zipfile.ZipFile:
    """The backup as a ZIP archive, decrypted into ``work`` when it is encrypted.

    Raises:
        BackupFormatError: not a file, or not a ZIP archive.
        BackupPassphraseError: encrypted and no or a wrong passphrase.
        OSError: the file cannot be read, or ``work`` written.
    """
    if not archive.is_file():
        raise not_a_backup(f"{archive} is not a file")
    if backup_crypto.is_encrypted(archive):
        if not passphrase:
            raise backup_crypto.BackupPassphraseError(
                "Cette sauvegarde est protégée par un mot de passe.",
                "Indiquez le mot de passe choisi lors de la sauvegarde.",
                "encrypted backup without a passphrase",
            )
        plain = work / "backup.zip"
        backup_crypto.decrypt_file(archive, plain, passphrase)
        archive = plain
    if not zipfile.is_zipfile(archive):
        raise not_a_backup(f"{archive} is not a ZIP archive")
    return zipfile.ZipFile(archive)


def read_manifest(zf: zipfile.ZipFile) -> Manifest:
    """The archive's checked manifest, read with a size limit.

    Raises:
        BackupFormatError: no manifest, too large, or not a valid one.
    """
    try:
        info = zf.getinfo(MANIFEST)
    except KeyError:
        raise not_a_backup("no manifest") from None
    if info.file_size > MAX_MANIFEST_BYTES or info.compress_type not in _ALLOWED_COMPRESSION:
        raise not_a_backup(f"manifest of {info.file_size} bytes")
    with zf.open(info) as source:
        return parse_manifest(source.read(MAX_MANIFEST_BYTES + 1))
