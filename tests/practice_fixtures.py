"""Practice test helpers: real engines, committed speech via FileAudioSource, no speaker.

Loaded as a plugin by ``conftest.py``: the ``spoken``, ``silent_player``,
``services`` and ``repository`` fixtures serve every test module that does not
define its own.
"""

from __future__ import annotations

import itertools
import logging
import threading
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from therapy_app import paths
from therapy_app.audio.clip import AudioClip
from therapy_app.audio.recorder import FileAudioSource, Recorder
from therapy_app.audio.sources import BLOCK_SAMPLES
from therapy_app.audio.wavio import read_wav
from therapy_app.naming.bank import NamingBank, default_bank
from therapy_app.practice.scheduling import InlineScheduler
from therapy_app.speech.loading import LOAD_STEPS, assemble
from therapy_app.speech.services import SilentPlayer, SpeechServices
from therapy_app.storage import SessionRepository

SPEECH_DIR = Path(__file__).resolve().parent / "data" / "speech"
# Silence after each clip, as if the microphone stayed open after the patient
# stopped: longer than the end-of-speech delay (1.8 s), so the real detector ends
# the recording, as it would in the app.
TRAILING_SILENCE_S = 2.5

_LOGGER = logging.getLogger(__name__)


def require_models() -> None:
    """Skip, with the reason, when the built models are not there."""
    needed = [
        paths.build_models_dir() / name / "model.json" for name in ("whisper-base", "silero-vad")
    ]
    missing = [str(p.parent) for p in needed if not p.is_file()]
    if missing:
        pytest.skip(f"models not built ({', '.join(missing)}): run `python -m models.build`")


# Silence after the speech when the microphone stays open: well below any pause
# tolerance, so the recording is still under way when the app stops it.
OPEN_SILENCE_S = 0.5


class OpenMicrophone:
    """A microphone the patient spoke into, left open: the recording ends only when stopped.

    The clip, then a short silence, then nothing more (the moment the patient
    presses a key, before their pause tolerance ends the recording). Blocks
    not read yet when it stops stay readable, as in a real microphone's queue:
    the whole clip reaches the recording whatever the threads' timing.
    """

    def __init__(self, clip: AudioClip) -> None:
        self.sample_rate = clip.sample_rate
        pad = np.zeros(int(OPEN_SILENCE_S * clip.sample_rate), np.float32)
        samples = np.concatenate([clip.samples, pad])
        starts = range(0, len(samples), BLOCK_SAMPLES)
        self._blocks = deque(samples[start : start + BLOCK_SAMPLES] for start in starts)
        self._stopped = threading.Event()

    def start(self) -> None:
        """Nothing to open."""

    def read(self, timeout: float) -> np.ndarray | None:
        """The next block; once the clip is delivered, None after ``timeout``."""
        if self._blocks:
            return self._blocks.popleft()
        self._stopped.wait(timeout)
        return None

    @property
    def exhausted(self) -> bool:
        """True once stopped and every block was read."""
        return self._stopped.is_set() and not self._blocks

    def stop(self) -> None:
        """The app closed the microphone."""
        self._stopped.set()


class SpokenClips:
    """The "patient": each new recording plays the next queued WAV into the recorder.

    Used as the services' recorder factory: the real :class:`Recorder`, with
    its real end-of-speech detection, reads a :class:`FileAudioSource` (or an
    :class:`OpenMicrophone` for speech queued with ``stay_open``).
    """

    def __init__(self) -> None:
        self._queue: deque[tuple[str | AudioClip, bool]] = deque()
        self.used: list[str] = []

    def say(self, *names: str, stay_open: bool = False) -> None:
        """Queue the committed recordings ``names`` (e.g. "word_04.wav").

        Args:
            names: the WAVs, one per recording.
            stay_open: the microphone stays open after each (:class:`OpenMicrophone`).
        """
        self._queue.extend((name, stay_open) for name in names)

    def say_clip(self, clip: AudioClip, stay_open: bool = False) -> None:
        """Queue a clip (e.g. the real voice saying a sentence only known at run time)."""
        self._queue.append((clip, stay_open))

    @property
    def pending(self) -> int:
        """Recordings queued and not yet used."""
        return len(self._queue)

    def __call__(self) -> Recorder:
        if not self._queue:
            raise AssertionError("the app started a recording nobody queued speech for")
        item, stay_open = self._queue.popleft()
        if isinstance(item, AudioClip):
            self.used.append("<clip>")
            clip = item
        else:
            self.used.append(item)
            clip = read_wav(SPEECH_DIR / item)
        if stay_open:
            return Recorder(OpenMicrophone(clip))
        return Recorder(FileAudioSource(clip, trailing_silence_s=TRAILING_SILENCE_S))


class HeldSpeaker(SilentPlayer):
    """A speaker that keeps talking until stopped or let go, as a real one takes seconds.

    With :meth:`hold` each blocking ``play`` lasts until the app stops the
    player (the patient moved on) or the test calls :meth:`let_go`; the test
    can then act while the app is speaking. Not held: a :class:`SilentPlayer`.
    """

    def __init__(self) -> None:
        super().__init__()
        self._lock = threading.Condition()
        self._held = False
        self._playing = 0
        self._stopped = 0  # play() calls the app stopped, counted

    def hold(self) -> None:
        """From now on, blocking plays last until stopped or let go."""
        with self._lock:
            self._held = True

    def let_go(self) -> None:
        """Finish what is playing and stop holding."""
        with self._lock:
            self._held = False
            self._lock.notify_all()

    @property
    def playing(self) -> bool:
        """True while a blocking play is held."""
        with self._lock:
            return self._playing > 0

    @property
    def stopped(self) -> int:
        """How many held plays the app cut short with ``stop()``."""
        with self._lock:
            return self._stopped

    def play(self, clip: AudioClip, blocking: bool = False) -> None:
        """Remember the clip; when held and blocking, wait for ``stop()`` or :meth:`let_go`."""
        super().play(clip, blocking)
        if not blocking:
            return
        with self._lock:
            if not self._held:
                return
            self._playing += 1
            generation = self._stopped
            self._lock.wait_for(lambda: not self._held or self._stopped != generation, 60)
            self._playing -= 1

    def stop(self) -> None:
        """Cut short what is playing."""
        with self._lock:
            if self._playing:
                self._stopped += 1
                self._lock.notify_all()


