"""The practice controller without Qt: real models, committed speech, attempts in SQLite."""

from __future__ import annotations

import pytest
from practice_fixtures import SpokenClips

from therapy_app.practice.controller import PracticeController
from therapy_app.practice.events import (
    AttemptSaved,
    Corrected,
    CueGiven,
    ErrorOccurred,
    ExerciseKind,
    Feedback,
    Heard,
    ItemPresented,
    Speaking,
    State,
    StateChanged,
)
from therapy_app.practice.scheduling import InlineScheduler
from therapy_app.speech.services import SilentPlayer, SpeechServices

pytestmark = pytest.mark.slow


def _controller(kind, services, repository, events):
    patient = repository.patients.create("Jeanne Martin")
    controller = PracticeController(kind, services, repository, patient.id, InlineScheduler())
    controller.subscribe(events.append)
    return controller


def _states(events):
    return [e.state for e in events if isinstance(e, StateChanged)]


def test_repetition_failure_gives_a_cue_then_success_is_stored(
    services: SpeechServices, spoken: SpokenClips, repository, silent_player: SilentPlayer
):
    events: list = []
    controller = _controller(ExerciseKind.REPETITION, services, repository, events)
    controller.begin()
    first = next(e for e in events if isinstance(e, ItemPresented))
    assert first.prompt == "Bonjour." and first.level == 1
    assert controller.state is State.AWAITING_REPETITION
    normal = silent_player.played[-1]

    spoken.say("word_01.wav")  # "pomme": wrong
    controller.toggle_recording()
    feedback = [e for e in events if isinstance(e, Feedback)]
    assert feedback[-1].success is False and not feedback[-1].item_finished
    cue = next(e for e in events if isinstance(e, CueGiven)).cue
    assert cue.level == 1 and "lentement" in cue.message
    assert silent_player.played[-1].duration > normal.duration  # said again, slower
    assert controller.state is State.AWAITING_REPETITION

    spoken.say("word_04.wav")  # "bonjour"
    controller.toggle_recording()
    feedback = [e for e in events if isinstance(e, Feedback)]
    assert feedback[-1].success is True and feedback[-1].item_finished
    assert feedback[-1].message in ("Très bien !", "Bravo ! C'est parfait.")
    assert controller.state is State.FEEDBACK
    assert [State.RECORDING, State.RECOGNISING, State.SCORING, State.FEEDBACK] == [
        s
        for s in _states(events)
        if s in (State.RECORDING, State.RECOGNISING, State.SCORING, State.FEEDBACK)
    ][-4:]

    saved = [e for e in events if isinstance(e, AttemptSaved)]
    assert len(saved) == 2
    stored = repository.attempts.all(session_id=controller.session_id)
    assert [a.success for a in stored] == [False, True]
    assert [a.record.cue_level for a in stored] == [0, 1]
    second = stored[1].record
    assert second.target_text == "Bonjour."
    assert "onjour" in second.raw_transcript
    assert second.token_logprobs and second.target_logprob is not None
    assert second.model_versions.get("whisper-base") and second.provider
    assert second.pause_ratio is not None and second.duration_s > 0
    assert repository.attempts.verify_recording(stored[1])

    controller.confirm()  # Enter: next sentence
    assert [e for e in events if isinstance(e, ItemPresented)][-1].index == 1
    controller.end()
    assert repository.sessions.get(controller.session_id).ended_at is not None


def _utterance_to_proposals(controller, spoken: SpokenClips, events: list) -> Corrected:
    spoken.say("telegraphic_02.wav")  # "femme manger pomme"
    controller.toggle_recording()
    assert controller.state is State.REVIEWING
    return [e for e in events if isinstance(e, Corrected)][-1]


def _at_proposals(services, spoken: SpokenClips, repository):
    """Free speech begun, "femme manger pomme" said: the controller, its events, the proposals."""
    events: list = []
    controller = _controller(ExerciseKind.FREE_SPEECH, services, repository, events)
    controller.begin()
    return controller, events, _utterance_to_proposals(controller, spoken, events)


