"""``therapy-app voice import``: recordings made elsewhere, listed in a TSV, added to a patient.

The list is UTF-8 text (a byte-order mark is dropped), tab-separated, with a
header line naming the columns ``file`` and ``text`` (others are ignored);
each file path is relative to the list's folder (an absolute one is taken as
it is; ``\\`` separators of a list made on Windows work). Every line is
checked before anything is written: the file is a regular WAV file of
:data:`~therapy_app.voice.enrolment.MIN_SAMPLE_S` to
:data:`~therapy_app.voice.enrolment.MAX_SAMPLE_S` seconds with sound in it,
read as the app reads recordings (any rate and channel count, to 16 kHz
mono); the text is words, not empty, not a note. A bad line is skipped with
a French reason; a list with no usable line is refused whole and changes
nothing (no profile is created). The patient is found by name (case and
spaces ignored) and created when missing; the report says so.
"""

from __future__ import annotations

import hashlib
import logging
import os
import struct
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from therapy_app.audio.clip import AudioClip
from therapy_app.audio.wavio import parse_header, read_wav, wav_bytes
from therapy_app.errors import AudioInputError, TherapyAppError
from therapy_app.input_files import open_regular, read_text
from therapy_app.storage.errors import StorageUnavailableError
from therapy_app.voice.enrolment import (
    MAX_SAMPLE_S,
    NewSample,
    clean_text,
    clip_problem,
    stored_samples,
    text_problem,
    write_samples,
)

if TYPE_CHECKING:
    from therapy_app.storage.repository import SessionRepository
    from therapy_app.storage.row_types import Patient

_LOGGER = logging.getLogger(__name__)

MAX_LIST_BYTES = 4 << 20
MAX_LINES = 10_000
FILE_COLUMN = "file"
TEXT_COLUMN = "text"


class VoiceImportError(TherapyAppError):
    """The list cannot be imported at all (nothing was changed)."""


@dataclass(frozen=True)
class ImportReport:
    """What an import did.

    Attributes:
        patient_id: the patient the recordings were added to.
        created: the patient's profile did not exist and was created.
        added: recordings added.
        skipped: (line number in the list, French reason) of each line left out.
        patient_name: the patient's name as stored.
    """

    patient_id: int
    created: bool
    added: int
    skipped: list[tuple[int, str]] = field(default_factory=list)
    patient_name: str = ""

    def summary(self) -> list[str]:
        """French lines for the command line: the profile, the count, each line skipped."""
        lines = []
        if self.created:
            lines.append(
                f"Le patient « {self.patient_name} » n'existait pas : son profil a été créé."
            )
        lines.append(
            f"{self.added} enregistrement(s) ajouté(s) à la voix de « {self.patient_name} »."
        )
        lines += [f"Ligne {number} ignorée : {reason}." for number, reason in self.skipped]
        return lines


@dataclass(frozen=True)
class _Line:
    number: int
    shown: str  # the path as written in the list
    path: Path
    text: str


def _refuse(message: str, hint: str, detail: str) -> VoiceImportError:
    return VoiceImportError(message, f"{hint} Rien n'a été importé.".strip(), detail)


def _columns(header: str, tsv: Path) -> tuple[int, int]:
    names = [name.strip().casefold() for name in header.split("\t")]
    if FILE_COLUMN not in names or TEXT_COLUMN not in names:
        raise _refuse(
            "La première ligne de la liste doit nommer les colonnes « file » et « text ».",
            "Séparez les colonnes par une tabulation (fichier TSV).",
            f"{tsv}: header {header[:100]!r}",
        )
    return names.index(FILE_COLUMN), names.index(TEXT_COLUMN)


def _resolve(shown: str, folder: Path) -> Path:
    if os.sep == "/":
        shown = shown.replace("\\", "/")
    path = Path(shown)
    return path if path.is_absolute() else folder / path


def _fragment(message: str) -> str:
    """A French sentence as a clause: "Le fichier est vide." -> "le fichier est vide"."""
    text = message.strip().rstrip(".")
    return text[:1].lower() + text[1:]


def _read_clip(path: Path) -> AudioClip:
    """The file as the app reads recordings, refused from its header when too long.

    Raises:
        AudioInputError: unreadable, not WAV, too long (French).
    """
    handle, size = open_regular(path, "le fichier audio", max_bytes=None, error=AudioInputError)
    try:
        with handle:
            info = parse_header(handle, size, path.name)
    except (OSError, struct.error, ValueError) as exc:
        raise AudioInputError(
            "Le fichier n'est pas un fichier WAV lisible.", "", f"{path}: {exc}"
        ) from exc
    if info.duration > MAX_SAMPLE_S:
        raise AudioInputError(
            f"L'enregistrement dure {info.duration:.0f} s ({MAX_SAMPLE_S:.0f} s au plus).",
            "",
            f"{path}: {info.duration:.1f} s",
        )
    return read_wav(path, max_duration_s=MAX_SAMPLE_S)


def _checked_clip(line: _Line) -> tuple[AudioClip | None, str | None]:
    """The line's recording, or why it cannot be used (French clause)."""
    try:
        clip = _read_clip(line.path)
    except AudioInputError as exc:
        return None, f"{_fragment(exc.user_message)} (« {line.shown} »)"
    problem = clip_problem(clip)
    if problem is not None:
        return None, f"{problem} (« {line.shown} »)"
    return clip, None


