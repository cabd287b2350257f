"""The personal voice's data (issue 26): which tries teach what; enrolment, import, backups."""

from __future__ import annotations

import json
import os
import shutil
import stat
import wave
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
from restore_fixtures import MANIFEST, rewrite_backup
from storage_fixtures import FakeClock

from therapy_app.asr.recognizer import Transcript
from therapy_app.asr.utterance import HeardUtterance
from therapy_app.audio.clip import AudioClip
from therapy_app.audio.wavio import parse_header, read_wav, write_wav
from therapy_app.errors import AudioInputError
from therapy_app.practice.attempts import TryOutcome, free_speech_record, item_record
from therapy_app.practice.events import ExerciseKind
from therapy_app.practice.scoring import ScoreResult
from therapy_app.speech.chain import CorrectionResult
from therapy_app.storage import SessionRepository
from therapy_app.storage.backup import create_backup, restore_backup, voice_files
from therapy_app.storage.backup_format import BackupFormatError, member_path
from therapy_app.voice.enrolment import (
    INDEX_FILE,
    add_enrolment,
    enrolment_items,
    samples_dir,
    stored_samples,
    text_problem,
)
from therapy_app.voice.importing import VoiceImportError, import_tsv
from therapy_app.voice.model import VoiceSample, patient_voice_dir
from therapy_app.voice.samples import CLEAR_MIN_LOGPROB, usable_counts, usable_samples

DATA = Path(__file__).resolve().parent / "data"
HUMAN = DATA / "human"
SPEECH = DATA / "speech"
VERSIONS = {"whisper-base": "1.0"}


def _clip(path: Path) -> AudioClip:
    return read_wav(path)


def _heard(clip: AudioClip, text: str) -> HeardUtterance:
    transcript = Transcript(
        text=text,
        tokens=[],
        token_logprobs=[],
        avg_logprob=-0.3,
        no_speech_prob=0.01,
        audio_seconds=clip.duration,
        decode_seconds=0.1,
        provider="cpu",
    )
    return HeardUtterance(clip, clip, transcript, 0.0, 0.1)


def _result(success: bool, score: float | None, *, by_words: bool, margin: float = 2.0):
    return ScoreResult(
        success=success,
        stars=2 if success else 0,
        wer=0.0 if by_words else 1.0,
        matched="",
        target_logprob=None if score is None else score * 5,
        target_per_token=score,
        margin=margin,
        transcript_gap=0.0,
        rank=1,
        by_words=by_words,
        by_sound=success and not by_words,
    )


def _try(
    repo: SessionRepository,
    session_id: int,
    wav: Path,
    kind: ExerciseKind,
    target: str,
    heard: str,
    *,
    success: bool,
    score: float | None = -0.4,
    by_words: bool = True,
    versions: dict[str, str] = VERSIONS,
) -> int:
    """A try stored exactly as practice stores it (its recording written by the repository)."""
    clip = _clip(wav)
    outcome = TryOutcome(
        kind, _heard(clip, heard), _result(success, score, by_words=by_words), target, 0, None
    )
    return repo.attempts.add(item_record(session_id, outcome, "cpu", versions), clip)


def _by_attempt(samples: list[VoiceSample]) -> dict[int | None, tuple[str, str]]:
    return {s.attempt_id: (s.source, s.text) for s in samples if s.attempt_id is not None}


@dataclass(frozen=True)
class Try:
    """One practice try: its exercise, recording (under tests/data), target and what was heard."""

    kind: ExerciseKind
    recording: str
    target: str
    heard: str
    success: bool
    by_words: bool = True
    score: float = -0.4
    versions: tuple[tuple[str, str], ...] = (("whisper-base", "1.0"),)


