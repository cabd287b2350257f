"""A patient's personal voice: the voice folder, the split, the rules, the trainer process."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest
from voice_fixtures import trainer_available, voice_decision

from therapy_app import paths
from therapy_app.errors import TherapyAppError
from therapy_app.model_store import sha256_file
from therapy_app.storage import SessionRepository
from therapy_app.voice import store
from therapy_app.voice.adaptation import MIN_SAMPLES, NotEnoughRecordingsError, plan_adaptation
from therapy_app.voice.model import AdaptProgress, VoiceFigures, VoiceSample
from therapy_app.voice.runner import (
    TrainerCommand,
    TrainerProcess,
    halting_adapter,
    parse_progress,
    write_manifest,
)
from therapy_app.voice.split import content_words, split_samples
from therapy_app.voice.validation import (
    GENERIC,
    PERSONAL_HEARING,
    PERSONAL_SCORING,
    Verdicts,
    adoption,
    figures,
    scoring_choice,
)

DATA = Path(__file__).resolve().parent / "data"


def _halting() -> Path | None:
    """The shipped halting-speech adapter: a real adapter file to stand for a personal one."""
    return halting_adapter(paths.build_models_dir() / "whisper-base-train")


def _figures(wer: float, words_right: float, ta: float | None = None) -> VoiceFigures:
    return VoiceFigures(wer=wer, words_right=words_right, items=10, verdict_true_accept=ta)


@pytest.fixture
def adapter(tmp_path: Path) -> Path:
    path = tmp_path / "trained" / "adapter.npz"
    path.parent.mkdir()
    path.write_bytes(os.urandom(256))
    return path


# -- the voice folder ----------------------------------------------------------------


def test_decision_round_trip_and_private_files(user_data_dir: Path, adapter: Path) -> None:
    assert store.last_decision(user_data_dir, 7) is None
    assert store.personal_model(user_data_dir, 7) is None
    decision = voice_decision(sha256_file(adapter), scoring=True)

    store.save_decision(user_data_dir, 7, decision, adapter)

    assert store.last_decision(user_data_dir, 7) == decision
    personal = store.personal_model(user_data_dir, 7)
    assert personal is not None and personal.scoring
    assert personal.sha256 == decision.adapter_sha256
    assert personal.adapter.read_bytes() == adapter.read_bytes()
    folder = store.voice_dir(user_data_dir, 7)
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    for name in (store.ADAPTER_FILE, store.DECISION_FILE):
        assert stat.S_IMODE((folder / name).stat().st_mode) == 0o600
    assert store.personal_model(user_data_dir, 8) is None  # another patient


def test_altered_adapter_is_never_used(user_data_dir: Path, adapter: Path) -> None:
    store.save_decision(user_data_dir, 1, voice_decision(sha256_file(adapter)), adapter)
    kept = store.voice_dir(user_data_dir, 1) / store.ADAPTER_FILE
    kept.write_bytes(kept.read_bytes()[:-1] + b"\0")
    assert store.personal_model(user_data_dir, 1) is None


def test_damaged_decision_means_generic(user_data_dir: Path, adapter: Path) -> None:
    store.save_decision(user_data_dir, 1, voice_decision(sha256_file(adapter)), adapter)
    (store.voice_dir(user_data_dir, 1) / store.DECISION_FILE).write_text("{not json")
    assert store.last_decision(user_data_dir, 1) is None
    assert store.personal_model(user_data_dir, 1) is None


def test_adopted_decision_needs_its_adapter(user_data_dir: Path, adapter: Path) -> None:
    with pytest.raises(ValueError):
        store.save_decision(user_data_dir, 1, voice_decision("0" * 64), adapter)
    with pytest.raises(ValueError):
        store.save_decision(user_data_dir, 1, voice_decision(sha256_file(adapter)), None)


def test_a_rejected_run_replaces_the_model_and_keeps_history(
    user_data_dir: Path, adapter: Path
) -> None:
    store.save_decision(user_data_dir, 2, voice_decision(sha256_file(adapter)), adapter)
    store.save_decision(user_data_dir, 2, voice_decision(None, adopted=False), adapter)

    assert store.personal_model(user_data_dir, 2) is None
    assert not (store.voice_dir(user_data_dir, 2) / store.ADAPTER_FILE).exists()
    (entry, earlier), *_ = store.history(user_data_dir, 2)
    assert earlier.adopted
    assert sha256_file(entry / store.ADAPTER_FILE) == earlier.adapter_sha256


def test_history_is_bounded(user_data_dir: Path) -> None:
    for _ in range(store.HISTORY_KEPT + 3):
        store.save_decision(user_data_dir, 3, voice_decision(None, adopted=False), None)
    assert len(store.history(user_data_dir, 3)) == store.HISTORY_KEPT


def test_revert_and_undo(user_data_dir: Path, adapter: Path) -> None:
    adopted = voice_decision(sha256_file(adapter), scoring=True)
    store.save_decision(user_data_dir, 4, adopted, adapter)

    reverted = store.revert(user_data_dir, 4)

    assert not reverted.adopted and not reverted.scoring
    assert reverted.reason == store.REVERT_REASON
    assert reverted.generic == adopted.generic  # the figures stay visible
    assert store.personal_model(user_data_dir, 4) is None
    assert store.last_decision(user_data_dir, 4) == reverted
    with pytest.raises(TherapyAppError, match="modèle général est déjà utilisé"):
        store.revert(user_data_dir, 4)

    assert store.undo_revert(user_data_dir, 4) == adopted
    personal = store.personal_model(user_data_dir, 4)
    assert personal is not None and personal.scoring
    with pytest.raises(TherapyAppError, match="mis de côté"):
        store.undo_revert(user_data_dir, 4)


def test_revert_without_personal_model(user_data_dir: Path) -> None:
    with pytest.raises(TherapyAppError):
        store.revert(user_data_dir, 5)
    store.save_decision(user_data_dir, 5, voice_decision(None, adopted=False), None)
    with pytest.raises(TherapyAppError):
        store.revert(user_data_dir, 5)


def test_lock_marks_a_run_and_refuses_a_second(user_data_dir: Path) -> None:
    assert not store.is_running(user_data_dir, 6)
    with store.adaptation_lock(user_data_dir, 6):
        assert store.is_running(user_data_dir, 6)
        with pytest.raises(store.AdaptationRunningError), store.adaptation_lock(user_data_dir, 6):
            pass
    assert not store.is_running(user_data_dir, 6)


def test_lock_of_another_process_and_of_a_dead_one(user_data_dir: Path) -> None:
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from pathlib import Path; from therapy_app.voice import store\n"
            "with store.adaptation_lock(Path(sys.argv[1]), 9):\n"
            "    print('held', flush=True); time.sleep(60)",
            str(user_data_dir),
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        assert store.is_running(user_data_dir, 9)
    finally:
        holder.kill()
        holder.wait()
    # Killed without cleaning up: the lock file is still there, the lock is not.
    assert (store.voice_dir(user_data_dir, 9) / store.LOCK_FILE).exists()
    assert not store.is_running(user_data_dir, 9)


def test_status_of_a_patient(user_data_dir: Path, adapter: Path) -> None:
    with SessionRepository(user_data_dir) as repository:
        patient = repository.patients.create("Jeanne Martin")
        status = store.voice_status(repository, patient.id)
        assert status.usable_total == 0 and status.decision is None
        assert not status.active and not status.running
        decision = voice_decision(sha256_file(adapter))
        store.save_decision(user_data_dir, patient.id, decision, adapter)
        status = store.voice_status(repository, patient.id)
    assert status.decision == decision and status.active


def test_find_patient_by_name(user_data_dir: Path) -> None:
    with SessionRepository(user_data_dir) as repository:
        jeanne = repository.patients.create("Jeanne Martin")
        repository.patients.create("Paul")
        repository.patients.create("paul ")
        assert store.find_patient(repository, "  jeanne martin ").id == jeanne.id
        with pytest.raises(TherapyAppError, match="Aucun patient"):
            store.find_patient(repository, "Marie")
        with pytest.raises(TherapyAppError, match="Plusieurs patients"):
            store.find_patient(repository, "Paul")


def test_too_few_recordings_refused_before_training(user_data_dir: Path) -> None:
    with SessionRepository(user_data_dir) as repository:
        patient = repository.patients.create("Jeanne")
        with pytest.raises(NotEnoughRecordingsError, match=f"au moins {MIN_SAMPLES}") as caught:
            plan_adaptation(repository, patient.id)
    assert "il y en a 0" in caught.value.user_message
    assert not (store.voice_dir(user_data_dir, patient.id) / store.WORK_DIR).exists()


# -- the split -----------------------------------------------------------------------

NOUNS = (
    "pomme maison chapeau voiture jardin fenêtre bateau cheval fromage soleil "
    "montagne crayon bouteille chaise table lampe oiseau fleur livre porte "
    "cuillère couteau verre assiette camion vélo train avion orange citron"
).split()


def _samples(texts: list[str]) -> list[VoiceSample]:
    return [VoiceSample(Path(f"/data/rec-{i:03d}.wav"), t, "imported") for i, t in enumerate(texts)]


def test_split_is_stable_and_holds_out_a_fifth() -> None:
    samples = _samples([f"le {n}" for n in NOUNS])
    first = split_samples(samples)
    again = split_samples(list(reversed(samples)))
    assert first == again
    assert len(first.held_out) == 6 and len(first.train) == 24
    assert {s.audio for s in first.train} | {s.audio for s in first.held_out} == {
        s.audio for s in samples
    }
    assert not {s.audio for s in first.train} & {s.audio for s in first.held_out}
    # Articles are said everywhere: the nouns alone decide what is unseen.
    assert first.unseen == len(first.held_out)


def test_split_holds_out_words_never_taught_when_it_can() -> None:
    # Every noun is said twice in sentences, except six said only once: those are held out.
    shared = [f"je vois le {a} et le {b}" for a, b in zip(NOUNS[:12], NOUNS[12:24], strict=True)]
    shared += [f"le {b} près du {a}" for a, b in zip(NOUNS[:12], NOUNS[12:24], strict=True)]
    alone = [f"un {n}" for n in NOUNS[24:]]
    split = split_samples(_samples(shared + alone))
    assert len(split.held_out) == 6
    assert {s.text for s in split.held_out} == set(alone)
    assert split.unseen == 6
    taught = set().union(*(content_words(s.text) for s in split.train))
    assert not taught & {n for n in NOUNS[24:]}


def test_split_keeps_recordings_of_the_same_words_together() -> None:
    texts = [n for n in NOUNS[:10] for _ in range(3)]  # each word recorded three times
    split = split_samples(_samples(texts))
    held = {s.text for s in split.held_out}
    assert held and not held & {s.text for s in split.train}
    assert len(split.held_out) == 6  # two words of three recordings
    assert split.unseen == len(split.held_out)


def test_split_at_least_five_held_out() -> None:
    split = split_samples(_samples(NOUNS[:MIN_SAMPLES]))
    assert len(split.held_out) == 5 and len(split.train) == MIN_SAMPLES - 5


def test_manifest(tmp_path: Path) -> None:
    import json

    samples = _samples(["le chat", "la pomme"])
    init = tmp_path / "halting-fr.npz"
    init.write_bytes(b"x")
    path = write_manifest(tmp_path / "manifest.json", samples, init)
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data == {
        "version": 1,
        "items": [
            {"audio": "/data/rec-000.wav", "text": "le chat"},
            {"audio": "/data/rec-001.wav", "text": "la pomme"},
        ],
        "init": str(init.resolve()),
        "seed": 0,
    }
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


# -- the rules -----------------------------------------------------------------------


def test_figures_pool_word_errors_and_count_single_words() -> None:
    measured = figures(
        [("le chat dort", "le chat dort"), ("pomme", "Pomme."), ("maison", "raison"), ("six", "")]
    )
    assert measured.items == 4
    assert measured.wer == pytest.approx(2 / 6)
    assert measured.words_right == pytest.approx(1 / 3)


@pytest.mark.parametrize(
    ("generic", "personal", "adopted", "said"),
    [
        (_figures(0.30, 0.40), _figures(0.12, 0.70), True, "12 % de mots mal reconnus contre 30 %"),
        (_figures(0.30, 0.40), _figures(0.28, 0.70), False, "n'est pas meilleur"),
        (
            _figures(0.30, 0.40),
            _figures(0.35, 0.40),
            False,
            "35 % de mots mal reconnus contre 30 %",
        ),
        (_figures(0.30, 0.40), _figures(0.30, 0.40), False, "n'est pas meilleur"),
        (_figures(0.30, 0.60), _figures(0.10, 0.50), False, "moins de mots isolés"),
        (_figures(0.0, 1.0), _figures(0.0, 1.0), False, "déjà sans erreur"),
        (_figures(0.30, 0.0), _figures(0.20, 0.0), True, "mieux"),
    ],
)
def test_adoption_rule(
    generic: VoiceFigures, personal: VoiceFigures, adopted: bool, said: str
) -> None:
    decided, reason = adoption(generic, personal)
    assert decided is adopted
    assert said in reason
    if not adopted:
        assert "gardé" in reason


def _ways(generic: Verdicts, hearing: Verdicts, scoring: Verdicts) -> dict[str, Verdicts]:
    return {GENERIC: generic, PERSONAL_HEARING: hearing, PERSONAL_SCORING: scoring}


@pytest.mark.parametrize(
    ("ways", "scoring"),
    [
        (_ways(Verdicts(6, 10, 1, 10), Verdicts(7, 10, 1, 10), Verdicts(9, 10, 1, 10)), True),
        (_ways(Verdicts(6, 10, 1, 10), Verdicts(7, 10, 1, 10), Verdicts(9, 10, 2, 10)), False),
        (_ways(Verdicts(6, 10, 0, 10), Verdicts(7, 10, 1, 10), Verdicts(9, 10, 1, 10)), False),
        (_ways(Verdicts(6, 10, 1, 10), Verdicts(7, 10, 1, 10), Verdicts(7, 10, 0, 10)), False),
        (_ways(Verdicts(6, 10, 0, 0), Verdicts(7, 10, 0, 0), Verdicts(9, 10, 0, 0)), False),
    ],
)
def test_scoring_rule(ways: dict[str, Verdicts], scoring: bool) -> None:
    decided, reason = scoring_choice(ways)
    assert decided is scoring
    assert ("juge aussi les réponses" in reason) is scoring


def test_verdict_counts() -> None:
    counted = Verdicts().add(True, False).add(False, True).add(True, None)
    assert counted == Verdicts(2, 3, 1, 2)
    assert counted.true_accept == pytest.approx(2 / 3) and counted.false_accept == 0.5


# -- the trainer process ---------------------------------------------------------------

# A stand-in trainer that keeps the real one's contract (JSON progress on stderr,
# SIGTERM or a cancel file, exit codes 0/2/3, adapter.npz) without torch.
STUB = textwrap.dedent(
    """
    import json, os, signal, sys, time
    from pathlib import Path

    args = sys.argv[1:]
    work = Path(args[args.index("--work") + 1])
    mode = (work / "mode").read_text()
    (work / "argv").write_text(json.dumps(args))
    stop = []
    deaf = mode == "deaf"  # ignores SIGTERM: only the cancel file stops it
    signal.signal(signal.SIGTERM, (lambda *a: None) if deaf else (lambda *a: stop.append(1)))

    def say(stage, done, total, eta=None, message=""):
        line = dict(stage=stage, done=done, total=total, eta_s=eta, message=message)
        print(json.dumps(line), file=sys.stderr, flush=True)

    print("INFO trainer: a log line", file=sys.stderr, flush=True)
    say("prepare", 0, 3, None, "Préparation")
    if mode == "bad":
        print("no such file", file=sys.stderr)
        sys.exit(2)
    for step in range(1, 3 if mode == "done" else 10000):
        if stop or (work / "cancel").exists():
            say("cancelled", step - 1, 3)
            sys.exit(3)
        say("train", step, 3, 1.5)
        time.sleep(0 if mode == "done" else 0.05)
    (work / "adapter.npz").write_bytes(b"adapter")
    say("done", 3, 3)
    """
)


def _stub(tmp_path: Path, mode: str) -> TrainerCommand:
    script = tmp_path / "stub_trainer.py"
    script.write_text(STUB)
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    (work / "mode").write_text(mode)
    return TrainerCommand(
        tmp_path / "manifest.json", work, max_steps=2, program=(sys.executable, str(script))
    )


def test_runner_relays_progress_of_a_real_process(tmp_path: Path) -> None:
    import json

    command = _stub(tmp_path, "done")
    seen: list[AdaptProgress] = []
    priorities: list[int] = []
    process = TrainerProcess(command, seen.append)
    process.start()
    assert process.pid is not None
    if hasattr(os, "getpriority"):
        try:
            priorities.append(os.getpriority(os.PRIO_PROCESS, process.pid))
        except OSError:
            pass  # already ended
    outcome = process.wait()

    assert outcome.returncode == 0 and not outcome.cancelled
    assert outcome.adapter == command.work / "adapter.npz"
    assert [p.stage for p in seen] == ["prepare", "train", "train", "done"]
    assert seen[0].message == "Préparation" and seen[1].eta_s == 1.5
    assert outcome.log_tail == ("INFO trainer: a log line",)
    argv = json.loads((command.work / "argv").read_text())
    assert argv[:1] == ["adapt"] and argv[argv.index("--threads") + 1] == "2"
    assert argv[argv.index("--max-steps") + 1] == "2"
    assert all(p >= 10 for p in priorities)


@pytest.mark.parametrize("mode", ["wait", "deaf"])
def test_runner_cancels_by_signal_or_file(tmp_path: Path, mode: str) -> None:
    command = _stub(tmp_path, mode)
    seen: list[AdaptProgress] = []
    process = TrainerProcess(command, seen.append)

    def relay(progress: AdaptProgress) -> None:
        seen.append(progress)
        if progress.stage == "train" and progress.done == 3:
            process.cancel()

    process._on_progress = relay
    start = time.monotonic()
    process.start()
    outcome = process.wait()

    assert outcome.cancelled and outcome.returncode == 3 and outcome.adapter is None
    assert seen[-1].stage == "cancelled"
    assert time.monotonic() - start < 30
    # The cancel file is removed when a run (the resumed one) starts again.
    assert (command.work / "cancel").exists()
    (command.work / "mode").write_text("done")
    resumed = TrainerProcess(command)
    resumed.start()
    assert not (command.work / "cancel").exists()
    assert resumed.wait().adapter is not None


def test_runner_reports_bad_input(tmp_path: Path) -> None:
    process = TrainerProcess(_stub(tmp_path, "bad"))
    process.start()
    ended = process.wait()
    assert ended.returncode == 2 and ended.adapter is None and not ended.cancelled
    assert "no such file" in ended.log_tail


@pytest.mark.parametrize(
    "line",
    ["INFO not progress", "{broken", '{"stage": "sleeping", "done": 1, "total": 2}', "[1, 2]"],
)
def test_other_stderr_lines_are_not_progress(line: str) -> None:
    assert parse_progress(line) is None


def test_progress_line() -> None:
    line = '{"stage": "train", "done": 3, "total": 10, "eta_s": 42.5, "message": "x"}'
    assert parse_progress(line) == AdaptProgress("train", 3, 10, 42.5, "x")


# -- real models -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def recognizers() -> tuple[Any, Any, Any]:
    """The generic recogniser, one 'personal' one running the shipped halting adapter, the VAD."""
    from therapy_app import model_store
    from therapy_app.asr.recognizer import SpeechRecognizer
    from therapy_app.vad.silero import VoiceActivityDetector
    from therapy_app.voice.model import PersonalModel

    halting = _halting()
    if model_store.find_model(model_store.ASR_MODEL) is None or halting is None:
        pytest.skip("speech models not built (python -m models.build)")
    same = PersonalModel(halting, sha256_file(halting), scoring=True)
    return (
        SpeechRecognizer.load(),
        SpeechRecognizer.load(personal=same),
        VoiceActivityDetector.load(),
    )


@pytest.mark.slow
def test_comparison_on_real_recordings(recognizers: tuple[Any, Any, Any]) -> None:
    """A 'personal' model that is the halting adapter itself hears exactly as the generic one.

    So the two transcripts agree item by item, the hearing-only way judges as the
    generic one, and the rule keeps the generic model (no gain).
    """
    from therapy_app.voice.validation import compare, figures_in_use

    generic, personal, vad = recognizers
    held = [
        VoiceSample(DATA / "human" / "lundi.wav", "lundi", "imported"),
        VoiceSample(DATA / "speech" / "word_01.wav", "pomme", "imported"),
        VoiceSample(DATA / "speech" / "sentence_03.wav", "Le chat dort sur le canapé.", "imported"),
    ]
    ticks: list[tuple[int, int]] = []
    comparison = compare(
        held,
        generic,
        personal,
        vad,
        on_item=lambda done, total: ticks.append((done, total)),
    )

    assert comparison is not None and ticks == [(1, 3), (2, 3), (3, 3)]
    assert [i.generic for i in comparison.items] == [i.personal for i in comparison.items]
    assert comparison.generic.wer == comparison.personal.wer
    assert comparison.generic.items == 3
    assert comparison.verdicts[GENERIC] == comparison.verdicts[PERSONAL_HEARING]
    for way in comparison.verdicts.values():
        assert way.right_targets == 3 and way.wrong_targets == 3
        assert way.false_accepts == 0  # "lundi" is never accepted as "pomme"
    assert comparison.verdicts[GENERIC].true_accepts >= 1  # the sentence, at least
    assert not adoption(comparison.generic, comparison.personal)[0]
    assert figures_in_use(comparison, scoring=True).verdict_true_accept == (
        comparison.verdicts[PERSONAL_SCORING].true_accept
    )


@pytest.mark.slow
def test_comparison_stops_between_recordings(recognizers: tuple[Any, Any, Any]) -> None:
    from therapy_app.voice.validation import compare

    generic, personal, vad = recognizers
    held = [VoiceSample(DATA / "human" / "six.wav", "six", "imported")] * 3
    stopped = compare(held, generic, personal, vad, should_stop=lambda: True)
    assert stopped is None


@pytest.mark.slow
def test_handle_cancels_a_real_trainer_and_keeps_its_work(
    tmp_path: Path, user_data_dir: Path
) -> None:
    """The GUI's path: start in a thread, poll, cancel; the lock goes, the work stays to resume."""
    import json

    from therapy_app.voice.adaptation import AdaptationCancelledError, start_adaptation
    from therapy_app.voice.importing import import_tsv

    if not trainer_available():
        pytest.skip("voice pack (torch and whisper-base-train) not installed")
    rows = [
        (DATA / "human" / e["file"], e["text"])
        for e in json.loads((DATA / "human" / "index.json").read_text())
    ]
    speech = json.loads((DATA / "speech" / "transcripts.json").read_text(encoding="utf-8"))
    rows += [(DATA / "speech" / name, entry["text"]) for name, entry in speech.items()]
    tsv = tmp_path / "liste.tsv"
    tsv.write_text("file\ttext\n" + "".join(f"{p}\t{t}\n" for p, t in rows), encoding="utf-8")
    with SessionRepository(user_data_dir) as repository:
        patient_id = import_tsv(repository, "Jeanne", tsv).patient_id
        handle = start_adaptation(repository, patient_id, max_steps=2)
    seen: list[AdaptProgress] = []
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and not handle.done:
        progress = handle.poll()
        if progress is not None:
            seen.append(progress)
            if progress.stage == "prepare" and progress.total > 0:  # the trainer's own report
                break
        time.sleep(0.1)
    assert store.is_running(user_data_dir, patient_id)
    handle.cancel()
    assert handle.wait(timeout=120)

    assert isinstance(handle.error, AdaptationCancelledError)
    assert handle.result() is None
    last = handle.poll()
    assert last is not None and last.stage == "cancelled" and "Relancez" in last.message
    assert not store.is_running(user_data_dir, patient_id)
    assert store.last_decision(user_data_dir, patient_id) is None
    work = store.voice_dir(user_data_dir, patient_id) / store.WORK_DIR
    assert (work / "run.json").is_file()  # kept: the next run resumes there


