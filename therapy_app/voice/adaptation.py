"""One adaptation to a patient's voice: split, train in a separate process, validate, decide.

Blocking for the command line (:func:`adapt_blocking`), or in a thread with a
handle the GUI polls (:func:`start_adaptation`); no Qt here.
"""

from __future__ import annotations

import json
import logging
import shutil
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from therapy_app import model_store, voice_pack
from therapy_app.errors import TherapyAppError
from therapy_app.voice import store
from therapy_app.voice.model import AdaptProgress, PersonalModel, VoiceDecision, VoiceSample
from therapy_app.voice.runner import (
    EXIT_BAD_INPUT,
    TRAIN_REPORT,
    TrainerCommand,
    TrainerProcess,
    halting_adapter,
    write_manifest,
)
from therapy_app.voice.split import Split, split_samples
from therapy_app.voice_pack import TrainerLaunch

if TYPE_CHECKING:
    from therapy_app.storage import SessionRepository
    from therapy_app.voice.validation import Comparison

_LOGGER = logging.getLogger(__name__)

MIN_SAMPLES = 20
"""Fewer usable recordings teach too little and leave too few to check the result on."""
TRAINER_THREADS = 2
"""The trainer uses two cores (the target PC has two; practice stays usable at low priority)."""

ProgressCallback = Callable[[AdaptProgress], None]


class NotEnoughRecordingsError(TherapyAppError):
    """Too few usable recordings to adapt (and to check the result)."""


class AdaptationCancelledError(TherapyAppError):
    """The adaptation was stopped; starting it again resumes the training."""


def _cancelled() -> AdaptationCancelledError:
    return AdaptationCancelledError(
        "L'adaptation de la reconnaissance a été arrêtée.",
        "Relancez-la : l'apprentissage reprendra où il s'était arrêté.",
    )


# -- one run -----------------------------------------------------------------------


@dataclass(frozen=True)
class AdaptationPlan:
    """What one run will do, checked before anything starts.

    Attributes:
        data_dir: the data folder (the voice folder is inside).
        patient_id: whose voice.
        split: the recordings to learn from and those to check on.
        trainer: how to start the trainer (the voice pack, or the app's own Python).
    """

    data_dir: Path
    patient_id: int
    split: Split
    trainer: TrainerLaunch


def plan_adaptation(repository: SessionRepository, patient_id: int) -> AdaptationPlan:
    """Gather the patient's usable recordings and check that a run can start.

    Raises:
        NotEnoughRecordingsError: fewer than :data:`MIN_SAMPLES` usable recordings.
        VoicePackMissing: the training runtime is not installed (« Pack voix non installé. »).
        store.AdaptationRunningError: a run for this patient is under way.
    """
    from therapy_app.voice.samples import usable_samples

    samples = usable_samples(repository, patient_id)
    if len(samples) < MIN_SAMPLES:
        raise NotEnoughRecordingsError(
            f"Il faut au moins {MIN_SAMPLES} enregistrements utilisables pour adapter la "
            f"reconnaissance à ce patient ; il y en a {len(samples)}.",
            "Continuez les exercices, enregistrez la voix dans l'espace thérapeute "
            "ou importez des enregistrements.",
        )
    trainer = voice_pack.find_trainer()
    _LOGGER.info("%s", trainer.describe())
    if store.is_running(repository.data_dir, patient_id):
        raise store.AdaptationRunningError(
            "Une adaptation de la reconnaissance est déjà en cours pour ce patient.",
            "Attendez qu'elle se termine.",
        )
    return AdaptationPlan(repository.data_dir, patient_id, split_samples(samples), trainer)


class RunControl:
    """State shared between a run and whoever may cancel it from another thread."""

    def __init__(self) -> None:
        self.cancelled = threading.Event()
        self._process: TrainerProcess | None = None
        self._lock = threading.Lock()

    def attach(self, process: TrainerProcess) -> None:
        with self._lock:
            self._process = process
        if self.cancelled.is_set():
            process.cancel()

    def cancel(self) -> None:
        self.cancelled.set()
        with self._lock:
            process = self._process
        if process is not None:
            process.cancel()