R, N, C = ExerciseKind.REPETITION, ExerciseKind.NAMING, ExerciseKind.COMPLETION
CHAT = "Le chat dort sur le canapé."
TRIES = {
    "clear": Try(R, "speech/sentence_03.wav", CHAT, "le chat dort sur le canapé", True),
    # Right by the sound rule only: the transcript says something else.
    "by_sound": Try(R, "speech/telegraphic_06.wav", CHAT, "Le chador sur le canapé.", True, False),
    "unsure": Try(
        R,
        "speech/sentence_04.wav",
        "Je prends le train.",
        "Je prends le train.",
        True,
        score=CLEAR_MIN_LOGPROB - 0.3,
    ),  # fmt: skip
    "failed": Try(R, "speech/sentence_05.wav", "Ma fille vient.", "ma fille", False, False),
    "refused": Try(R, "speech/sentence_06.wav", "J'ai mal.", "J'ai mal.", True),
    "confirmed": Try(R, "speech/sentence_07.wav", "Il fait beau.", "il fait bo", False, False),
    # Naming: what was said is the transcript, determiner included.
    "named": Try(N, "speech/word_01.wav", "pomme", "Une pomme.", True),
    # Confirmed, but the transcript names another word: which form was said is unknown.
    "unlabelled": Try(N, "speech/word_02.wav", "maison", "Raison.", False, False),
    "answer": Try(C, "speech/word_03.wav", "téléphone", "le téléphone", True),
    # A success scored by the patient's own model never vouches for its own training.
    "own_model": Try(
        R,
        "speech/word_04.wav",
        "Bonjour.",
        "Bonjour.",
        True,
        versions=(("whisper-base", "1.0"), ("personal-voice", "sha")),
    ),  # fmt: skip
    # A wrong answer the therapist wrote down: the recording says "chameau", so does the label.
    "corrected": Try(N, "human/six.wav", "chapeau", "chapeau", True),
    "noted": Try(R, "human/dix.wav", "dix", "dix", True),
}


def test_each_try_teaches_only_the_words_someone_vouches_for(repo: SessionRepository) -> None:
    patient = repo.patients.create("Jeanne Dupont").id
    sessions = {kind: repo.sessions.start(patient, kind.value).id for kind in (R, N, C)}
    ids = {
        key: _try(
            repo, sessions[t.kind], DATA / t.recording, t.kind, t.target, t.heard,
            success=t.success, by_words=t.by_words, score=t.score, versions=dict(t.versions),
        )
        for key, t in TRIES.items()
    }  # fmt: skip
    repo.attempts.override_verdict(ids["refused"], False, "ortho")
    repo.attempts.override_verdict(ids["confirmed"], True, "ortho")
    repo.attempts.override_verdict(ids["unlabelled"], True, "ortho")
    repo.attempts.edit_transcript(ids["corrected"], "transcript", "un chameau", "ortho")
    repo.attempts.override_verdict(ids["corrected"], False, "ortho")
    repo.attempts.edit_transcript(ids["noted"], "transcript", "[inaudible]", "ortho")
    free = repo.sessions.start(patient, "free_speech").id
    for key, wav, heard in (
        ("free", "telegraphic_01.wav", "moi aller boulangerie"),
        ("edited_free", "telegraphic_02.wav", "femme manger pom"),
    ):
        clip = _clip(SPEECH / wav)
        record = free_speech_record(free, _heard(clip, heard), CorrectionResult(), None, "cpu", {})
        ids[key] = repo.attempts.add(record, clip)
    repo.attempts.edit_transcript(ids["edited_free"], "transcript", "femme manger pomme", "ortho")

    found = _by_attempt(usable_samples(repo, patient))
    assert {key: found.get(i) for key, i in ids.items() if i in found} == {
        "clear": ("clear_margin", CHAT),
        "confirmed": ("confirmed", "Il fait beau."),
        "named": ("clear_margin", "Une pomme."),
        "answer": ("clear_margin", "le téléphone"),
        "corrected": ("edited", "un chameau"),
        "edited_free": ("edited", "femme manger pomme"),
    }
    for sample in usable_samples(repo, patient):
        attempt = repo.attempts.get(sample.attempt_id or 0)
        assert sample.audio == repo.attempts.recording_path(
            attempt
        ) and repo.attempts.verify_recording(attempt)
    assert usable_counts(repo, patient) == {
        "edited": 2,
        "confirmed": 1,
        "enrolment": 0,
        "imported": 0,
        "clear_margin": 3,
    }


