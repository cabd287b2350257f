"""The « Enregistrer la voix » session and the patient's own recordings folder (``samples.jsonl``).

Recordings made for the personal model outside practice (the enrolment
session, imports) live in ``<voice dir>/samples/``: one 16 kHz mono WAV per
item, written atomically, and one JSON line per item in ``samples.jsonl``
(file, text, source, accepted, created_at, sha256, duration_s). An item the
therapist marked wrong stays on disk and in the list (``accepted`` false)
but is never taught. Lines are only ever appended, in one write per call, so
two writers (the therapist area and the command line) never lose each
other's lines; a line torn by a crash is skipped when read, and a line whose
file is missing or altered is not usable (:mod:`therapy_app.voice.samples`).
"""

from __future__ import annotations

import json
import logging
import os
import re
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from therapy_app.analysis.metrics import words
from therapy_app.atomic import fsync_dir
from therapy_app.audio.clip import SAMPLE_RATE, AudioClip
from therapy_app.audio.resample import resample
from therapy_app.audio.wavio import write_wav
from therapy_app.errors import AudioInputError
from therapy_app.exercises import default_content
from therapy_app.input_files import read_bytes
from therapy_app.model_store import sha256_file
from therapy_app.naming.bank import NamingItem, default_bank
from therapy_app.paths import PRIVATE_FILE_MODE, ensure_private_dir
from therapy_app.storage.errors import StorageUnavailableError, translate_os_error
from therapy_app.storage.row_codec import from_db_time, to_db_time
from therapy_app.voice.model import VoiceSample, patient_voice_dir

if TYPE_CHECKING:
    from therapy_app.storage.repository import SessionRepository

_LOGGER = logging.getLogger(__name__)

SAMPLES_DIR = "samples"
INDEX_FILE = "samples.jsonl"
MAX_INDEX_BYTES = 64 << 20
"""A line is ~250 bytes: 64 MiB is far more recordings than a patient makes."""
MIN_SAMPLE_S = 0.3
MAX_SAMPLE_S = 30.0
"""Whisper hears 30 s at a time: a longer recording cannot be one training item."""
MAX_TEXT_CHARS = 400

FolderSource = Literal["enrolment", "imported"]
FOLDER_SOURCES: tuple[FolderSource, ...] = ("enrolment", "imported")

# "[inaudible]", "(rires)", "xxx" (CHAT's unintelligible word), "???": a note, not speech.
_NOTE = re.compile(r"[\[\]()<>{}*#]|\?\?|\bx{3,}\b", re.IGNORECASE)
_SHA256 = re.compile(r"^[0-9a-f]{64}$")
_FILE_NAME = re.compile(r"^[0-9a-f]{32}\.wav$")


@dataclass(frozen=True)
class StoredSample:
    """One line of ``samples.jsonl``.

    Attributes:
        audio: the WAV file (absolute).
        text: the words said.
        source: "enrolment" (the therapist marked it) or "imported".
        accepted: taught only when True (an enrolment item marked wrong is False).
        created_at: when it was stored (UTC).
        sha256: the file's hash when it was written.
        duration_s: its length in seconds.
    """

    audio: Path
    text: str
    source: FolderSource
    accepted: bool
    created_at: datetime
    sha256: str
    duration_s: float

    def as_voice_sample(self) -> VoiceSample:
        """The sample as the personal model learns from it."""
        return VoiceSample(self.audio, self.text, self.source)


@dataclass(frozen=True)
class NewSample:
    """A recording to add to the folder (see :func:`write_samples`)."""

    clip: AudioClip
    text: str
    source: FolderSource
    accepted: bool = True


def samples_dir(data_dir: Path, patient_id: int) -> Path:
    """``<data dir>/voice/patient-<id>/samples`` (not created)."""
    return patient_voice_dir(data_dir, patient_id) / SAMPLES_DIR


def clean_text(text: str) -> str:
    """``text`` on one line with single spaces (a label is compared word for word)."""
    return " ".join(text.split())


def text_problem(text: str) -> str | None:
    """Why ``text`` cannot label a recording (French), or None."""
    if not words(text):
        return "le texte est vide"
    if len(text) > MAX_TEXT_CHARS:
        return f"le texte est trop long (plus de {MAX_TEXT_CHARS} caractères)"
    if any(ord(c) < 32 for c in text):
        return "le texte contient des caractères de contrôle"
    if _NOTE.search(text):
        return "le texte est une remarque, pas des paroles (crochets, « xxx », « ?? »)"
    return None


def clip_problem(clip: AudioClip) -> str | None:
    """Why ``clip`` cannot be a training recording (French), or None."""
    if clip.duration < MIN_SAMPLE_S:
        return f"l'enregistrement est trop court ({clip.duration:.1f} s)"
    if clip.duration > MAX_SAMPLE_S:
        return f"l'enregistrement dure {clip.duration:.0f} s ({MAX_SAMPLE_S:.0f} s au plus)"
    if clip.peak == 0.0:
        return "l'enregistrement ne contient aucun son"
    return None


