"""CHAT transcripts (``.cha``) of a patient's sessions, for analysis in CLAN.

One file per session, because CHAT allows one ``@Date`` and at most one
``@Media`` per transcript, while a patient's history spans many days and every
attempt has its own recording. With media, each session's recordings are
joined (0.5 s of silence between them) into one WAV named like the
transcript, and each utterance ends with a time bullet pointing into it, so
CLAN plays the utterance under the cursor.

Layout of a file::

    @UTF8
    @Begin
    @Languages:	fra
    @Participants:	PAR Participant, INV Investigator
    @ID:	fra|therapy_app|PAR|||||Participant|||
    @ID:	fra|therapy_app|INV|||||Investigator|||
    @Media:	patient3_20250314_s12, audio
    @Date:	14-MAR-2025
    @Situation:	Répétition de phrases
    @Comment:	...
    *PAR:	le chat dort . \x150_2380\x15
    %com:	cible : « Le chat dort. » ; ...
    @End

Files are de-identified: the patient is "PAR" and file names carry the
patient's number, not their name. One ``*PAR:`` line per attempt holds the
transcript in force (the therapist's correction when there is one); the
target, the correction, the chosen sentence and the repetition go to its
``%com`` tier. Main-line text follows CHAT rules: no capital at the start,
a space before the terminator (``.``, ``?``, ``!``, ``+...`` for a trailing
ellipsis), commas as separate tokens, a mid-utterance ellipsis as the pause
``(.)``, hesitations as fillers (``&-euh``), ``xxx`` when nothing was
understood. Numbers written as digits by the recogniser are kept as digits.
"""

from __future__ import annotations

import logging
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from therapy_app.analysis.closed_class import FILLERS
from therapy_app.audio.clip import AudioClip
from therapy_app.audio.wavio import read_wav, write_wav
from therapy_app.errors import TherapyAppError
from therapy_app.exports.files import atomic_text_writer
from therapy_app.exports.labels import exercise_label
from therapy_app.paths import PRIVATE_DIR_MODE
from therapy_app.storage import Attempt, SessionRepository, TherapySession

_LOGGER = logging.getLogger(__name__)

CORPUS = "therapy_app"
PARTICIPANT = "PAR"
INVESTIGATOR = "INV"
MEDIA_GAP_S = 0.5
"""Silence between two recordings in a session's joined media file."""

BULLET = "\x15"
"""CHAT media bullets are delimited by NAK (U+0015): ``\\x15start_end\\x15`` in ms."""

_MONTHS = ("JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC")
_APOSTROPHES = str.maketrans({"\u2019": "'", "\u02bc": "'", "\u2018": "'", "`": "'"})
# Recogniser annotations such as "[Musique]" or "(rires)" are not speech.
_ANNOTATION_RE = re.compile(r"\[[^\]]*\]|\((?!\.\))[^)]*\)")
_ELLIPSIS_RE = re.compile(r"(\.\s*){2,}|\u2026")
_TOKEN_RE = re.compile(r"\(\.\)|,|[^\W_](?:[\w'-]*[^\W_])?'?", re.UNICODE)


@dataclass(frozen=True)
class ChatUtterance:
    """One ``*PAR:`` line and its comment.

    Attributes:
        text: main-tier content with its terminator ("le chat dort .").
        comment: ``%com`` content, or None.
        bullet: start and end in the session media, in milliseconds, or None.
    """

    text: str
    comment: str | None = None
    bullet: tuple[int, int] | None = None


def chat_date(moment: datetime) -> str:
    """``DD-MON-YYYY`` in English month abbreviations, as CHAT's ``@Date`` wants."""
    local = moment.astimezone()
    return f"{local.day:02d}-{_MONTHS[local.month - 1]}-{local.year}"


def _is_filler(token: str) -> bool:
    return token.lower() in FILLERS or bool(re.fullmatch(r"e+u+h+|h+e+u+|h+m+|m+h+", token.lower()))