def test_a_later_edit_or_override_replaces_what_the_rule_taught(repo: SessionRepository) -> None:
    patient = repo.patients.create("Paul Martin").id
    session = repo.sessions.start(patient, "repetition").id
    wav = HUMAN / "lundi.wav"
    attempt = _try(repo, session, wav, ExerciseKind.REPETITION, "lundi", "lundi", success=True)
    assert _by_attempt(usable_samples(repo, patient)) == {attempt: ("clear_margin", "lundi")}
    # The therapist heard "mardi": the rule's label goes, theirs comes.
    repo.attempts.edit_transcript(attempt, "transcript", "mardi", "ortho")
    assert _by_attempt(usable_samples(repo, patient)) == {attempt: ("edited", "mardi")}
    other = _try(
        repo, session, HUMAN / "jeudi.wav", ExerciseKind.REPETITION, "jeudi", "jeudi", success=True
    )
    repo.attempts.override_verdict(other, False, "ortho")
    assert other not in _by_attempt(usable_samples(repo, patient))
    repo.attempts.override_verdict(other, None, "ortho")  # given back to the rule
    assert _by_attempt(usable_samples(repo, patient))[other] == ("clear_margin", "jeudi")


def test_a_missing_or_altered_recording_is_not_taught(repo: SessionRepository) -> None:
    patient = repo.patients.create("Paul Martin").id
    session = repo.sessions.start(patient, "repetition").id
    gone = _try(repo, session, HUMAN / "mardi.wav", R, "mardi", "mardi", success=True)
    altered = _try(repo, session, HUMAN / "jeudi.wav", R, "jeudi", "jeudi", success=True)
    kept = _try(repo, session, HUMAN / "onze.wav", R, "onze", "onze", success=True)
    path = repo.attempts.recording_path(repo.attempts.get(gone))
    assert path is not None
    path.unlink()
    path = repo.attempts.recording_path(repo.attempts.get(altered))
    assert path is not None
    write_wav(path, _clip(HUMAN / "dix.wav"))
    assert set(_by_attempt(usable_samples(repo, patient))) == {kept}


def test_the_same_recording_keeps_its_strongest_label(repo: SessionRepository) -> None:
    patient = repo.patients.create("Paul Martin").id
    session = repo.sessions.start(patient, "repetition").id
    wav = HUMAN / "fevrier.wav"
    first = _try(repo, session, wav, R, "février", "Février.", success=False, by_words=False)
    repo.attempts.override_verdict(first, True, "ortho")
    # The same audio stored again later (a replayed try), a clear success of the rule.
    _try(repo, session, wav, R, "février", "février", success=True)
    [sample] = usable_samples(repo, patient)
    assert (sample.source, sample.attempt_id) == ("confirmed", first)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_enrolment_keeps_every_item_and_teaches_the_accepted_ones(
    repo: SessionRepository,
) -> None:
    patient = repo.patients.create("Jeanne Dupont").id
    right = add_enrolment(repo, patient, _clip(HUMAN / "lundi.wav"), "  lundi ", True)
    wrong = add_enrolment(repo, patient, _clip(HUMAN / "mardi.wav"), "mardi", False)
    assert wrong is None and right is not None
    assert (right.source, right.text, right.attempt_id) == ("enrolment", "lundi", None)
    folder = samples_dir(repo.data_dir, patient)
    assert right.audio.parent == folder
    stored = stored_samples(repo.data_dir, patient)
    assert [(s.text, s.accepted, s.source) for s in stored] == [
        ("lundi", True, "enrolment"),
        ("mardi", False, "enrolment"),
    ]
    assert all(s.audio.is_file() for s in stored)  # the rejected recording is kept
    lines = [json.loads(line) for line in (folder / INDEX_FILE).read_text().splitlines()]
    assert {"file", "text", "source", "accepted", "created_at", "sha256"} <= set(lines[0])
    assert lines[0]["created_at"].startswith("2025-03-14T09:30")
    with right.audio.open("rb") as wav:
        assert parse_header(wav, right.audio.stat().st_size).sample_rate == 16_000
    assert usable_samples(repo, patient) == [right]
    if os.name == "posix":
        for path in (repo.data_dir / "voice", patient_voice_dir(repo.data_dir, patient), folder):
            assert _mode(path) == 0o700
        assert _mode(right.audio) == 0o600 and _mode(folder / INDEX_FILE) == 0o600
    # A damaged line and one torn by a crash are skipped; the next line still reads.
    with (folder / INDEX_FILE).open("ab") as index:
        index.write(b'{"file": "\xff\xfe"}\n{"file": "torn')
    third = add_enrolment(repo, patient, _clip(HUMAN / "jeudi.wav"), "jeudi", True)
    assert [s.text for s in stored_samples(repo.data_dir, patient)] == ["lundi", "mardi", "jeudi"]
    assert third in usable_samples(repo, patient)
    with pytest.raises(AudioInputError, match="trop court"):
        add_enrolment(repo, patient, AudioClip(np.full(1000, 0.1, np.float32)), "dix", True)
    with pytest.raises(KeyError):
        add_enrolment(repo, patient + 1, _clip(HUMAN / "dix.wav"), "dix", True)


