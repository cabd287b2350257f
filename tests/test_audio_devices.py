"""Sound devices: French errors when PortAudio or devices are missing, and real recording
and playback through sounddevice on the PulseAudio virtual devices."""

from __future__ import annotations

import os
import subprocess
import threading
import time
from types import SimpleNamespace

import numpy as np
import pytest

from therapy_app.audio import devices
from therapy_app.audio.clip import AudioClip
from therapy_app.audio.player import Player
from therapy_app.audio.recorder import Recorder, SoundDeviceSource, StopReason
from therapy_app.audio.wavio import write_wav
from therapy_app.errors import AudioDeviceError

ALSA_PULSE = "pulse"  # ALSA device of libasound2-plugins that talks to PulseAudio


@pytest.fixture
def no_portaudio(monkeypatch):
    """Simulate a machine without libportaudio2: importing sounddevice raises OSError."""

    def fail(name: str):
        assert name == "sounddevice"
        raise OSError("PortAudio library not found")

    monkeypatch.setattr(devices, "_sounddevice", None)
    monkeypatch.setattr(devices.importlib, "import_module", fail)


def fake_sounddevice(entries: list[dict], default: tuple[int, int]) -> SimpleNamespace:
    return SimpleNamespace(
        query_devices=lambda *a: entries,
        query_hostapis=lambda: [{"name": "ALSA"}],
        default=SimpleNamespace(device=default),
    )


def entry(name: str, inputs: int, outputs: int) -> dict:
    return {
        "name": name,
        "hostapi": 0,
        "max_input_channels": inputs,
        "max_output_channels": outputs,
        "default_samplerate": 48000.0,
    }


# ----- missing sound system / devices (simulated at the boundary) ------------------------


def test_missing_portaudio_is_a_french_error(no_portaudio):
    with pytest.raises(AudioDeviceError) as err:
        devices.list_devices()
    assert err.value.user_message.startswith("Aucun système audio")
    if os.name == "posix":
        assert "libportaudio2" in err.value.hint
    assert "PortAudio library not found" in err.value.detail


def test_recorder_and_player_report_missing_portaudio(no_portaudio):
    with pytest.raises(AudioDeviceError, match="PortAudio"):
        Recorder().start()
    with pytest.raises(AudioDeviceError, match="PortAudio"):
        Player().play(AudioClip.silence(0.1))


def test_no_microphone_and_no_speaker(monkeypatch):
    only_speaker = fake_sounddevice([entry("hdmi", 0, 2)], (-1, 0))
    monkeypatch.setattr(devices, "_sounddevice", only_speaker)
    with pytest.raises(AudioDeviceError) as err:
        devices.default_input()
    assert err.value.user_message == "Aucun micro n'a été trouvé."
    assert devices.default_output().name == "hdmi"

    only_mic = fake_sounddevice([entry("usb mic", 1, 0)], (0, -1))
    monkeypatch.setattr(devices, "_sounddevice", only_mic)
    with pytest.raises(AudioDeviceError) as err:
        devices.default_output()
    assert err.value.user_message.startswith("Aucun haut-parleur")


def test_devices_are_described_and_resolved(monkeypatch):
    fake = fake_sounddevice(
        [entry("Built-in Mic", 2, 0), entry("Headset", 1, 2), entry("HDMI", 0, 8)], (1, 2)
    )
    monkeypatch.setattr(devices, "_sounddevice", fake)
    listed = devices.list_devices()
    assert [d.name for d in listed] == ["Built-in Mic", "Headset", "HDMI"]
    assert listed[1].is_default_input and listed[2].is_default_output
    assert listed[0].host_api == "ALSA" and listed[0].default_samplerate == 48000.0
    assert devices.default_input().name == "Headset"
    assert devices.resolve("built-in", want_input=True).index == 0
    assert devices.resolve(2, want_input=False).name == "HDMI"
    with pytest.raises(AudioDeviceError) as err:
        devices.resolve("HDMI", want_input=True)  # exists, but cannot record
    assert "introuvable" in err.value.user_message