def main_line(text: str) -> str:
    """CHAT main-tier content for a transcript, terminator included.

    >>> main_line("Le chat... dort sur le canapé, euh...")
    'le chat (.) dort sur le canapé , &-euh +...'
    """
    clean = unicodedata.normalize("NFC", text).translate(_APOSTROPHES)
    clean = _ANNOTATION_RE.sub(" ", clean).strip()
    stripped = clean.rstrip()
    if re.search(r"(\.\s*){2,}$|\u2026$", stripped):
        terminator = "+..."
    elif stripped.endswith("?"):
        terminator = "?"
    elif stripped.endswith("!"):
        terminator = "!"
    else:
        terminator = "."
    body = _ELLIPSIS_RE.sub(" (.) ", clean)
    tokens: list[str] = []
    for token in _TOKEN_RE.findall(body):
        if token == "," and (not tokens or tokens[-1] in (",", "(.)")):
            continue
        if token == "(.)" and (not tokens or tokens[-1] == "(.)"):
            continue
        if token not in (",", "(.)") and _is_filler(token):
            token = "&-" + token.lower()
        tokens.append(token)
    # Pauses and commas at the end only restate the terminator.
    while tokens and tokens[-1] in (",", "(.)"):
        tokens.pop()
    words = [t for t in tokens if t not in (",", "(.)") and not t.startswith("&-")]
    if not words:
        # Nothing understood: CHAT's unintelligible-speech code, not an empty line.
        tokens = [t for t in tokens if t.startswith("&-")] + ["xxx"]
    else:
        first = next(i for i, t in enumerate(tokens) if t in words)
        word = tokens[first]
        # CHAT capitalises proper nouns only; keep acronyms ("SNCF") as they are.
        if not word.isupper() or len(word) == 1:
            tokens[first] = word[0].lower() + word[1:]
    return " ".join(tokens + [terminator])


def _quote(text: str) -> str:
    return "« " + " ".join(text.split()) + " »"


def attempt_comment(attempt: Attempt) -> str | None:
    """The ``%com`` text of an attempt: target, correction, chosen sentence, repetition."""
    record = attempt.record
    parts: list[str] = []
    if record.target_text:
        parts.append(f"cible : {_quote(record.target_text)}")
    if record.correction_best:
        parts.append(f"correction proposée : {_quote(record.correction_best)}")
    if record.chosen_sentence:
        parts.append(f"phrase choisie : {_quote(record.chosen_sentence)}")
    if attempt.repetition_transcript:
        parts.append(f"répétition : {_quote(attempt.repetition_transcript)}")
    if attempt.edited_transcript is not None:
        parts.append(f"transcription automatique : {_quote(record.raw_transcript or '-')}")
    if attempt.metrics.accuracy is not None:
        parts.append(f"précision : {round(attempt.metrics.accuracy * 100)} %")
    if attempt.success is not None:
        parts.append("réussite : " + ("oui" if attempt.success else "non"))
    return " ; ".join(parts) or None


def _id_line(code: str, role: str) -> str:
    # language|corpus|code|age|sex|group|SES|role|education|custom| (CHAT manual, @ID)
    fields = ("fra", CORPUS, code, "", "", "", "", role, "", "")
    return "@ID:\t" + "|".join(fields) + "|"


def session_transcript(
    session: TherapySession,
    utterances: Sequence[ChatUtterance],
    *,
    media_name: str | None = None,
) -> str:
    """The full text of one session's ``.cha`` file (lines joined by ``\\n``).

    Args:
        session: the session (date, exercise kind).
        utterances: its attempts in order, one ``*PAR:`` line each.
        media_name: media file name without extension, or None for no ``@Media``.
    """
    lines = [
        "@UTF8",
        "@Begin",
        "@Languages:\tfra",
        f"@Participants:\t{PARTICIPANT} Participant, {INVESTIGATOR} Investigator",
        _id_line(PARTICIPANT, "Participant"),
        _id_line(INVESTIGATOR, "Investigator"),
    ]
    if media_name:
        lines.append(f"@Media:\t{media_name}, audio")
    started = session.started_at.astimezone()
    lines += [
        f"@Date:\t{chat_date(session.started_at)}",
        f"@Situation:\t{exercise_label(session.exercise_kind)}",
        f"@Comment:\tséance n° {session.id} commencée à {started:%H:%M}, "
        f"{len(utterances)} essai(s), exportée par therapy_app",
    ]
    for utterance in utterances:
        line = f"*{PARTICIPANT}:\t{utterance.text}"
        if utterance.bullet is not None:
            start, end = utterance.bullet
            line += f" {BULLET}{start}_{end}{BULLET}"
        lines.append(line)
        if utterance.comment:
            lines.append(f"%com:\t{utterance.comment}")
    lines.append("@End")
    return "\n".join(lines) + "\n"