def _line_sample(folder: Path, data: object) -> StoredSample | None:
    if not isinstance(data, dict):
        return None
    name, text, source = data.get("file"), data.get("text"), data.get("source")
    accepted, digest, duration = data.get("accepted"), data.get("sha256"), data.get("duration_s")
    if not (isinstance(name, str) and _FILE_NAME.match(name)):
        return None  # a plain name of ours: never a path out of the folder
    if not (isinstance(text, str) and text.strip()) or source not in FOLDER_SOURCES:
        return None
    if not isinstance(accepted, bool) or not (isinstance(digest, str) and _SHA256.match(digest)):
        return None
    if not isinstance(duration, int | float) or isinstance(duration, bool):
        return None
    try:
        created = from_db_time(data.get("created_at"))
    except (TypeError, ValueError):
        return None
    if created is None:
        return None
    return StoredSample(folder / name, text, source, accepted, created, digest, float(duration))


def stored_samples(data_dir: Path, patient_id: int) -> list[StoredSample]:
    """Every readable line of the patient's ``samples.jsonl``, oldest first, rejected ones too.

    A damaged line (torn by a crash, not UTF-8, not ours) is skipped and
    logged, never the whole list. Whether each file is still there and
    unaltered is not checked here (:func:`therapy_app.voice.samples.usable_samples` does).

    Raises:
        InputFileError: the list is not a regular file or is too large (French).
    """
    folder = samples_dir(data_dir, patient_id)
    index = folder / INDEX_FILE
    if not index.is_file():
        return []
    data = read_bytes(index, "la liste des enregistrements de la voix", max_bytes=MAX_INDEX_BYTES)
    found: list[StoredSample] = []
    for number, line in enumerate(data.split(b"\n"), start=1):
        if not line.strip():
            continue
        try:
            sample = _line_sample(folder, json.loads(line.decode("utf-8")))
        except (ValueError, RecursionError):  # UnicodeDecodeError is a ValueError
            sample = None
        if sample is None:
            _LOGGER.warning("%s line %d unreadable: skipped", index, number)
            continue
        found.append(sample)
    return found


def _append(index: Path, lines: list[str]) -> None:
    """Append ``lines`` to ``index`` in one write, flushed to disk."""
    payload = "".join(line + "\n" for line in lines).encode("utf-8")
    created = not index.exists()
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_BINARY", 0)
    fd = os.open(index, flags, PRIVATE_FILE_MODE)
    try:
        if not created and os.fstat(fd).st_size:
            with index.open("rb") as existing:
                existing.seek(-1, os.SEEK_END)
                if existing.read(1) != b"\n":
                    # A line torn by a crash would swallow this one: start a new line.
                    payload = b"\n" + payload
        view = memoryview(payload)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
    finally:
        os.close(fd)
    if created:
        fsync_dir(index.parent)


def _mono_16k(clip: AudioClip) -> AudioClip:
    if clip.sample_rate == SAMPLE_RATE:
        return clip
    return AudioClip(resample(clip.samples, clip.sample_rate, SAMPLE_RATE), SAMPLE_RATE)


def write_samples(
    data_dir: Path, patient_id: int, new: Iterable[NewSample], when: datetime
) -> list[StoredSample]:
    """Write the recordings into the patient's samples folder, then list them, all or none.

    The WAV files are written first (each atomically, 16 kHz mono 16-bit,
    ``new`` consumed one recording at a time), hashed as they are on disk,
    then every line is appended at once. On a
    failure the files this call wrote are removed again: no file without its
    line, no line without its file.

    Raises:
        StorageUnavailableError: the disk is full or read-only (French).
        AudioInputError: a file could not be written for another reason.
    """
    folder = samples_dir(data_dir, patient_id)
    written: list[Path] = []
    stored: list[StoredSample] = []
    try:
        ensure_private_dir(folder)
        for item in new:
            clip = _mono_16k(item.clip)
            target = folder / f"{uuid.uuid4().hex}.wav"
            write_wav(target, clip)
            written.append(target)
            stored.append(
                StoredSample(
                    target,
                    clean_text(item.text),
                    item.source,
                    item.accepted,
                    when,
                    sha256_file(target),
                    round(clip.duration, 3),
                )
            )
        if stored:
            _append(folder / INDEX_FILE, [_line(s) for s in stored])
    except BaseException as exc:
        for path in written:
            path.unlink(missing_ok=True)
        cause = exc.__cause__ if isinstance(exc, AudioInputError) else exc
        if isinstance(cause, OSError):
            translated = translate_os_error(cause, f"writing voice samples of patient {patient_id}")
            if translated is not cause:
                raise translated from exc
        raise
    return stored


def _line(sample: StoredSample) -> str:
    return json.dumps(
        {
            "file": sample.audio.name,
            "text": sample.text,
            "source": sample.source,
            "accepted": sample.accepted,
            "created_at": to_db_time(sample.created_at),
            "sha256": sample.sha256,
            "duration_s": sample.duration_s,
        },
        ensure_ascii=False,
        sort_keys=True,
    )


