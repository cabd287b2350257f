"""Picture naming without models: the bank, its answer forms and competitors, cues, the plan."""

from __future__ import annotations

from pathlib import Path

import pytest
from storage_fixtures import FakeClock, make_record

from therapy_app.analysis.answers import bare_answer
from therapy_app.naming.bank import default_bank, load_bank
from therapy_app.naming.candidates import accepted_answers, answer_forms, find_competitors
from therapy_app.practice import naming_plan
from therapy_app.practice.naming_cues import MAX_NAMING_LEVEL, naming_cue
from therapy_app.storage import SessionRepository


def test_the_bank_has_300_pictured_items_across_categories() -> None:
    bank = default_bank()
    assert len(bank.items) >= 300
    counts: dict[str, int] = {}
    for item in bank.items:
        counts[item.category] = counts.get(item.category, 0) + 1
        svg = bank.picture_path(item).read_text(encoding="utf-8")
        assert svg.lstrip().startswith("<svg"), item.id
        assert item.semantic_cue and item.word.lower() not in item.semantic_cue.lower(), item.id
        assert item.frequency_band in (1, 2, 3)
        # The phonemic cue never gives the whole word away.
        assert item.first_sounds and item.first_sounds != item.word, item.id
    for category in ("aliment", "maison", "vêtement", "animal", "corps", "transport", "lieu"):
        assert counts[category] >= 10, category
    assert counts["action"] >= 10
    assert {i.frequency_band for i in bank.items} == {1, 2, 3}


def test_determiner_forms_follow_gender_elision_and_aspirated_h() -> None:
    bank = default_bank()
    forms = {w: bank.by_word(w) for w in ("chat", "pomme", "arbre", "hibou", "horloge", "œil")}
    assert (forms["chat"].indefinite, forms["chat"].definite) == ("un chat", "le chat")
    assert forms["pomme"].definite == "la pomme" and forms["arbre"].definite == "l'arbre"
    assert forms["hibou"].definite == "le hibou"  # aspirated h: never "l'hibou"
    assert forms["horloge"].definite == "l'horloge"
    assert forms["œil"].plural == "des yeux"
    assert answer_forms(forms["chat"]) == ("chat", "un chat", "le chat", "une chat", "la chat")
    assert answer_forms(forms["arbre"]) == ("arbre", "un arbre", "l'arbre", "une arbre")
    assert answer_forms(forms["chat"], with_determiners=False) == ("chat",)
    assert "c'est un chat" in accepted_answers(forms["chat"])
    courir = bank.by_word("courir")
    assert courir.is_action and answer_forms(courir) == ("courir",)


def test_competitors_are_same_category_and_sound_alike() -> None:
    bank = default_bank()
    chat = bank.by_word("chat")
    found = find_competitors(chat, bank, errors=["chien", "un chat", "rat"])
    assert len(found.semantic) == 4 and all(c.category == "animal" for c in found.semantic)
    assert "chapeau" in [c.word for c in found.phonological]
    assert found.errors == ("chien", "rat")  # the answer itself is never a competitor
    forms = found.forms()
    assert "un chapeau" in forms and "une chien" in forms
    assert not set(forms) & set(answer_forms(chat))


def test_cue_hierarchy_gives_ever_more_of_the_word() -> None:
    bank = default_bank()
    chapeau = bank.by_word("chapeau")
    label = bank.categories[chapeau.category]
    cues = [naming_cue(chapeau, level, label) for level in range(MAX_NAMING_LEVEL + 1)]
    assert [c.level for c in cues] == [0, 1, 2, 3, 4]
    assert cues[0].display == "" and "chapeau" not in cues[0].spoken
    assert "vêtement" in cues[1].display and cues[1].spoken == cues[1].display
    assert cues[2].display == "C'est un cha…" and "chapeau" not in cues[2].spoken
    assert cues[3].display == "un chapeau" and "chapeau" not in cues[3].spoken  # read, not heard
    assert cues[4].spoken == "un chapeau"


def test_bare_answer_and_edited_verdicts_accept_any_determiner() -> None:
    assert bare_answer("C'est un chat.") == "chat"
    assert bare_answer("L’arbre !") == "arbre"
    assert bare_answer("une chat") == "chat"


def test_a_broken_bank_is_refused_in_french(tmp_path: Path) -> None:
    (tmp_path / "bank.json").write_text('{"format_version": 1, "items": [{}]}', encoding="utf-8")
    with pytest.raises(Exception) as error:
        load_bank(tmp_path)
    assert "dénomination" in error.value.french()  # type: ignore[attr-defined]


def _naming_session(repo: SessionRepository, patient: int, tries: list[tuple[str, int, bool, str]]):
    session = repo.sessions.start(patient, "naming")
    for word, level, success, said in tries:
        repo.attempts.add(
            make_record(
                session.id,
                kind="naming",
                target_text=word,
                cue_level=level,
                success=success,
                raw_transcript=said,
            )
        )
    repo.sessions.end(session.id)