def test_enrolment_items_are_varied_short_and_repeatable() -> None:
    items = enrolment_items()
    assert len(items) == 50 and len(set(items)) == 50 and items == enrolment_items()
    sentences = [i for i in items if i.endswith((".", "?", "!"))]
    assert 15 <= len(sentences) <= 25 and all(text_problem(i) is None for i in items)
    assert all(len(i.split()) <= 2 for i in items if i not in sentences)  # "une pomme"
    assert items[:3].count(sentences[0]) == 1  # words and sentences alternate from the start
    assert len(enrolment_items(10)) == 10 and enrolment_items(0) == []


def _write_tone(path: Path, seconds: float, rate: int = 16_000, channels: int = 1) -> None:
    frames = int(seconds * rate)
    tone = (0.2 * np.sin(np.arange(frames) * 2 * np.pi * 220 / rate)).astype(np.float32)
    pcm = (np.repeat(tone[:, None], channels, axis=1) * 32767).astype("<i2").tobytes()
    with wave.open(str(path), "wb") as wav:
        wav.setnchannels(channels)
        wav.setsampwidth(2)
        wav.setframerate(rate)
        wav.writeframes(pcm)


def test_import_creates_the_profile_and_skips_bad_lines(
    repo: SessionRepository, tmp_path: Path
) -> None:
    folder = tmp_path / "envoi"
    (folder / "clips").mkdir(parents=True)
    for name in ("six", "dix", "onze"):
        shutil.copy(HUMAN / f"{name}.wav", folder / "clips" / f"{name}.wav")
    _write_tone(folder / "clips" / "stereo44.wav", 1.5, rate=44_100, channels=2)
    _write_tone(folder / "clips" / "long.wav", 35.0)
    (folder / "clips" / "notes.wav").write_text("pas un son")
    rows = [
        "text\tfile",  # columns in any order
        "six\tclips/six.wav",
        "dix\tclips\\dix.wav",  # a list made on Windows
        "\tclips/onze.wav",
        "la\tclips/stereo44.wav",
        "trop long\tclips/long.wav",
        "absent\tclips/absent.wav",
        "pas un son\tclips/notes.wav",
        "six encore\tclips/six.wav",
        "seul",
        "",
    ]
    tsv = folder / "liste.tsv"
    tsv.write_bytes(b"\xef\xbb\xbf" + "\r\n".join(rows).encode("utf-8"))
    report = import_tsv(repo, "  Mme   Lefèvre ", tsv)
    assert report.created and report.added == 3 and report.patient_name == "Mme Lefèvre"
    [patient] = repo.patients.all()
    assert (patient.id, patient.display_name) == (report.patient_id, "Mme Lefèvre")
    reasons = dict(report.skipped)
    assert sorted(reasons) == [4, 6, 7, 8, 9, 10]
    assert "texte est vide" in reasons[4] and "30 s au plus" in reasons[6]
    assert "introuvable" in reasons[7] and "WAV" in reasons[8]
    assert "déjà à la ligne 2" in reasons[9] and "colonne" in reasons[10]
    assert "n'existait pas" in report.summary()[0] and "Ligne 4 ignorée" in report.summary()[2]
    samples = usable_samples(repo, report.patient_id)
    assert [(s.source, s.text) for s in samples] == [
        ("imported", "six"),
        ("imported", "dix"),
        ("imported", "la"),
    ]
    resampled = read_wav(samples[2].audio)
    assert resampled.sample_rate == 16_000 and abs(resampled.duration - 1.5) < 0.01
    # Again: the profile is found (case ignored) and nothing is added twice.
    again = import_tsv(repo, "mme lefèvre", tsv)
    assert (again.created, again.added, again.patient_id) == (False, 0, report.patient_id)
    assert "déjà dans la voix" in dict(again.skipped)[2]
    assert usable_counts(repo, report.patient_id)["imported"] == 3