def _digest(clip: AudioClip) -> str:
    # The file written is wav_bytes(clip): its hash is known before writing.
    return hashlib.sha256(wav_bytes(clip)).hexdigest()


def _parse(tsv: Path) -> tuple[list[_Line], list[tuple[int, str]]]:
    """The list's usable lines (text checked, file not yet) and the lines skipped."""
    text = read_text(
        tsv, "la liste d'enregistrements", max_bytes=MAX_LIST_BYTES, error=VoiceImportError
    )
    rows = text.splitlines()
    numbered = [(n, row) for n, row in enumerate(rows, start=1) if row.strip()]
    if not numbered:
        raise _refuse("La liste d'enregistrements est vide.", "", f"{tsv}: empty")
    (_, header), body = numbered[0], numbered[1:]
    if len(body) > MAX_LINES:
        raise _refuse(
            f"La liste compte plus de {MAX_LINES} lignes.",
            "Importez-la en plusieurs fois.",
            f"{tsv}: {len(body)} lines",
        )
    file_at, text_at = _columns(header, tsv)
    lines: list[_Line] = []
    skipped: list[tuple[int, str]] = []
    seen: dict[Path, int] = {}
    for number, row in body:
        cells = row.split("\t")
        if len(cells) <= max(file_at, text_at):
            skipped.append((number, "il manque une colonne (séparez-les par une tabulation)"))
            continue
        shown = cells[file_at].strip()
        said = clean_text(cells[text_at])
        problem = text_problem(said)
        if not shown:
            skipped.append((number, "le nom du fichier est vide"))
            continue
        if problem is not None:
            skipped.append((number, f"{problem} (« {shown} »)"))
            continue
        path = _resolve(shown, tsv.parent)
        key = Path(os.path.abspath(path))
        if key in seen:
            skipped.append((number, f"« {shown} » est déjà à la ligne {seen[key]}"))
            continue
        seen[key] = number
        lines.append(_Line(number, shown, path, said))
    return lines, skipped


def _patient_named(repository: SessionRepository, name: str) -> Patient | None:
    wanted = name.casefold()
    found = [
        p
        for p in repository.patients.all(include_archived=True)
        if " ".join(p.display_name.split()).casefold() == wanted
    ]
    if len(found) > 1:
        raise _refuse(
            f"Plusieurs patients s'appellent « {name} ».",
            "Renommez-en un dans l'espace thérapeute.",
            f"{len(found)} patients named {name!r}",
        )
    return found[0] if found else None


def import_tsv(repository: SessionRepository, patient_name: str, tsv: Path) -> ImportReport:
    """Add the recordings listed in ``tsv`` to the patient's voice, as source "imported".

    Args:
        repository: the open data.
        patient_name: the patient's name; a new profile is created when no
            patient has it.
        tsv: the list (see the module docstring).

    Returns:
        The patient, whether they were created, how many recordings were
        added and each line skipped with its reason. A recording the patient
        already has (same audio) is skipped, so importing a list twice adds
        nothing the second time.

    Raises:
        VoiceImportError: the list cannot be read, has no ``file``/``text``
            header, or no usable line; several patients have the name (French;
            nothing changed).
        StorageUnavailableError: read-only data, full disk (French).
    """
    name = " ".join(patient_name.split())
    if not name:
        raise _refuse("Le nom du patient est vide.", "Indiquez-le avec --patient.", "no name")
    if repository.read_only:
        raise StorageUnavailableError(
            "Les données sont ouvertes en lecture seule : rien ne peut être importé.",
            "Vérifiez les droits d'accès au dossier des données.",
            "voice import: read-only mode",
        )
    tsv = Path(tsv)
    patient = _patient_named(repository, name)
    lines, skipped = _parse(tsv)
    known = (
        {s.sha256 for s in stored_samples(repository.data_dir, patient.id)} if patient else set()
    )
    usable: list[_Line] = []
    already = 0
    for line in lines:
        clip, problem = _checked_clip(line)
        if clip is None:
            skipped.append((line.number, problem or ""))
        elif (digest := _digest(clip)) in known:
            already += 1
            skipped.append((line.number, f"« {line.shown} » est déjà dans la voix du patient"))
        else:
            known.add(digest)
            usable.append(line)
    skipped.sort()
    if not usable and not already:
        examples = "; ".join(f"ligne {n} : {reason}" for n, reason in skipped[:3])
        raise _refuse(
            "Aucun enregistrement de la liste n'est utilisable.",
            f"Par exemple, {examples}." if examples else "",
            f"{tsv}: no usable line",
        )
    created = patient is None
    if patient is None:
        patient = repository.patients.create(name)
    rechecked: list[tuple[int, str]] = []

    def recordings() -> Iterator[NewSample]:
        # Read again rather than held: a list may name hours of audio.
        for line in usable:
            clip, problem = _checked_clip(line)
            if clip is None:  # changed since it was checked
                rechecked.append((line.number, problem or ""))
                continue
            yield NewSample(clip, line.text, "imported")

    added = write_samples(repository.data_dir, patient.id, recordings(), repository.now())
    _LOGGER.info(
        "voice import for patient %d: %d added, %d skipped (created=%s)",
        patient.id,
        len(added),
        len(skipped) + len(rechecked),
        created,
    )
    return ImportReport(
        patient.id, created, len(added), sorted(skipped + rechecked), patient.display_name
    )