def test_portaudio_failure_while_opening_is_a_french_error(monkeypatch):
    class Boom(Exception):
        pass

    def refuse(*args, **kwargs):
        raise Boom("Error opening InputStream: Device unavailable [PaErrorCode -9985]")

    fake = fake_sounddevice([entry("mic", 1, 1)], (0, 0))
    fake.check_input_settings = lambda **kw: None
    fake.InputStream = refuse
    monkeypatch.setattr(devices, "_sounddevice", fake)
    with pytest.raises(AudioDeviceError) as err:
        Recorder(SoundDeviceSource()).start()
    assert err.value.user_message == "Le périphérique audio ne répond pas."
    assert "-9985" in err.value.detail


class FakeInputStream:
    """Stands in for sounddevice.InputStream: a thread calls back with 48 kHz blocks."""

    def __init__(self, samplerate, channels, dtype, blocksize, latency, device, callback):
        assert (channels, dtype) == (1, "float32")
        self.samplerate, self.blocksize, self.callback = samplerate, blocksize, callback
        self.signal = sine_48k(1.0)
        self.active = False
        self.fail_after: int | None = None

    def _run(self) -> None:
        n = 0
        while self.active:
            if self.fail_after is not None and n >= self.fail_after:
                self.active = False  # what PortAudio does when a device vanishes
                return
            start = n * self.blocksize
            block = self.signal[start : start + self.blocksize]
            if len(block) < self.blocksize:  # the speaker stopped; the room is quiet
                block = np.zeros(self.blocksize, np.float32)
                time.sleep(0.005)
            self.callback(block[:, None], len(block), None, None)
            n += 1

    def start(self):
        self.active = True
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def stop(self):
        self.active = False
        self._thread.join()

    def close(self):
        pass


def sine_48k(seconds: float) -> np.ndarray:
    t = np.arange(int(48000 * seconds)) / 48000
    return (0.5 * np.sin(2 * np.pi * 440 * t)).astype(np.float32)


def fake_device_at_48k(monkeypatch, fail_after: int | None = None) -> list[FakeInputStream]:
    streams: list[FakeInputStream] = []

    def refuse_16k(device, samplerate, channels, dtype):
        if samplerate != 48000:
            raise ValueError("Invalid sample rate")

    def make(**kwargs):
        stream = FakeInputStream(**kwargs)
        stream.fail_after = fail_after
        streams.append(stream)
        return stream

    fake = fake_sounddevice([entry("usb mic", 1, 0)], (0, -1))
    fake.check_input_settings = refuse_16k
    fake.query_devices = lambda *a: entry("usb mic", 1, 0) if a else [entry("usb mic", 1, 0)]
    fake.InputStream = make
    monkeypatch.setattr(devices, "_sounddevice", fake)
    return streams


def test_device_refusing_16k_records_at_its_rate_and_is_resampled(monkeypatch):
    streams = fake_device_at_48k(monkeypatch)
    recorder = Recorder(SoundDeviceSource())
    recorder.start()
    assert streams[0].samplerate == 48000
    assert streams[0].blocksize == 1536  # 32 ms either way
    deadline = time.monotonic() + 10
    while recorder.elapsed < 1.2 and time.monotonic() < deadline:
        time.sleep(0.02)
    clip = recorder.stop()
    assert recorder.stop_reason is StopReason.MANUAL
    assert clip.sample_rate == 16000 and clip.duration >= 1.2
    tone = clip.slice(0.0, 1.0).samples
    spectrum = np.abs(np.fft.rfft(tone * np.hanning(len(tone))))
    assert np.fft.rfftfreq(len(tone), 1 / 16000)[np.argmax(spectrum)] == pytest.approx(440, abs=2)
    assert np.max(np.abs(clip.slice(1.05, 1.2).samples)) < 1e-3  # then silence


def test_device_failing_while_recording_is_a_french_error(monkeypatch):
    fake_device_at_48k(monkeypatch, fail_after=5)
    recorder = Recorder(SoundDeviceSource())
    recorder.start()
    assert recorder.wait(timeout=10)
    assert recorder.stop_reason is StopReason.ERROR
    with pytest.raises(AudioDeviceError) as err:
        recorder.stop()
    assert "micro s'est arrêté" in err.value.user_message