def test_a_list_with_nothing_usable_changes_nothing(
    repo: SessionRepository, tmp_path: Path
) -> None:
    tsv = tmp_path / "liste.tsv"
    tsv.write_text("file\ttext\nabsent.wav\tbonjour\n", encoding="utf-8")
    with pytest.raises(VoiceImportError) as caught:
        import_tsv(repo, "Nouveau Patient", tsv)
    assert "Aucun enregistrement" in caught.value.user_message
    assert "introuvable" in caught.value.hint and "Rien n'a été importé" in caught.value.hint
    tsv.write_text("fichier;texte\nsix.wav;six\n", encoding="utf-8")
    with pytest.raises(VoiceImportError) as caught:
        import_tsv(repo, "Nouveau Patient", tsv)
    assert "« file » et « text »" in caught.value.user_message
    tsv.write_bytes(b"file\ttext\n\xff\xfe\n")
    with pytest.raises(VoiceImportError) as caught:
        import_tsv(repo, "Nouveau Patient", tsv)
    assert "UTF-8" in caught.value.user_message
    assert repo.patients.all() == [] and not (repo.data_dir / "voice").exists()


def _voice_state(data_dir: Path) -> dict[str, bytes]:
    root = data_dir / "voice"
    return {
        p.relative_to(data_dir).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()
    }