def add_enrolment(
    repository: SessionRepository, patient_id: int, clip: AudioClip, text: str, accepted: bool
) -> VoiceSample | None:
    """Store one item of the « Enregistrer la voix » session as the therapist marked it.

    Args:
        repository: the open data (its folder and clock).
        patient_id: the patient who repeated ``text``.
        clip: their recording.
        text: what the model said and the patient repeated.
        accepted: the therapist marked it right; a wrong one is kept and
            listed but never taught.

    Returns:
        The sample the personal model will learn from, or None for a rejected item.

    Raises:
        KeyError: unknown patient.
        ValueError: ``text`` cannot label a recording (empty, control characters).
        AudioInputError: the recording is too short, too long or silent (French).
        StorageUnavailableError: read-only data, full disk (French).
    """
    repository.patients.get(patient_id)
    if repository.read_only:
        raise StorageUnavailableError(
            "Les données sont ouvertes en lecture seule : rien ne peut être enregistré.",
            "Vérifiez les droits d'accès au dossier des données, puis relancez l'application.",
            "enrolment: read-only mode",
        )
    label = clean_text(text)
    problem = text_problem(label)
    if problem is not None:
        raise ValueError(f"enrolment text unusable ({problem}): {text!r}")
    problem = clip_problem(clip)
    if problem is not None:
        raise AudioInputError(
            f"L'enregistrement n'a pas été gardé : {problem}.",
            "Faites répéter l'élément encore une fois.",
            f"enrolment clip of patient {patient_id}: {problem}",
        )
    [stored] = write_samples(
        repository.data_dir,
        patient_id,
        [NewSample(clip, label, "enrolment", accepted)],
        repository.now(),
    )
    _LOGGER.info("patient %d: enrolment item stored (accepted=%s)", patient_id, accepted)
    return stored.as_voice_sample() if accepted else None


# -- the items to repeat --------------------------------------------------------

SENTENCE_SHARE = 0.4
"""Short and medium sentences among the items (the rest are picture names)."""
MAX_WORD_PHONEMES = 6


def _spread(items: Sequence[str], count: int) -> list[str]:
    """``count`` items taken evenly across ``items`` (greetings and dates are not all first)."""
    if count <= 0 or not items:
        return []
    count = min(count, len(items))
    return [items[i * len(items) // count] for i in range(count)]


def _pairs(phon: str) -> set[str]:
    return {phon[i : i + 2] for i in range(len(phon) - 1)}


def _words_by_sounds(pictures: Sequence[NamingItem], count: int) -> list[NamingItem]:
    """Short frequent picture names chosen greedily for the sounds they add.

    Patients with aphasia repeat frequent one- or two-syllable words most
    easily, so the pool is the bank's frequent single words of at most
    :data:`MAX_WORD_PHONEMES` phonemes (then the others, should it run out).
    Each next word adds the most phonemes not yet heard, then the most new
    pairs of phonemes (Lexique transcriptions), bank order last: the
    patient's model hears every French sound early.
    """

    def easy(p: NamingItem) -> bool:
        return p.frequency_band == 1 and " " not in p.word and len(p.phon) <= MAX_WORD_PHONEMES

    pool = [p for p in pictures if easy(p)] + [p for p in pictures if not easy(p)]
    chosen: list[NamingItem] = []
    sounds: set[str] = set()
    pairs: set[str] = set()
    while pool and len(chosen) < count:
        best = max(
            range(len(pool)),
            key=lambda i: (
                easy(pool[i]),
                len(set(pool[i].phon) - sounds),
                len(_pairs(pool[i].phon) - pairs),
                -i,
            ),
        )
        picture = pool.pop(best)
        chosen.append(picture)
        sounds |= set(picture.phon)
        pairs |= _pairs(picture.phon)
    return chosen


def enrolment_items(count: int = 50) -> list[str]:
    """The texts of the « Enregistrer la voix » session, in the order they are said.

    About 60 % picture names with their determiner ("une pomme"; an action
    alone: "courir"), chosen for the sounds they cover (:func:`_words_by_sounds`),
    and 40 % short and medium sentences of the repetition lists, taken evenly
    across each list; words and sentences alternate. Deterministic: the same
    items for every patient, so their figures compare.
    """
    if count <= 0:
        return []
    content = default_content()
    sentences = round(count * SENTENCE_SHARE)
    short = _spread(content.level(1).sentences, (sentences + 1) // 2)
    medium = _spread(content.level(2).sentences, sentences - len(short))
    said = [s for pair in zip(short, medium, strict=False) for s in pair]
    said += short[len(medium) :] + medium[len(short) :]
    pictures = _words_by_sounds(default_bank().items, count - len(said))
    names = [p.indefinite or p.word for p in pictures]
    total = len(names) + len(said)
    out: list[str] = []
    given = 0  # sentences placed so far
    for position in range(total):
        # The sentences spread evenly among the words (two words, a sentence...).
        if given < len(said) and (position + 1) * len(said) // total > given:
            out.append(said[given])
            given += 1
        else:
            out.append(names[position - given])
    return out
