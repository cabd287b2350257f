"""A real practice session heard through the virtual microphone: one try at a time, timed.

Shared by ``benchmarks/live_verdicts.py`` and ``tests/test_live_verdicts.py``
(issue 25). Everything on the app's side is what the patient's app runs: a
:class:`~therapy_app.practice.controller.PracticeController` whose services
make a plain :class:`~therapy_app.audio.recorder.Recorder` (the default
microphone through sounddevice, as ``speech.loading.assemble`` does), the
real end-of-speech detector with the default pause tolerance (and the
early verdicts at the patient's settled pauses, unless turned off), a real SQLite
repository, and a scheduler shaped like the GUI's ``TaskRunner`` (one
inference worker, one database worker, callbacks on the calling thread).
The "patient" is ``paplay`` into the ``vmic_feed`` sink, whose monitor is
the ``vmic`` source the default microphone records from.
"""

from __future__ import annotations

import itertools
import logging
import os
import queue
import shutil
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from therapy_app.audio.clip import SAMPLE_RATE, AudioClip
from therapy_app.audio.recorder import Recorder
from therapy_app.audio.wavio import read_wav, write_wav
from therapy_app.naming.bank import NamingBank
from therapy_app.practice.controller import PracticeController, PracticeSettings
from therapy_app.practice.events import (
    AttemptSaved,
    ErrorOccurred,
    ExerciseKind,
    Feedback,
    Heard,
    Notice,
    PracticeEvent,
    State,
    StateChanged,
)
from therapy_app.practice.items import ExerciseItem
from therapy_app.practice.listening import NOTHING_HEARD
from therapy_app.practice.scoring import ScoreResult
from therapy_app.speech.loading import assemble
from therapy_app.speech.services import SilentPlayer
from therapy_app.storage import SessionRepository

_LOGGER = logging.getLogger(__name__)

LEAD_IN_S = 1.0
"""Silence between the microphone opening and the first word, as a patient leaves."""
FEED_SINK = "vmic_feed"
TRY_TIMEOUT_S = 60.0


# ----- the sound server ---------------------------------------------------------------
@contextmanager
def private_pulse(rate: int = SAMPLE_RATE) -> Iterator[dict[str, str]]:
    """A PulseAudio server of our own with ``vspeaker``, ``vmic_feed`` and ``vmic`` at ``rate``.

    Other engineers' audio tests play into the shared server's ``vmic_feed``
    too: a private one keeps their sound out of our recordings. The devices
    are those of ``scripts/pulse_virtual.sh``; ``rate`` lets a run put the
    microphone at 44.1 or 48 kHz. Exported for this process (and ``paplay``)
    while the context lasts; the server is stopped at the end.
    """
    folder = Path(tempfile.mkdtemp(prefix="live-pulse-"))
    socket = folder / "pulse" / "native"
    (folder / "pulse").mkdir()
    config = folder / "virtual.pa"
    null = f"module-null-sink rate={rate} channels=1"
    config.write_text(
        f"load-module module-native-protocol-unix auth-anonymous=1 socket={socket}\n"
        f"load-module {null} sink_name=vspeaker\n"
        f"load-module {null} sink_name={FEED_SINK}\n"
        f"load-module module-remap-source master={FEED_SINK}.monitor source_name=vmic\n"
        "set-default-sink vspeaker\nset-default-source vmic\n"
    )
    env = {
        "XDG_RUNTIME_DIR": str(folder),
        "PULSE_SERVER": f"unix:{socket}",
        "PULSE_CONFIG_PATH": str(folder / "config"),
        "PULSE_STATE_PATH": str(folder / "state"),
        "PULSE_COOKIE": str(folder / "cookie"),
    }
    saved = {key: os.environ.get(key) for key in env}
    os.environ.update(env)
    try:
        subprocess.run(
            ["pulseaudio", "-n", "-F", str(config), "--daemonize=yes", "--exit-idle-time=-1",
             "--disable-shm=yes", f"--log-target=file:{folder / 'pulse.log'}"],
            check=False, capture_output=True, timeout=30,
        )  # fmt: skip
        for _ in range(100):
            if subprocess.run(["pactl", "info"], capture_output=True, check=False).returncode == 0:
                break
            time.sleep(0.1)
        else:
            raise RuntimeError(f"private PulseAudio did not start: see {folder / 'pulse.log'}")
        from therapy_app.audio import devices

        devices.refresh()  # PortAudio lists the ALSA "pulse" devices of a server it can reach
        yield env
    finally:
        subprocess.run(["pulseaudio", "--kill"], capture_output=True, check=False, timeout=30)
        for _ in range(50):  # it removes its files as it exits: wait, then remove the folder
            if subprocess.run(["pactl", "info"], capture_output=True, check=False).returncode:
                break
            time.sleep(0.1)
        time.sleep(0.2)
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        shutil.rmtree(folder, ignore_errors=True)