def test_free_speech_loop_stores_utterance_choice_and_repetition(
    services: SpeechServices, spoken: SpokenClips, repository
):
    events: list = []
    controller = _controller(ExerciseKind.FREE_SPEECH, services, repository, events)
    controller.begin()
    assert controller.state is State.IDLE

    corrected = _utterance_to_proposals(controller, spoken, events)
    heard = next(e for e in events if isinstance(e, Heard))
    # Three words heard (the recogniser's accuracy is measured by benchmarks/: with
    # the halting-speech adapters this clip reads "femme manger bonne").
    assert len(heard.text.split()) == 3 and not heard.is_repetition
    assert 1 <= len(corrected.proposals) <= 3
    assert corrected.corrected is (services.corrector is not None)

    assert controller.confirm()  # Enter: the first proposal
    chosen = corrected.proposals[0].text
    assert controller.state is State.AWAITING_REPETITION
    # The patient repeats the chosen sentence: the real voice says it.
    spoken.say_clip(services.synthesizer.synthesize(chosen))
    controller.toggle_recording()
    feedback = [e for e in events if isinstance(e, Feedback)][-1]
    assert feedback.success and feedback.item_finished
    assert not [e for e in events if isinstance(e, ErrorOccurred)]

    stored = repository.attempts.all(session_id=controller.session_id)
    assert [a.record.kind for a in stored] == ["free_speech", "repetition"]
    utterance, repetition = stored
    assert utterance.record.chosen_sentence == chosen
    assert utterance.record.raw_transcript == heard.text  # stored as heard
    assert utterance.record.timings is not None and utterance.record.timings.asr_s > 0
    assert utterance.metrics.word_count >= 3
    # The utterance came before the choice: it is not a try at it.
    assert utterance.success is None and utterance.metrics.wer is None
    assert repetition.record.target_text == chosen and repetition.success is True
    assert repetition.record.raw_transcript and repetition.record.cue_level == 0
    assert repository.attempts.verify_recording(utterance) and repository.attempts.verify_recording(
        repetition
    )
    assert utterance.record.recording_path != repetition.record.recording_path


def test_leaving_the_proposals_stores_no_choice_and_no_score(
    services: SpeechServices, spoken: SpokenClips, repository
):
    controller, events, corrected = _at_proposals(services, spoken, repository)
    assert corrected.proposals
    assert controller.next_item()  # "Suivant" without choosing
    assert controller.state is State.IDLE
    controller.end()

    stored = repository.attempts.all(session_id=controller.session_id)
    assert len(stored) == 1  # stored once, not again when leaving
    record = stored[0].record
    heard = next(e for e in events if isinstance(e, Heard))
    assert record.kind == "free_speech" and record.raw_transcript == heard.text
    # The corrector ran (it ships with the app): its proposals are stored as offered.
    assert [c.text for c in record.correction_alternatives] == [p.text for p in corrected.proposals]
    assert record.correction_best is not None
    # Before: proposal 1 was stored as chosen and the utterance scored against it.
    assert record.chosen_sentence is None and record.repetition_transcript is None
    assert stored[0].success is None
    assert stored[0].metrics.wer is None and stored[0].metrics.accuracy is None
    summary = repository.history.summaries(controller.patient_id)[0]
    assert summary.success_rate is None and summary.mean_wer is None


def test_every_free_speech_try_is_stored_with_its_recording(
    services: SpeechServices, spoken: SpokenClips, repository
):
    controller, events, corrected = _at_proposals(services, spoken, repository)
    assert controller.choose(0)
    chosen = corrected.proposals[0].text

    spoken.say("word_01.wav")  # "pomme": a miss, a cue follows
    controller.toggle_recording()
    assert [e for e in events if isinstance(e, Feedback)][-1].success is False
    assert controller.state is State.AWAITING_REPETITION
    spoken.say_clip(services.synthesizer.synthesize(chosen))
    controller.toggle_recording()
    assert [e for e in events if isinstance(e, Feedback)][-1].success is True
    controller.end()

    stored = repository.attempts.all(session_id=controller.session_id)
    assert [a.record.kind for a in stored] == ["free_speech", "repetition", "repetition"]
    utterance, miss, hit = stored
    assert [miss.success, hit.success] == [False, True]
    assert [miss.record.cue_level, hit.record.cue_level] == [0, 1]
    repetitions_heard = [e.text for e in events if isinstance(e, Heard) and e.is_repetition]
    assert [miss.record.raw_transcript, hit.record.raw_transcript] == repetitions_heard
    assert miss.record.raw_transcript  # "Poon."
    assert all(a.record.target_text == chosen for a in (miss, hit))
    assert all(repository.attempts.verify_recording(a) for a in stored)
    assert len({a.record.recording_path for a in stored}) == 3
    summary = repository.history.summaries(controller.patient_id)[0]
    assert summary.attempt_count == 3 and summary.success_rate == 0.5
    # The session's length of utterance is the spontaneous utterance's, not the repetitions'.
    assert summary.mean_word_count == utterance.metrics.word_count


def test_completion_item_is_scored_against_its_answer(
    services: SpeechServices, spoken: SpokenClips, repository
):
    events: list = []
    controller = _controller(ExerciseKind.COMPLETION, services, repository, events)
    controller.begin()
    controller.present(controller.index_of("bonjour"))
    presented = [e for e in events if isinstance(e, ItemPresented)][-1]
    assert "…" in presented.prompt and presented.target == "bonjour"

    spoken.say("word_04.wav")
    controller.toggle_recording()
    feedback = [e for e in events if isinstance(e, Feedback)][-1]
    assert feedback.success
    stored = repository.attempts.all(session_id=controller.session_id)
    assert stored[-1].record.kind == "completion" and stored[-1].record.success