def _train(plan: AdaptationPlan, run: RunControl, relay: ProgressCallback, **limits: Any) -> Path:
    """Run the trainer to its end; the trained adapter."""
    folder = store.voice_dir(plan.data_dir, plan.patient_id, create=True)
    launch = plan.trainer
    init = halting_adapter(launch.weights)
    manifest = write_manifest(folder / store.MANIFEST_FILE, plan.split.train, init)
    command = TrainerCommand(
        manifest,
        store.work_dir(plan.data_dir, plan.patient_id),
        launch.weights,
        threads=TRAINER_THREADS,
        program=tuple(launch.argv([])),
        env=launch.env(),
        **limits,
    )

    def trained(progress: AdaptProgress) -> None:
        # "done" is the whole adaptation's end (validation comes next): the
        # trainer's own end is the last step of training.
        relay(replace(progress, stage="train") if progress.stage == "done" else progress)

    process = TrainerProcess(command, trained)
    if run.cancelled.is_set():
        raise _cancelled()
    process.start()
    run.attach(process)
    try:
        outcome = process.wait()
    except KeyboardInterrupt:  # Ctrl+C in the terminal: stop the child cleanly too
        process.cancel()
        outcome = process.wait()
    if outcome.cancelled or run.cancelled.is_set():
        raise _cancelled()
    if outcome.adapter is not None:
        return outcome.adapter
    said = outcome.last.message if outcome.last is not None else ""
    detail = f"trainer exit {outcome.returncode}: {said} | {' | '.join(outcome.log_tail)}"
    if outcome.returncode == EXIT_BAD_INPUT:
        raise TherapyAppError(
            "Les enregistrements du patient n'ont pas pu servir à l'adaptation.",
            "Vérifiez qu'ils sont toujours dans le dossier des données.",
            detail,
        )
    raise TherapyAppError(
        "L'adaptation de la reconnaissance a échoué.",
        "Réessayez ; si cela recommence, signalez-le avec le journal de l'application.",
        detail,
    )


def _validate(
    plan: AdaptationPlan,
    adapter: Path,
    run: RunControl,
    relay: ProgressCallback,
    provider: str | None,
) -> Comparison:
    from therapy_app.asr.recognizer import SpeechRecognizer
    from therapy_app.vad.silero import VoiceActivityDetector
    from therapy_app.voice.validation import compare

    held = plan.split.held_out
    relay(AdaptProgress("validate", 0, len(held), message="Vérification sur les enregistrements"))
    generic = SpeechRecognizer.load(provider=provider)
    # Scoring on: the comparison measures the personal model's scores too, and
    # hearing is the same whether it scores or not.
    candidate = PersonalModel(adapter, model_store.sha256_file(adapter), scoring=True)
    personal = SpeechRecognizer.load(provider=provider, personal=candidate)
    comparison = compare(
        held,
        generic,
        personal,
        VoiceActivityDetector.load(),
        on_item=lambda done, total: relay(AdaptProgress("validate", done, total)),
        should_stop=run.cancelled.is_set,
    )
    if comparison is None:
        raise _cancelled()
    return comparison


def _decide(
    plan: AdaptationPlan, comparison: Comparison, adapter: Path, minutes: float
) -> VoiceDecision:
    from therapy_app.voice.validation import adoption, figures_in_use, scoring_choice

    if not comparison.items:
        adopted, reason = False, "Les enregistrements de contrôle n'ont pas pu être lus."
    else:
        adopted, reason = adoption(comparison.generic, comparison.personal)
    scoring = False
    if adopted:
        scoring, why = scoring_choice(comparison.verdicts)
        reason = f"{reason} {why}"
    for way, counted in comparison.verdicts.items():
        _LOGGER.info(
            "held-out verdicts %s: %d/%d right texts accepted, %d/%d wrong texts accepted",
            way,
            counted.true_accepts,
            counted.right_targets,
            counted.false_accepts,
            counted.wrong_targets,
        )
    return VoiceDecision(
        adopted=adopted,
        reason=reason,
        generic=comparison.generic,
        personal=figures_in_use(comparison, scoring),
        train_items=len(plan.split.train),
        held_out_items=len(comparison.items),
        minutes=round(minutes, 2),
        created_at=store.now_text(),
        scoring=scoring,
        adapter_sha256=model_store.sha256_file(adapter) if adopted else None,
    )


def _training_minutes(work: Path, measured_s: float) -> float:
    """Preparation and training time as the trainer counts it (across resumed runs).

    ``train.json`` holds ``{"minutes": {"prepare": …, "train": …}}``; without it,
    the wall time of this run.
    """
    try:
        report = json.loads((work / TRAIN_REPORT).read_text(encoding="utf-8"))
        spent = report["minutes"]
        return float(sum(float(v) for v in spent.values()) if isinstance(spent, dict) else spent)
    except (OSError, ValueError, TypeError, KeyError, AttributeError):
        return measured_s / 60