@pytest.mark.gui
def test_a_patients_exercises_use_their_personal_voice(qtbot: Any, user_data_dir: Path) -> None:
    """The window loads the chosen patient's adopted model; another patient gets the generic one."""
    pytest.importorskip("PySide6")
    from gui_fixtures import preloaded_steps

    from therapy_app.gui.main_window import MainWindow
    from therapy_app.practice.events import ExerciseKind
    from therapy_app.speech.loading import PERSONAL_VOICE_KEY
    from therapy_app.speech.services import SilentPlayer

    halting = _halting()
    if halting is None:
        pytest.skip("no adapter file to stand for a personal one")
    steps = preloaded_steps()  # skips when the models are not built
    with SessionRepository(user_data_dir) as repository:
        jeanne = repository.patients.create("Jeanne")
        paul = repository.patients.create("Paul")
        sha = sha256_file(halting)
        store.save_decision(user_data_dir, jeanne.id, voice_decision(sha, scoring=True), halting)
        window = MainWindow(repository, player=SilentPlayer(), load_steps=steps)
        qtbot.addWidget(window)
        try:
            qtbot.waitUntil(lambda: window.services is not None, timeout=120_000)
            generic = window.services
            assert generic is not None and generic.recognizer.personal is None

            window.select_patient(jeanne)
            # Loading her model is under way: no exercise starts with the generic one.
            assert window.start_exercise(ExerciseKind.REPETITION) is None
            opened: list[Any] = []

            def started() -> bool:
                opened.append(window.start_exercise(ExerciseKind.REPETITION))
                return opened[-1] is not None

            qtbot.waitUntil(started, timeout=60_000)
            screen = opened[-1]
            assert screen is not None
            services = screen.controller.services
            assert services.recognizer.personal is not None
            assert services.recognizer.personal.sha256 == sha
            assert services.recognizer.personal.scoring
            assert services.model_versions[PERSONAL_VOICE_KEY].endswith("+scoring")
            window.show_profiles()

            window.select_patient(paul)
            other = window.start_exercise(ExerciseKind.REPETITION)
            assert other is not None and other.controller.services is generic
            window.show_profiles()
        finally:
            window.shutdown()
