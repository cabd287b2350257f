"""CHAT export: headers CLAN expects, one utterance per attempt, media bullets into joined audio."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from therapy_app.audio.wavio import read_wav
from therapy_app.exports import export_patient_chat, main_line
from therapy_app.exports.chat_export import BULLET
from therapy_app.storage import SessionRepository

_BULLET_RE = re.compile(f"{BULLET}(\\d+)_(\\d+){BULLET}")

if TYPE_CHECKING:
    from therapist_fixtures import SeededHistory


@dataclass
class ChatFile:
    """A CHAT file as a small reader sees it."""

    headers: list[tuple[str, str]] = field(default_factory=list)
    utterances: list[tuple[str, str]] = field(default_factory=list)  # (speaker, text)
    dependents: list[tuple[int, str, str]] = field(default_factory=list)  # (utt index, tier, text)

    def header(self, name: str) -> list[str]:
        return [value for key, value in self.headers if key == name]


def read_chat(path: Path) -> ChatFile:
    """Parse the subset of CHAT we write, checking the structural rules on the way."""
    raw = path.read_bytes()
    assert not raw.startswith(b"\xef\xbb\xbf"), "CHAT files carry no byte-order mark"
    lines = raw.decode("utf-8").split("\n")
    assert lines[-1] == "", "file ends with a newline"
    lines = lines[:-1]
    assert lines[0] == "@UTF8" and lines[1] == "@Begin" and lines[-1] == "@End"
    chat = ChatFile()
    for line in lines[2:-1]:
        if line.startswith("@"):
            key, sep, value = line.partition(":\t")
            assert sep, f"header without colon-tab: {line!r}"
            chat.headers.append((key[1:], value))
        elif line.startswith("*"):
            speaker, sep, text = line[1:].partition(":\t")
            assert sep and re.fullmatch("[A-Z]{3}", speaker), line
            chat.utterances.append((speaker, text))
        elif line.startswith("%"):
            tier, sep, text = line[1:].partition(":\t")
            assert sep and chat.utterances, line
            chat.dependents.append((len(chat.utterances) - 1, tier, text))
        else:
            raise AssertionError(f"unexpected line {line!r}")
    return chat


def test_session_files_have_clan_headers(
    therapist_repo: SessionRepository, seeded_history: SeededHistory, tmp_path: Path
) -> None:
    paths = export_patient_chat(therapist_repo, seeded_history.patient.id, tmp_path / "chat")
    assert [p.suffix for p in paths] == [".cha"] * len(seeded_history.session_ids)
    total = 0
    for path, session_id in zip(paths, seeded_history.session_ids, strict=True):
        chat = read_chat(path)
        keys = [k for k, _ in chat.headers]
        # CHAT order: Languages, Participants, ID lines, Media, then the rest.
        assert keys[:5] == ["Languages", "Participants", "ID", "ID", "Media"]
        assert chat.header("Languages") == ["fra"]
        assert chat.header("Participants") == ["PAR Participant, INV Investigator"]
        ids = [value.split("|") for value in chat.header("ID")]
        assert all(len(fields) == 11 and fields[-1] == "" for fields in ids)
        assert [(f[0], f[2], f[7]) for f in ids] == [
            ("fra", "PAR", "Participant"),
            ("fra", "INV", "Investigator"),
        ]
        assert re.fullmatch(r"\d\d-[A-Z]{3}-\d{4}", chat.header("Date")[0])
        assert chat.header("Media") == [f"{path.stem}, audio"]
        attempts = therapist_repo.attempts.all(session_id=session_id)
        assert len(chat.utterances) == len(attempts)
        for (speaker, text), attempt in zip(chat.utterances, attempts, strict=True):
            assert speaker == "PAR"
            content = _BULLET_RE.sub("", text).rstrip()
            assert content == main_line(attempt.transcript)
            assert content.endswith((" .", " ?", " !", " +..."))
        total += len(chat.utterances)
        # Bullets point into the joined media, in order and without overlap.
        media = read_wav(path.with_suffix(".wav"))
        spans = [tuple(map(int, _BULLET_RE.search(t).groups())) for _, t in chat.utterances]
        assert spans[0][0] == 0
        assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:], strict=False))
        assert spans[-1][1] == pytest.approx(media.duration * 1000, abs=2)
    assert total == len(seeded_history.attempt_ids)


def test_comments_hold_target_and_correction(
    therapist_repo: SessionRepository, seeded_history: SeededHistory, tmp_path: Path
) -> None:
    first = seeded_history.attempt_ids[0]
    therapist_repo.attempts.edit_transcript(first, "transcript", "le chat dort canapé", "claire")
    paths = export_patient_chat(
        therapist_repo, seeded_history.patient.id, tmp_path, with_media=False
    )
    chat = read_chat(paths[0])
    assert "Media" not in [k for k, _ in chat.headers]
    assert chat.utterances[0] == ("PAR", "le chat dort canapé .")
    comments = {i: text for i, tier, text in chat.dependents if tier == "com"}
    assert "cible : « Le chat dort sur le canapé. »" in comments[0]
    assert "transcription automatique : « chat dormir canapé »" in comments[0]
    free = read_chat(paths[1])
    free_comment = [text for _, tier, text in free.dependents if tier == "com"][0]
    assert "phrase choisie : « Hier, je suis allé à la boulangerie. »" in free_comment
    assert "répétition : « hier je suis allé boulangerie »" in free_comment
    assert not list(tmp_path.glob("*.wav"))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Le chat dort sur le canapé.", "le chat dort sur le canapé ."),
        ("Je voudrais du pain, s'il vous plaît.", "je voudrais du pain , s'il vous plaît ."),
        ("Pouvez-vous fermer la fenêtre ?", "pouvez-vous fermer la fenêtre ?"),
        ("chat... canapé euh...", "chat (.) canapé &-euh +..."),
        ("", "xxx ."),
        ("[Musique]", "xxx ."),
        ("L\u2019homme (rires) mange", "l'homme mange ."),
        ("SNCF demain", "SNCF demain ."),
    ],
)
def test_main_line(text: str, expected: str) -> None:
    assert main_line(text) == expected