def test_next_session_starts_each_picture_one_step_below_the_help_it_needed(
    tmp_path: Path,
) -> None:
    bank = default_bank()
    order = naming_plan.teaching_order(bank)
    first, second, third = (i.word for i in order[:3])
    clock = FakeClock()
    with SessionRepository(tmp_path, clock=clock) as repo:
        patient = repo.patients.create("Jeanne Martin").id
        assert [p.item.word for p in naming_plan.next_session(repo, patient, bank)][:3] == [
            first,
            second,
            third,
        ]
        _naming_session(
            repo,
            patient,
            [
                (first, 0, True, first),  # named alone
                (second, 0, False, "chien"),
                (second, 1, False, "chien"),
                (second, 2, True, second),  # needed the first syllable
                (third, 0, False, "truc"),
                (third, 1, False, "truc"),
                (third, 2, False, "truc"),
                (third, 3, False, "truc"),
                (third, 4, False, "truc"),  # not even after the model
            ],
        )
        plan = naming_plan.next_session(repo, patient, bank)
    by_word = {p.item.word: p for p in plan}
    assert len(plan) == naming_plan.SESSION_SIZE
    # Pictures that needed help come first, one step below what they needed.
    assert [p.item.word for p in plan[:2]] == [second, third]
    assert by_word[second].start_level == 1
    assert by_word[third].start_level == MAX_NAMING_LEVEL - 1  # the written word
    assert by_word[second].errors == ("chien",) and by_word[third].errors == ("truc",)
    assert first not in by_word  # mastered: new pictures come before it
    assert [p.start_level for p in plan[2:]] == [0] * (len(plan) - 2)


def test_a_therapist_edit_of_a_naming_transcript_accepts_the_determiner(
    tmp_path: Path,
) -> None:
    # The WER against the bare target counts any determiner as an error: the
    # naming rule must not, in the verdict nor in the stored measures.
    with SessionRepository(tmp_path, clock=FakeClock()) as repo:
        patient = repo.patients.create("Jeanne Martin").id
        session = repo.sessions.start(patient, "naming")
        for text, expected in (("un chat", True), ("C'est une chat.", True), ("chien", False)):
            attempt_id = repo.attempts.add(
                make_record(
                    session.id, kind="naming", target_text="chat", raw_transcript="sa",
                    success=False,
                )
            )  # fmt: skip
            edited = repo.attempts.edit_transcript(attempt_id, "transcript", text, "claire")
            assert edited.success is expected, text
            assert (edited.metrics.accuracy == 1.0) is expected, text


def test_history_levels_use_the_latest_session(tmp_path: Path) -> None:
    bank = default_bank()
    word = naming_plan.teaching_order(bank)[0].word
    clock = FakeClock()
    with SessionRepository(tmp_path, clock=clock) as repo:
        patient = repo.patients.create("Jeanne Martin").id
        _naming_session(repo, patient, [(word, 3, True, word)])
        clock.advance(days=1)
        _naming_session(repo, patient, [(word, 0, False, "x"), (word, 1, True, word)])
        histories = naming_plan.read_histories(repo, patient)
    assert histories[word].needed_level == 1 and histories[word].start_level == 0
    assert histories[word].last_practised == clock.now


def test_naming_progress_is_pictures_named_and_the_help_they_needed(tmp_path: Path) -> None:
    clock = FakeClock()
    with SessionRepository(tmp_path, clock=clock) as repo:
        patient = repo.patients.create("Jeanne Martin").id
        _naming_session(
            repo,
            patient,
            [
                ("chat", 0, True, "chat"),
                ("pomme", 0, False, "poire"),
                ("pomme", 1, False, "poire"),
                ("pomme", 2, True, "pomme"),
                ("vélo", 0, False, "x"),
                ("vélo", 4, False, "x"),
            ],
        )
        clock.advance(days=1)
        _naming_session(repo, patient, [("vélo", 3, True, "vélo")])
        named = repo.history.progress(patient, "naming_accuracy", "naming")
        help_needed = repo.history.progress(patient, "naming_cue_level", "naming")
        assert repo.history.progress(patient, "naming_accuracy", "repetition") == []
    assert [round(p.value, 3) for p in named] == [0.667, 1.0]  # 2 of 3 pictures, then 1 of 1
    assert [p.value for p in help_needed] == [1.0, 3.0]  # (0 + 2) / 2, then 3


def test_history_names_the_naming_cue_level(tmp_path: Path) -> None:
    pytest.importorskip("PySide6")
    from therapy_app.gui.therapist.history import cue_text

    with SessionRepository(tmp_path, clock=FakeClock()) as repo:
        patient = repo.patients.create("Jeanne Martin").id
        _naming_session(repo, patient, [("chat", 2, True, "chat")])
        session = repo.sessions.start(patient, "repetition")
        repo.attempts.add(make_record(session.id, cue_level=1))
        naming, repetition = repo.attempts.all(patient_id=patient)
    assert cue_text(naming) == "2 · premier son"
    assert cue_text(repetition) == "1"