class FakeOutputStream:
    """Stands in for sounddevice.OutputStream: pulls blocks until CallbackStop."""

    played: list[np.ndarray] = []

    def __init__(self, samplerate, channels, dtype, device, latency, callback, finished_callback):
        self.samplerate, self.callback, self.finished = samplerate, callback, finished_callback
        self.active = False

    def _run(self) -> None:
        while self.active:
            out = np.full((1000, 1), np.nan, np.float32)
            try:
                self.callback(out, 1000, None, None)
            except devices.sounddevice().CallbackStop:
                self.active = False
            FakeOutputStream.played.append(out[:, 0].copy())
        self.finished()

    def start(self):
        self.active = True
        threading.Thread(target=self._run, daemon=True).start()

    def stop(self):
        self.active = False

    abort = stop

    def close(self):
        pass


def test_speaker_refusing_16k_plays_resampled(monkeypatch):
    def refuse_16k(device, samplerate, channels, dtype):
        if samplerate != 48000:
            raise ValueError("Invalid sample rate")

    fake = fake_sounddevice([entry("hdmi", 0, 2)], (-1, 0))
    fake.check_output_settings = refuse_16k
    fake.OutputStream = FakeOutputStream
    fake.CallbackStop = type("CallbackStop", (Exception,), {})
    monkeypatch.setattr(devices, "_sounddevice", fake)
    FakeOutputStream.played = []
    t = np.arange(16000) / 16000
    player = Player()
    player.play(AudioClip((0.5 * np.sin(2 * np.pi * 440 * t)).astype(np.float32)), blocking=True)
    out = np.concatenate(FakeOutputStream.played)
    assert not np.isnan(out).any()  # every frame written, silence after the clip
    tone = out[:48000]
    spectrum = np.abs(np.fft.rfft(tone * np.hanning(len(tone))))
    assert np.fft.rfftfreq(len(tone), 1 / 48000)[np.argmax(spectrum)] == pytest.approx(440, abs=2)
    assert player.position == pytest.approx(1.0)
    assert np.max(np.abs(out[48100:])) < 1e-3


# ----- the real adapter -------------------------------------------------------------------


def test_real_sounddevice_adapter():
    try:
        listed = devices.list_devices()
    except AudioDeviceError as exc:
        if os.environ.get("THERAPY_REQUIRE_AUDIO") == "1":
            raise
        pytest.skip(f"no PortAudio here: {exc.detail}")
    assert all(isinstance(d, devices.AudioDevice) for d in listed)
    assert all(d.inputs >= 0 and d.outputs >= 0 for d in listed)


# ----- real recording and playback through PulseAudio -------------------------------------


def best_alignment(recorded: np.ndarray, reference: np.ndarray) -> tuple[float, float]:
    """(Pearson r, overlap fraction) at the lag where the two signals match best."""
    n = len(recorded) + len(reference)
    size = 1 << int(np.ceil(np.log2(n)))
    spectrum = np.fft.rfft(recorded, size) * np.conj(np.fft.rfft(reference, size))
    corr = np.fft.irfft(spectrum, size)
    lags = np.concatenate([np.arange(len(recorded)), np.arange(-len(reference) + 1, 0)])
    values = np.concatenate([corr[: len(recorded)], corr[size - len(reference) + 1 :]])
    lag = int(lags[np.argmax(np.abs(values))])
    a, b = max(0, lag), min(len(recorded), lag + len(reference))
    segment, ref = recorded[a:b], reference[a - lag : b - lag]
    return float(np.corrcoef(segment, ref)[0, 1]), len(segment) / len(reference)


def reference_signal(seconds: float = 2.0, seed: int = 7) -> np.ndarray:
    """Band-limited noise: never repeats, so only the true lag correlates."""
    rng = np.random.default_rng(seed)
    noise = rng.standard_normal(int(seconds * 16000))
    kernel = np.hanning(9) / np.hanning(9).sum()  # keep it clear of the 8 kHz edge
    return (0.25 * np.convolve(noise, kernel, "same")).clip(-0.9, 0.9).astype(np.float32)