def test_backup_and_restore_carry_the_voice_folders(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    with SessionRepository(data_dir, clock=FakeClock()) as repo:
        patient = repo.patients.create("Jeanne Dupont").id
        add_enrolment(repo, patient, _clip(HUMAN / "lundi.wav"), "lundi", True)
        add_enrolment(repo, patient, _clip(HUMAN / "mardi.wav"), "mardi", False)
        voice = patient_voice_dir(data_dir, patient)
        (voice / "decision.json").write_text('{"adopted": true}')
        (voice / "adapter.npz").write_bytes(b"adapter" * 100)
        (voice / "history" / "20250314T093000Z").mkdir(parents=True)
        (voice / "history" / "20250314T093000Z" / "decision.json").write_text("{}")
        # Not saved: the trainer's work folder and lock, a half-written file, a link.
        (voice / "work").mkdir()
        (voice / "work" / "checkpoint.bin").write_bytes(b"x")
        (voice / "adapting.lock").write_text("123\n")
        (voice / ".adapter.npz.123.abc.tmp").write_bytes(b"half")
        (voice / "link.wav").symlink_to(HUMAN / "six.wav")
        saved = _voice_state(data_dir)
        info = create_backup(repo, tmp_path / "b.therapy-backup")
        before = usable_samples(repo, patient)
    expected = {
        n for n in saved if "/work/" not in n and not n.endswith(("lock", ".tmp", "link.wav"))
    }
    assert set(voice_files(data_dir)) == expected
    with zipfile.ZipFile(info.path) as zf:
        manifest = json.loads(zf.read("manifest.json"))
        assert {n for n in zf.namelist() if n.startswith("voice/")} == expected
    assert manifest["format"] == 2 and expected <= set(manifest["files"])
    # After the backup: one more recording (its line appended), the adapter lost.
    with SessionRepository(data_dir, clock=FakeClock()) as repo:
        add_enrolment(repo, patient, _clip(HUMAN / "jeudi.wav"), "jeudi", True)
    (voice / "adapter.npz").unlink()
    restore_backup(info.path, data_dir)
    restored = _voice_state(data_dir)
    assert {n: restored.get(n) for n in expected} == {n: saved[n] for n in expected}
    with SessionRepository(data_dir) as repo:
        assert [(s.text, s.source) for s in usable_samples(repo, patient)] == [
            (s.text, s.source) for s in before
        ]
    if os.name == "posix":
        assert _mode(data_dir / "voice") == 0o700
        assert _mode(samples_dir(data_dir, patient)) == 0o700


def test_a_restore_leaves_no_later_voice_file_in_place(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    with SessionRepository(data_dir, clock=FakeClock()) as repo:
        patient = repo.patients.create("Jeanne Dupont").id
        add_enrolment(repo, patient, _clip(HUMAN / "lundi.wav"), "lundi", True)
        info = create_backup(repo, tmp_path / "b.therapy-backup")
        # After the backup: a personal model the restored data never had.
        (patient_voice_dir(data_dir, patient) / "decision.json").write_text('{"adopted": true}')
    restore_backup(info.path, data_dir)
    assert not (patient_voice_dir(data_dir, patient) / "decision.json").exists()


def test_backups_without_voices_stay_readable_by_older_versions(tmp_path: Path) -> None:
    with SessionRepository(tmp_path / "data", clock=FakeClock()) as repo:
        repo.patients.create("Jeanne Dupont")
        info = create_backup(repo, tmp_path / "b.therapy-backup")
    with zipfile.ZipFile(info.path) as zf:
        assert json.loads(zf.read("manifest.json"))["format"] == 1


def test_voice_names_in_a_backup_are_checked(tmp_path: Path) -> None:
    assert member_path("voice/patient-3/samples/a.wav") is not None
    for bad in (
        "voice/a.wav",
        "voice/jeanne/a.wav",
        "voice/patient-3",
        "voice/patient-3/../x",
        "voice/patient-1/a/b/c/d/e.wav",
    ):
        assert member_path(bad) is None, bad
    assert member_path("voice/patient-3/a.wav", voice=False) is None
    # A format-1 backup never had voice files: one naming them is refused whole.
    with SessionRepository(tmp_path / "data", clock=FakeClock()) as repo:
        patient = repo.patients.create("Jeanne Dupont").id
        add_enrolment(repo, patient, _clip(HUMAN / "lundi.wav"), "lundi", True)
        info = create_backup(repo, tmp_path / "b.therapy-backup")
    forged = tmp_path / "forged.therapy-backup"
    rewrite_backup(info.path, forged, MANIFEST, lambda m: m.replace(b'"format": 2', b'"format": 1'))
    with pytest.raises(BackupFormatError):
        restore_backup(forged, tmp_path / "elsewhere")


def test_deleting_a_patient_deletes_their_voice(repo: SessionRepository) -> None:
    gone = repo.patients.create("Jeanne Dupont").id
    stays = repo.patients.create("Paul Martin").id
    for patient in (gone, stays):
        add_enrolment(repo, patient, _clip(HUMAN / "onze.wav"), "onze", True)
        (patient_voice_dir(repo.data_dir, patient) / "decision.json").write_text("{}")
    repo.patients.delete(gone, "ortho")
    assert not patient_voice_dir(repo.data_dir, gone).exists()
    assert [p.name for p in (repo.data_dir / "voice").iterdir()] == [f"patient-{stays}"]
    assert [s.text for s in usable_samples(repo, stays)] == ["onze"]


def test_a_patient_whose_voice_is_being_adapted_is_not_deleted(repo: SessionRepository) -> None:
    from therapy_app.voice.store import AdaptationRunningError, adaptation_lock

    patient = repo.patients.create("Jeanne Dupont").id
    add_enrolment(repo, patient, _clip(HUMAN / "onze.wav"), "onze", True)
    with adaptation_lock(repo.data_dir, patient), pytest.raises(AdaptationRunningError) as err:
        repo.patients.delete(patient, "ortho")
    assert "adaptation" in err.value.french()
    assert repo.patients.get(patient).id == patient
    assert [s.text for s in usable_samples(repo, patient)] == ["onze"]
    repo.patients.delete(patient, "ortho")  # the run is over: deleting works
    assert not patient_voice_dir(repo.data_dir, patient).exists()