def _load_clip(repository: SessionRepository, attempt: Attempt) -> AudioClip | None:
    path = repository.attempts.recording_path(attempt)
    if path is None:
        return None
    try:
        return read_wav(path)
    except (TherapyAppError, OSError) as exc:
        # A missing or damaged recording must not block the transcript export.
        _LOGGER.warning("attempt %d: recording %s left out of the media: %s", attempt.id, path, exc)
        return None


def _joined_media(
    repository: SessionRepository, attempts: Sequence[Attempt]
) -> tuple[AudioClip | None, list[tuple[int, int] | None]]:
    pieces: list[AudioClip] = []
    bullets: list[tuple[int, int] | None] = []
    position = 0.0
    for attempt in attempts:
        clip = _load_clip(repository, attempt)
        if clip is None:
            bullets.append(None)
            continue
        if pieces:
            pieces.append(AudioClip.silence(MEDIA_GAP_S, clip.sample_rate))
            position += MEDIA_GAP_S
        pieces.append(clip)
        bullets.append((round(position * 1000), round((position + clip.duration) * 1000)))
        position += clip.duration
    if not pieces:
        return None, bullets
    return AudioClip.concatenate(pieces), bullets


def session_file_stem(session: TherapySession) -> str:
    """``patient<id>_<AAAAMMJJ>_s<session id>``: sorts by date, names no one."""
    return f"patient{session.patient_id}_{session.started_at.astimezone():%Y%m%d}_s{session.id}"


def export_patient_chat(
    repository: SessionRepository,
    patient_id: int,
    out_dir: Path,
    *,
    with_media: bool = True,
) -> list[Path]:
    """Write one ``.cha`` file per session of the patient that has attempts.

    Args:
        repository: the data.
        patient_id: whose sessions.
        out_dir: folder to write into (created if missing).
        with_media: also write each session's joined recordings as
            ``<stem>.wav`` and link the utterances to it.

    Returns:
        The transcripts written, oldest session first.

    Raises:
        OSError: the folder cannot be written.
        AudioInputError: a media file cannot be written.
    """
    out_dir = Path(out_dir)
    # A new folder is private like its files (0600, atomic writers); an
    # existing one chosen by the therapist keeps its permissions.
    out_dir.mkdir(mode=PRIVATE_DIR_MODE, parents=True, exist_ok=True)
    written: list[Path] = []
    for session in repository.sessions.all(patient_id):
        attempts = repository.attempts.all(session_id=session.id)
        if not attempts:
            continue
        stem = session_file_stem(session)
        media, bullets = (
            _joined_media(repository, attempts) if with_media else (None, [None] * len(attempts))
        )
        if media is not None:
            write_wav(out_dir / f"{stem}.wav", media)
        utterances = [
            ChatUtterance(main_line(a.transcript), attempt_comment(a), bullet)
            for a, bullet in zip(attempts, bullets, strict=True)
        ]
        text = session_transcript(
            session, utterances, media_name=stem if media is not None else None
        )
        path = out_dir / f"{stem}.cha"
        with atomic_text_writer(path) as handle:
            handle.write(text)
        written.append(path)
    _LOGGER.info("wrote %d CHAT files for patient %d to %s", len(written), patient_id, out_dir)
    return written