def run_adaptation(
    plan: AdaptationPlan,
    on_progress: ProgressCallback | None = None,
    *,
    provider: str | None = None,
    max_steps: int | None = None,
    minutes: float | None = None,
    control: RunControl | None = None,
) -> VoiceDecision:
    """Train, validate and record the decision (in the calling thread).

    Args:
        plan: from :func:`plan_adaptation`.
        on_progress: called with each progress report (prepare, train, validate, done).
        provider: where the validation's recognisers run.
        max_steps: cap on training steps (tests).
        minutes: training time budget; None uses the trainer's.

    Raises:
        AdaptationCancelledError: stopped by :meth:`AdaptationHandle.cancel` or Ctrl+C.
        store.AdaptationRunningError: another run holds the patient's lock.
        TherapyAppError: the trainer failed (French).
    """
    run = control or RunControl()

    def relay(progress: AdaptProgress) -> None:
        if on_progress is not None:
            on_progress(progress)

    with store.adaptation_lock(plan.data_dir, plan.patient_id):
        relay(AdaptProgress("prepare", 0, 0, message="Préparation des enregistrements"))
        start = time.monotonic()
        limits = {"max_steps": max_steps, "minutes": minutes}
        adapter = _train(plan, run, relay, **limits)
        trained_s = time.monotonic() - start
        work = adapter.parent
        comparison = _validate(plan, adapter, run, relay, provider)
        decision = _decide(plan, comparison, adapter, _training_minutes(work, trained_s))
        store.save_decision(plan.data_dir, plan.patient_id, decision, adapter)
        # The next run starts afresh (new recordings); a cancelled one kept its work to resume.
        shutil.rmtree(work, ignore_errors=True)
        (store.voice_dir(plan.data_dir, plan.patient_id) / store.MANIFEST_FILE).unlink(
            missing_ok=True
        )
    relay(AdaptProgress("done", 1, 1, message=decision.reason))
    return decision


def adapt_blocking(
    repository: SessionRepository,
    patient_id: int,
    on_progress: ProgressCallback | None = None,
    **options: Any,
) -> VoiceDecision:
    """Check, train, validate and decide, returning when it is all done (``voice adapt``).

    Args:
        repository: the patient's data.
        patient_id: whose voice.
        on_progress: called with each progress report.
        **options: ``provider``, ``max_steps``, ``minutes`` of :func:`run_adaptation`.

    Raises:
        NotEnoughRecordingsError, VoicePackMissing, AdaptationCancelledError,
        store.AdaptationRunningError, TherapyAppError: French messages.
    """
    return run_adaptation(plan_adaptation(repository, patient_id), on_progress, **options)


@dataclass(frozen=True)
class BenchmarkRun:
    """One adaptation run on recordings outside any data folder (``benchmarks/personal_voice.py``).

    Attributes:
        decision: what the validation concluded.
        personal: the adopted model, None when the generic one was kept.
        train_minutes: preparation and training time, as the trainer counts it.
    """

    decision: VoiceDecision
    personal: PersonalModel | None
    train_minutes: float


def run_for_benchmark(
    recordings: Sequence[tuple[Path, str]],
    folder: Path,
    on_progress: ProgressCallback | None = None,
    **options: Any,
) -> BenchmarkRun:
    """The app's own adaptation (split, trainer, validation, rule) on a list of recordings.

    Args:
        recordings: (WAV file, words said) of one speaker.
        folder: stands for the data folder: the voice folder, the trainer's
            work and the decision go under it.
        on_progress: called with each progress report.
        **options: as :func:`run_adaptation`.

    Raises:
        NotEnoughRecordingsError, VoicePackMissing: as for a patient.
    """
    plan = _benchmark_plan(recordings, folder)
    decision = run_adaptation(plan, on_progress, **options)
    return BenchmarkRun(decision, store.personal_model(plan.data_dir, 0), decision.minutes)


def kept_adapter(folder: Path) -> Path | None:
    """The adapter a :func:`run_for_benchmark` run in ``folder`` adopted and kept, if any."""
    adapter = store.voice_dir(Path(folder), 0) / store.ADAPTER_FILE
    return adapter if adapter.is_file() else None