def wait_for_capture_client(timeout: float = 10.0) -> None:
    """Block until parec is connected (process start can be slow on a busy machine)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        outputs = subprocess.run(
            ["pactl", "list", "short", "source-outputs"],
            capture_output=True,
            text=True,
            check=False,
        ).stdout
        if outputs.strip():
            return
        time.sleep(0.05)
    raise AssertionError("parec did not connect to PulseAudio")


def wait_for_end_of(reference: np.ndarray, captured, timeout: float = 15.0) -> None:
    """Wait until the last 100 ms of ``reference`` show up in ``captured()``.

    On a busy machine the capture can lag the playback by a second or more;
    stopping on a timer then cuts the end off.
    """
    tail = reference[-1600:].astype(np.float64)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        samples = captured()
        if len(samples) > len(tail) and best_alignment(samples, tail)[0] > 0.9:
            return
        time.sleep(0.1)


class Capture:
    """parec on the virtual speaker's monitor, read continuously by a thread."""

    def __init__(self) -> None:
        self.data = bytearray()
        self._proc = subprocess.Popen(
            [
                "parec",
                "--device=vspeaker.monitor",
                "--rate=16000",
                "--channels=1",
                "--format=s16le",
                "--raw",
                "--latency-msec=20",
            ],
            stdout=subprocess.PIPE,
        )
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self._proc.stdout is not None
        while chunk := self._proc.stdout.read1(4096):
            self.data.extend(chunk)

    def samples(self) -> np.ndarray:
        data = bytes(self.data)
        return np.frombuffer(data[: len(data) // 2 * 2], "<i2").astype(np.float64) / 32768

    def stop(self) -> np.ndarray:
        self._proc.terminate()
        self._proc.wait(timeout=10)
        self._reader.join(timeout=10)
        return self.samples()


def with_margins(signal: np.ndarray) -> AudioClip:
    # A null sink drops the first few ms when it wakes up: keep the signal clear of them.
    margin = np.zeros(4000, np.float32)
    return AudioClip(np.concatenate([margin, signal, margin]))


@pytest.mark.audio
def test_record_from_the_virtual_microphone(pulse_server, tmp_path):
    reference = reference_signal()
    wav = write_wav(tmp_path / "ref.wav", with_margins(reference))
    recorder = Recorder(SoundDeviceSource(device=ALSA_PULSE))
    recorder.start()
    try:
        time.sleep(0.3)
        subprocess.run(["paplay", "--device=vmic_feed", str(wav)], check=True, timeout=30)
        wait_for_end_of(reference, lambda: recorder.snapshot().samples.astype(np.float64))
        assert recorder.is_recording
        assert recorder.level > 0 or recorder.elapsed > 0
    finally:
        clip = recorder.stop()
    assert recorder.stop_reason is StopReason.MANUAL
    assert clip.sample_rate == 16000
    r, overlap = best_alignment(clip.samples.astype(np.float64), reference.astype(np.float64))
    assert overlap == pytest.approx(1.0)
    assert r >= 0.95


@pytest.mark.audio
def test_play_to_the_virtual_speaker(pulse_server):
    reference = reference_signal(seed=11)
    capture = Capture()
    try:
        wait_for_capture_client()
        player = Player(device=ALSA_PULSE)
        player.play(with_margins(reference))
        assert player.is_playing
        assert player.wait(timeout=15)
        assert not player.is_playing
        assert player.underflows == 0
        wait_for_end_of(reference, capture.samples)
    finally:
        recorded = capture.stop()
    r, overlap = best_alignment(recorded, reference.astype(np.float64))
    assert overlap == pytest.approx(1.0)
    assert r >= 0.95


@pytest.mark.audio
def test_stop_interrupts_playback(pulse_server):
    player = Player(device=ALSA_PULSE)
    player.play(AudioClip(reference_signal(seconds=5.0)))
    time.sleep(0.3)
    start = time.perf_counter()
    player.stop()
    assert not player.is_playing
    assert time.perf_counter() - start < 1.0
    assert player.position < 5.0
    player.play(AudioClip(reference_signal(seconds=0.3)), blocking=True)  # reusable
    assert not player.is_playing