def test_silence_is_not_an_attempt(services: SpeechServices, spoken: SpokenClips, repository):
    import numpy as np

    from therapy_app.audio.clip import AudioClip

    events: list = []
    controller = _controller(ExerciseKind.FREE_SPEECH, services, repository, events)
    controller.begin()
    spoken.say_clip(AudioClip(np.zeros(16000, np.float32)))
    controller.toggle_recording()
    assert controller.state is State.IDLE
    assert not repository.attempts.all(session_id=controller.session_id)


def _halting_clip():
    """ "Bonjour", a 2.5 s word-finding pause, "pomme" (committed recordings)."""
    from practice_fixtures import SPEECH_DIR

    from therapy_app.audio.clip import AudioClip
    from therapy_app.audio.wavio import read_wav

    first = read_wav(SPEECH_DIR / "word_04.wav")
    second = read_wav(SPEECH_DIR / "word_01.wav")
    return first, AudioClip.concatenate([first, AudioClip.silence(2.5), second])


@pytest.mark.parametrize(
    ("trailing_silence_ms", "cut_off"),
    [(None, False), (1800, True)],  # the default; the old default cut at the pause
)
def test_a_word_finding_pause_does_not_end_the_recording(
    services: SpeechServices, spoken: SpokenClips, repository, trailing_silence_ms, cut_off
):
    from therapy_app.practice.controller import PracticeSettings

    first, halting = _halting_clip()
    settings = (
        PracticeSettings()
        if trailing_silence_ms is None
        else PracticeSettings(trailing_silence_ms=trailing_silence_ms)
    )
    events: list = []
    patient = repository.patients.create("Jeanne Martin")
    controller = PracticeController(
        ExerciseKind.FREE_SPEECH,
        services,
        repository,
        patient.id,
        InlineScheduler(),
        None,
        settings,
    )
    controller.subscribe(events.append)
    controller.begin()
    spoken.say_clip(halting)
    controller.toggle_recording()
    heard = next(e for e in events if isinstance(e, Heard))
    # The stored clip runs from the first to the last speech heard.
    if cut_off:
        assert heard.duration_s < first.duration + 1.0
    else:
        assert heard.duration_s > first.duration + 2.5


def test_the_patient_ends_the_recording_explicitly(
    services: SpeechServices, repository, silent_player: SilentPlayer
):
    import threading

    from practice_fixtures import shared_engines

    from therapy_app import pause_tolerance
    from therapy_app.audio.recorder import FileAudioSource, Recorder, StopReason
    from therapy_app.practice.controller import PracticeSettings
    from therapy_app.speech.loading import assemble

    first, halting = _halting_clip()
    # Real time, as from a microphone that stays open: only the patient can end it.
    source = FileAudioSource(halting, realtime=True, trailing_silence_s=30.0)
    recorder = Recorder(source)
    live = assemble(dict(shared_engines()), recorder_factory=lambda: recorder, player=silent_player)
    events: list = []
    patient = repository.patients.create("Jeanne Martin")
    # The longest tolerance: only the patient's key can end this recording early.
    settings = PracticeSettings(trailing_silence_ms=pause_tolerance.MAX_MS)
    controller = PracticeController(
        ExerciseKind.FREE_SPEECH, live, repository, patient.id, InlineScheduler(), None, settings
    )
    controller.subscribe(events.append)
    controller.begin()
    # Space again once both words are said (InlineScheduler: recording blocks this thread).
    timer = threading.Timer(halting.duration + 0.5, controller.stop_recording)
    timer.start()
    try:
        assert controller.toggle_recording()
    finally:
        timer.cancel()
    assert recorder.stop_reason is StopReason.MANUAL
    assert recorder.elapsed < halting.duration + 2.0
    heard = next(e for e in events if isinstance(e, Heard))
    assert heard.duration_s > first.duration + 2.5
    assert controller.state is State.REVIEWING


def test_each_proposal_can_be_heard_before_choosing(
    services: SpeechServices, spoken: SpokenClips, repository, silent_player: SilentPlayer
):
    controller, events, corrected = _at_proposals(services, spoken, repository)
    played_before = len(silent_player.played)
    for index, proposal in enumerate(corrected.proposals):
        assert controller.hear_proposal(index)
        assert [e for e in events if isinstance(e, Speaking)][-1].text == proposal.text
        assert controller.state is State.REVIEWING  # still choosing, nothing chosen
    assert len(silent_player.played) == played_before + len(corrected.proposals)
    assert not controller.hear_proposal(len(corrected.proposals))
    assert not repository.attempts.all(session_id=controller.session_id)  # no choice yet
    assert controller.choose(len(corrected.proposals) - 1)
    assert controller.state is State.AWAITING_REPETITION
    assert not controller.hear_proposal(0)  # the choice is made