def revalidate_for_benchmark(
    recordings: Sequence[tuple[Path, str]], folder: Path, minutes: float
) -> BenchmarkRun:
    """The validation and rule of :func:`run_for_benchmark` on the adapter it kept in ``folder``.

    Training is the slow part and does not depend on the verdict rule; after a
    change of the rule, this measures the kept adapter again as a new run would.

    Raises:
        FileNotFoundError: no adapter was kept there (:func:`kept_adapter`).
    """
    adapter = kept_adapter(folder)
    if adapter is None:
        raise FileNotFoundError(f"no kept adapter under {folder}")
    plan = _benchmark_plan(recordings, folder)
    comparison = _validate(plan, adapter, RunControl(), lambda _progress: None, None)
    decision = _decide(plan, comparison, adapter, minutes)
    if not decision.adopted or decision.adapter_sha256 is None:
        return BenchmarkRun(decision, None, minutes)
    return BenchmarkRun(
        decision, PersonalModel(adapter, decision.adapter_sha256, decision.scoring), minutes
    )


def _benchmark_plan(recordings: Sequence[tuple[Path, str]], folder: Path) -> AdaptationPlan:
    """The plan of one speaker's recordings, ``folder`` standing for the data folder."""
    samples = [VoiceSample(Path(audio), text, "imported") for audio, text in recordings]
    if len(samples) < MIN_SAMPLES:
        raise NotEnoughRecordingsError(
            f"Il faut au moins {MIN_SAMPLES} enregistrements ; il y en a {len(samples)}."
        )
    return AdaptationPlan(Path(folder), 0, split_samples(samples), voice_pack.find_trainer())


class AdaptationHandle:
    """An adaptation running in a background thread, for a GUI to poll.

    Args:
        plan: from :func:`plan_adaptation`.
        **options: as :func:`run_adaptation`.
    """

    def __init__(self, plan: AdaptationPlan, **options: Any) -> None:
        self.plan = plan
        self._run = RunControl()
        self._latest: AdaptProgress | None = None
        self._lock = threading.Lock()
        self._result: VoiceDecision | None = None
        self._error: TherapyAppError | None = None
        self._thread = threading.Thread(
            target=self._work, kwargs=options, name="voice-adaptation", daemon=True
        )
        self._thread.start()

    def _progress(self, progress: AdaptProgress) -> None:
        with self._lock:
            self._latest = progress

    def _work(self, **options: Any) -> None:
        try:
            self._result = run_adaptation(self.plan, self._progress, control=self._run, **options)
        except TherapyAppError as exc:
            self._error = exc
            cancelled = isinstance(exc, AdaptationCancelledError)
            end = AdaptProgress("cancelled" if cancelled else "failed", 0, 0, message=exc.french())
            self._progress(end)
        except Exception as exc:  # a bug: the GUI still gets an answer, the log the traceback
            _LOGGER.exception("voice adaptation failed")
            self._error = TherapyAppError(
                "L'adaptation de la reconnaissance a échoué.",
                "Réessayez ; si cela recommence, signalez-le avec le journal de l'application.",
                repr(exc),
            )
            self._progress(AdaptProgress("failed", 0, 0, message=self._error.french()))

    def poll(self) -> AdaptProgress | None:
        """The newest progress report since the last poll (None when nothing new)."""
        with self._lock:
            latest, self._latest = self._latest, None
        return latest

    def cancel(self) -> None:
        """Stop the run; the training resumes where it stopped when started again."""
        self._run.cancel()

    @property
    def done(self) -> bool:
        """The run has ended (with a decision, cancelled or failed)."""
        return not self._thread.is_alive()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait for the end; True when it has ended."""
        self._thread.join(timeout)
        return self.done

    def result(self) -> VoiceDecision | None:
        """The decision once the run succeeded, else None."""
        return self._result if self.done else None

    @property
    def error(self) -> TherapyAppError | None:
        """Why the run ended without a decision (French), once it has ended."""
        return self._error if self.done else None


def start_adaptation(
    repository: SessionRepository, patient_id: int, **options: Any
) -> AdaptationHandle:
    """Check in the calling thread, then train, validate and decide in a background one.

    Raises:
        NotEnoughRecordingsError, VoicePackMissing, store.AdaptationRunningError:
            before anything starts (French).
    """
    return AdaptationHandle(plan_adaptation(repository, patient_id), **options)