@contextmanager
def room_tone(rate: int = SAMPLE_RATE) -> Iterator[None]:
    """Keep the virtual microphone delivering samples, as a real one does, while it lasts.

    An idle null sink renders its monitor in chunks of up to 2 s: a
    recording opened then gets nothing for about a second, and the first
    ~64 ms of the next sound played into it are lost (measured: the capture
    starts 0.064 s into the file, the 1 s lead-in is missing). A real
    microphone hears the room all the time; a silent stream into
    ``vmic_feed`` with a 20 ms latency makes the virtual one do the same.
    """
    zeros = subprocess.Popen(
        ["pacat", "--playback", f"--device={FEED_SINK}", f"--rate={rate}", "--channels=1",
         "--format=s16le", "--raw", "--latency-msec=20", "/dev/zero"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        time.sleep(2.0)  # the sink leaves its idle rendering (chunks of up to 2 s)
        yield
    finally:
        zeros.terminate()
        zeros.wait(timeout=10)


def play_into_microphone(wav: Path) -> tuple[float, float]:
    """Play ``wav`` into ``vmic_feed``; returns (start, end) on the monotonic clock.

    ``paplay`` drains its stream before it exits: the end is when the last
    sample reached the sink, i.e. when the "patient" stopped talking.
    """
    start = time.monotonic()
    subprocess.run(["paplay", f"--device={FEED_SINK}", str(wav)], check=True, timeout=60)
    return start, time.monotonic()


def speech_span(clip: AudioClip, floor: float = 0.02) -> tuple[float, float]:
    """First and last sample louder than ``floor`` x the peak, in seconds."""
    loud = np.flatnonzero(np.abs(clip.samples) > floor * max(clip.peak, 1e-6))
    if not len(loud):
        return 0.0, 0.0
    return loud[0] / clip.sample_rate, (loud[-1] + 1) / clip.sample_rate


def alignment(raw: AudioClip, played: AudioClip) -> dict[str, float]:
    """Where the played file sits in the capture: lag (s), correlation, gain, overlap."""
    a = raw.samples.astype(np.float64)
    b = played.samples.astype(np.float64)
    if not len(a) or not len(b):
        return {"lag_s": float("nan"), "r": 0.0, "gain": 0.0, "overlap": 0.0}
    n = 1 << int(np.ceil(np.log2(len(a) + len(b))))
    corr = np.fft.irfft(np.fft.rfft(a, n) * np.conj(np.fft.rfft(b, n)), n)
    lags = np.concatenate([np.arange(0, len(a)), np.arange(-len(b) + 1, 0)])
    values = np.concatenate([corr[: len(a)], corr[n - len(b) + 1 :]])
    lag = int(lags[int(np.argmax(values))])
    start, end = max(0, lag), min(len(a), lag + len(b))
    x, y = a[start:end], b[start - lag : end - lag]
    r = float(np.corrcoef(x, y)[0, 1]) if len(x) > 1 and x.std() and y.std() else 0.0
    gain = float(np.dot(x, y) / max(np.dot(y, y), 1e-12))
    return {
        "lag_s": round(lag / SAMPLE_RATE, 4),
        "r": round(r, 4),
        "gain": round(gain, 3),
        "overlap": round(len(x) / len(b), 3),
    }


# ----- the GUI's way of running jobs, without Qt -----------------------------------------
class ThreadScheduler:
    """One inference worker and one database worker; callbacks run in :meth:`pump`.

    Shaped like ``therapy_app.gui.tasks.TaskRunner``: ``fn`` runs on a worker,
    ``on_done``/``on_error`` on the controller's thread, in completion order.
    """

    def __init__(self) -> None:
        self._pools = {
            name: ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"live-{name}")
            for name in ("inference", "db")
        }
        self._ids = itertools.count(1)
        self._inbox: queue.Queue[tuple[Callable[[Any], None] | None, Any, bool]] = queue.Queue()
        self._pending = 0
        self._lock = threading.Lock()

    def submit(
        self,
        fn: Callable[..., Any],
        *args: Any,
        on_done: Callable[[Any], None] | None = None,
        on_error: Callable[[BaseException], None] | None = None,
        pool: str = "inference",
    ) -> int:
        """Run ``fn(*args)`` on ``pool``; its callback waits for :meth:`pump`."""
        request_id = next(self._ids)
        with self._lock:
            self._pending += 1

        def run() -> None:
            try:
                result = fn(*args)
            except Exception as exc:  # noqa: BLE001 - delivered like the GUI does
                self._inbox.put((on_error, exc, False))
                return
            self._inbox.put((on_done, result, True))

        self._pools[pool].submit(run)
        return request_id

    @property
    def idle(self) -> bool:
        """No job running or waiting for its callback."""
        with self._lock:
            return self._pending == 0

    def pump(self, until: Callable[[], bool], timeout: float) -> bool:
        """Deliver callbacks until ``until()`` holds; False after ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        while not until():
            left = deadline - time.monotonic()
            if left <= 0:
                return False
            try:
                callback, value, ok = self._inbox.get(timeout=min(left, 0.05))
            except queue.Empty:
                continue
            with self._lock:
                self._pending -= 1
            if callback is not None:
                callback(value)
            elif not ok:
                raise value
        return True

    def close(self) -> None:
        """Stop the workers (queued database jobs still run)."""
        self._pools["inference"].shutdown(wait=True, cancel_futures=True)
        self._pools["db"].shutdown(wait=True)


# ----- one session, one try at a time ------------------------------------------------------
@dataclass
class LiveTry:
    """What the app did with one played recording.

    Attributes:
        item: the item the try was scored against (as practice presented it).
        cue_level: the help given when the try was made.
        heard: what the recogniser heard ("" when nothing was heard).
        feedback: the verdict shown (None when the app heard nothing).
        result: the rule's numbers behind it (None when the app heard nothing).
        notice: what the app said instead ("Je n'ai rien entendu...").
        stop_reason: why the recording ended ("at_pause": an early verdict accepted it).
        raw: everything the microphone gave the recorder.
        stored: the recording stored with the attempt (what was scored).
        played: when the recording started and ended (monotonic seconds).
        feedback_at: when the Feedback event arrived (monotonic seconds).
        recording_ended_at: when the app left RECORDING (monotonic seconds).
        early: the verdicts made at pauses while recording: the pause (seconds
            into the recording), accepted or not, seconds to make it, and when
            it started (seconds after the microphone opened).
        reused_early: the verdict shown is one made at a pause (no hearing after).
        overflows: blocks of input the device reported lost.
    """

    item: ExerciseItem
    cue_level: int
    heard: str
    feedback: Feedback | None
    result: ScoreResult | None
    notice: str
    stop_reason: str
    raw: AudioClip
    stored: AudioClip | None
    played: tuple[float, float]
    feedback_at: float | None
    recording_ended_at: float | None = None
    early: list[dict[str, Any]] = field(default_factory=list)
    reused_early: bool = False
    overflows: int = 0

    @property
    def success(self) -> bool:
        """The app said the try was right."""
        return self.feedback is not None and self.feedback.success


@dataclass
class LiveSession:
    """One exercise session of one patient, driven like a patient drives the GUI.

    Args:
        loaded: engines from ``speech.loading.load_steps`` (key -> engine).
        kind: the exercise.
        data_dir: where the repository and the recordings go.
        settings: the session's settings (the patient's own words come first).
        bank: naming pictures (None: the bundled bank).
        early_verdicts: judge at the patient's pauses (the app's default);
            False waits for the whole pause tolerance (the app before issue 25, item 3).
    """

    loaded: dict[str, Any]
    kind: ExerciseKind
    data_dir: Path
    settings: PracticeSettings = field(default_factory=PracticeSettings)
    bank: NamingBank | None = None
    early_verdicts: bool = True

    def __post_init__(self) -> None:
        self.recorders: list[Recorder] = []
        self.events: list[tuple[float, PracticeEvent]] = []
        self.scheduler = ThreadScheduler()
        self.repository = SessionRepository(self.data_dir)
        patient = self.repository.patients.create("Patient du banc d'essai").id

        def new_recorder() -> Recorder:
            recorder = Recorder()  # what assemble() makes: the default microphone
            self.recorders.append(recorder)
            return recorder

        services = assemble(dict(self.loaded), recorder_factory=new_recorder, player=SilentPlayer())
        self.controller = PracticeController(
            self.kind, services, self.repository, patient, self.scheduler,
            settings=self.settings, bank=self.bank,
        )  # fmt: skip
        self.controller.early_verdicts = self.early_verdicts
        self.controller.subscribe(lambda e: self.events.append((time.monotonic(), e)))
        self.controller.begin()
        self._settle()

    def _settle(self) -> None:
        """Wait until the app waits for the patient (cue said, nothing running)."""
        controller = self.controller

        def ready() -> bool:
            return self.scheduler.idle and controller.state in (
                State.AWAITING_REPETITION,
                State.FEEDBACK,
                State.IDLE,
            )

        if not self.scheduler.pump(ready, TRY_TIMEOUT_S):
            raise TimeoutError(f"the app did not settle (state {controller.state})")

    def index_of(self, target: str) -> int:
        """Position of the item whose target is ``target`` in the session's list."""
        index = self.controller.index_of(target)
        if index is None:
            raise KeyError(f"{target!r} is not in the {self.kind.value} list")
        return index

    def attempt(self, target: str, wav: Path, lead_in_s: float = LEAD_IN_S) -> LiveTry:
        """Present ``target``, open the microphone, play ``wav`` after ``lead_in_s``.

        Waits for the app's own end of speech, its verdict and the stored attempt.
        """
        controller = self.controller
        controller.present(self.index_of(target))
        self._settle()
        item = controller.item
        assert item is not None
        cue_level = controller.cue.level
        first = len(self.events)
        if not controller.start_recording():
            raise RuntimeError(f"the app refused to record (state {controller.state})")
        played: dict[str, tuple[float, float]] = {}

        def patient() -> None:
            time.sleep(lead_in_s)
            played["span"] = play_into_microphone(wav)

        speaker = threading.Thread(target=patient, name="live-patient", daemon=True)
        speaker.start()

        def answered() -> bool:
            new = [e for _, e in self.events[first:]]
            if any(isinstance(e, ErrorOccurred) for e in new):
                return True
            if any(isinstance(e, Notice) and e.message == NOTHING_HEARD for e in new):
                return True
            saved = any(isinstance(e, AttemptSaved) for e in new)
            return saved and any(isinstance(e, Feedback) for e in new)

        finished = self.scheduler.pump(answered, TRY_TIMEOUT_S)
        speaker.join(TRY_TIMEOUT_S)
        if not finished:
            raise TimeoutError(f"no verdict for {wav.name} within {TRY_TIMEOUT_S:.0f} s")
        self._settle()
        new_events = self.events[first:]
        errors = [e for _, e in new_events if isinstance(e, ErrorOccurred)]
        if errors:
            raise RuntimeError(f"the app failed: {errors[0].message}") from errors[0].error
        feedback = next(((t, e) for t, e in new_events if isinstance(e, Feedback)), (None, None))
        notices = [e.message for _, e in new_events if isinstance(e, Notice)]
        recorder = self.recorders[-1]
        saved = [e for _, e in new_events if isinstance(e, AttemptSaved)]
        stored = self._stored(saved[-1].attempt_id) if saved else None
        heard = [e.text for _, e in new_events if isinstance(e, Heard)]
        ended = [
            t
            for t, e in new_events
            if isinstance(e, StateChanged) and e.previous is State.RECORDING
        ]
        listened = self.controller._listening.last_listened  # noqa: SLF001 - read only
        early = [
            {
                "pause_s": round(v.samples / SAMPLE_RATE, 3),
                "accepted": v.judged.accepted,
                "seconds": round(v.judged.seconds, 3),
                "started_s": round(v.started_s, 3),
            }
            for v in (listened.early if listened is not None else ())
        ]
        return LiveTry(
            item=item,
            cue_level=cue_level,
            heard=heard[-1] if heard else "",
            feedback=feedback[1],
            result=self._last_result() if feedback[1] is not None else None,
            notice=" ".join(notices),
            stop_reason=str(recorder.stop_reason),
            raw=recorder.stop(),
            stored=stored,
            played=played.get("span", (0.0, 0.0)),
            feedback_at=feedback[0],
            recording_ended_at=ended[0] if ended else None,
            early=early,
            reused_early=listened is not None and listened.judged is not None,
            overflows=recorder.overflows,
        )

    def _last_result(self) -> ScoreResult | None:
        # The numbers practice decided on (not in the Feedback event, not stored).
        outcome = self.controller._tries.last_outcome  # noqa: SLF001 - read only
        return outcome.score if outcome is not None else None

    def _stored(self, attempt_id: int) -> AudioClip | None:
        session_id = self.controller.session_id
        if session_id is None:
            return None
        for attempt in self.repository.attempts.all(session_id=session_id):
            if attempt.id == attempt_id:
                path = self.repository.attempts.recording_path(attempt)
                return read_wav(path) if path is not None and path.is_file() else None
        return None

    def close(self) -> None:
        """End the session, stop the workers, close the database."""
        self.controller.end()
        self.scheduler.pump(lambda: self.scheduler.idle, TRY_TIMEOUT_S)
        self.scheduler.close()
        self.repository.close()


def write_clip(folder: Path, name: str, clip: AudioClip) -> Path:
    """``clip`` as a 16-bit WAV under ``folder`` (what ``paplay`` plays)."""
    return write_wav(folder / f"{name}.wav", clip)