class HeldInference:
    """A scheduler whose inference jobs wait for the test; database jobs run at once.

    The GUI's TaskRunner delivers results later, on the main thread, while the
    patient may still press keys; here the test chooses when each inference
    job runs (:meth:`run_next`), so it can act while the engines work.
    """

    def __init__(self) -> None:
        self._inline = InlineScheduler()
        self._ids = itertools.count(1)
        self._waiting: deque[tuple[Callable[[], None], str]] = deque()
        self.ran: list[str] = []
        """The names of the inference jobs run, in order."""

    def submit(
        self, fn: Callable[..., Any], *args: Any, pool: str = "inference", **callbacks: Any
    ) -> int:
        """Queue an inference job; run a database job now (in order, as its one worker would).

        ``callbacks``: ``on_done`` and ``on_error``, as the scheduler protocol has them.
        """
        if pool != "inference":
            return self._inline.submit(fn, *args, pool=pool, **callbacks)

        def run() -> None:
            self._inline.submit(fn, *args, pool=pool, **callbacks)

        self._waiting.append((run, getattr(fn, "__name__", type(fn).__name__)))
        return next(self._ids)

    @property
    def waiting(self) -> list[str]:
        """The names of the inference jobs waiting, oldest first."""
        return [name for _, name in self._waiting]

    def run_next(self) -> None:
        """Run the oldest waiting inference job and deliver its result."""
        run, name = self._waiting.popleft()
        self.ran.append(name)
        run()

    def run_all(self) -> None:
        """Run inference jobs until none waits (those their results submit included)."""
        while self._waiting:
            self.run_next()


# Frequent pictures whose Pico rendering the recogniser hears clearly ("un hôtel"
# is heard "anoutel": the naming benchmark measures such misses, tests the flow).
CLEAR_PICTURES = ("oreille", "avocat", "bière", "viande")


def clear_naming_bank() -> NamingBank:
    """The bundled bank with only the clear pictures among the frequent ones (taught first)."""
    full = default_bank()
    kept = tuple(i for i in full.items if i.frequency_band != 1 or i.word in CLEAR_PICTURES)
    return replace(full, items=kept)


_ENGINES: dict[str, object] = {}


def shared_engines() -> dict[str, object]:
    """Every real engine (the corrector if installed), loaded once per test process.

    Skips the calling test when the models are not built.
    """
    require_models()
    if not _ENGINES:
        _ENGINES.update({step.key: step.load() for step in LOAD_STEPS})
    return _ENGINES


def make_services(spoken: SpokenClips, player: SilentPlayer) -> SpeechServices:
    """Real models, speech from committed WAVs (``spoken``), no speaker."""
    return assemble(dict(shared_engines()), recorder_factory=spoken, player=player)


@pytest.fixture
def spoken() -> SpokenClips:
    """What the "patient" will say next (committed WAVs or clips), in order."""
    return SpokenClips()


@pytest.fixture
def silent_player() -> SilentPlayer:
    """No speaker: remembers what the app said."""
    return SilentPlayer()


@pytest.fixture
def services(spoken: SpokenClips, silent_player: SilentPlayer) -> SpeechServices:
    """:func:`make_services` on ``spoken`` and ``silent_player`` (skips without the models)."""
    return make_services(spoken, silent_player)


@pytest.fixture
def repository() -> Iterator[SessionRepository]:
    """The database in the test's private data dir (conftest redirects it), closed after."""
    repo = SessionRepository()
    yield repo
    repo.close()


def damaged_corrector_models(folder: Path, damage: str) -> Path:
    """A models folder (for ``THERAPY_APP_MODELS_DIR``) whose corrector is broken.

    The recogniser and the VAD are the built ones (linked); the corrector is a
    real copy of ``resources/models/corrector-fr`` damaged as ``damage`` says:
    "flipped" (bytes changed inside ``encoder.onnx``, same size) or "sidecar"
    (``model.json`` cut in half). It comes first: the shipped corrector in
    ``resources/models`` is only searched after ``THERAPY_APP_MODELS_DIR``.

    Returns:
        The models folder.
    """
    import shutil

    from therapy_app import model_store

    require_models()
    folder.mkdir(parents=True, exist_ok=True)
    for name in (model_store.ASR_MODEL, model_store.VAD_MODEL):
        (folder / name).symlink_to(paths.build_models_dir() / name, target_is_directory=True)
    corrector = folder / model_store.CORRECTOR_MODEL
    shutil.copytree(paths.resources_dir() / "models" / model_store.CORRECTOR_MODEL, corrector)
    if damage == "flipped":
        encoder = corrector / "encoder.onnx"
        data = bytearray(encoder.read_bytes())
        middle = len(data) // 2
        data[middle : middle + 64] = bytes(b ^ 0xFF for b in data[middle : middle + 64])
        encoder.write_bytes(bytes(data))
    elif damage == "sidecar":
        sidecar = corrector / model_store.SIDECAR
        text = sidecar.read_text(encoding="utf-8")
        sidecar.write_text(text[: len(text) // 2], encoding="utf-8")
    else:
        raise ValueError(damage)
    return folder
