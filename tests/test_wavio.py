"""WAV reading/writing and resampling: every format, every malformed input, real files."""

from __future__ import annotations

import struct
import time
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

from therapy_app.audio import resample as resample_module
from therapy_app.audio.clip import AudioClip
from therapy_app.audio.resample import StreamResampler, resample
from therapy_app.audio.wavio import (
    MAX_CHANNELS,
    MAX_DURATION_S,
    MAX_SAMPLE_RATE,
    MIN_SAMPLE_RATE,
    read_wav,
    read_wav_bytes,
    wav_bytes,
    write_wav,
)
from therapy_app.errors import AudioInputError

PCM, FLOAT, EXTENSIBLE, MULAW = 1, 3, 0xFFFE, 7


def make_wav(
    samples: np.ndarray,
    rate: int,
    bits: int = 16,
    tag: int = PCM,
    extensible: bool = False,
    extra_chunks: bytes = b"",
    declared_frames: int | None = None,
) -> bytes:
    """A WAV file from float samples of shape (frames,) or (frames, channels)."""
    frames = samples if samples.ndim == 2 else samples[:, None]
    channels = frames.shape[1]
    flat = frames.reshape(-1)
    if tag == FLOAT:
        data = flat.astype("<f4" if bits == 32 else "<f8").tobytes()
    elif bits == 8:
        data = np.clip(np.round(flat * 127 + 128), 0, 255).astype(np.uint8).tobytes()
    elif bits == 16:
        data = np.round(flat * 32767).astype("<i2").tobytes()
    elif bits == 24:
        ints = np.round(flat * 8388607).astype("<i4")
        data = np.stack([ints & 255, (ints >> 8) & 255, (ints >> 16) & 255], 1)
        data = data.astype(np.uint8).tobytes()
    elif bits == 32:
        data = np.round(flat.astype(np.float64) * 2147483647).astype("<i4").tobytes()
    else:
        data = b"\x00" * (len(flat) * bits // 8)
    block = channels * bits // 8
    if extensible:
        guid_tail = b"\x00\x00\x00\x00\x10\x00\x80\x00\x00\xaa\x00\x38\x9b\x71"
        fmt = (
            struct.pack(
                "<HHIIHHHHI", EXTENSIBLE, channels, rate, rate * block, block, bits, 22, bits, 0
            )
            + struct.pack("<H", tag)
            + guid_tail
        )
    else:
        fmt = struct.pack("<HHIIHH", tag, channels, rate, rate * block, block, bits)
    data_size = len(data) if declared_frames is None else declared_frames * block
    body = (
        b"WAVE"
        + b"fmt "
        + struct.pack("<I", len(fmt))
        + fmt
        + extra_chunks
        + b"data"
        + struct.pack("<I", data_size)
        + data
    )
    return b"RIFF" + struct.pack("<I", len(body)) + body


def sine(freq: float, rate: int, seconds: float = 1.0, amp: float = 0.5) -> np.ndarray:
    t = np.arange(int(rate * seconds)) / rate
    return (amp * np.sin(2 * np.pi * freq * t)).astype(np.float32)


def dominant_frequency(samples: np.ndarray, rate: int) -> float:
    spectrum = np.abs(np.fft.rfft(samples * np.hanning(len(samples))))
    return float(np.fft.rfftfreq(len(samples), 1 / rate)[np.argmax(spectrum)])


def write(tmp_path: Path, data: bytes, name: str = "x.wav") -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


# ----- round trips and formats ---------------------------------------------------------


def test_write_then_read_round_trip(tmp_path):
    clip = AudioClip(sine(440, 16000, 0.5))
    path = write_wav(tmp_path / "sub" / "a.wav", clip)
    back = read_wav(path)
    assert back.sample_rate == 16000
    assert len(back.samples) == len(clip.samples)
    assert np.max(np.abs(back.samples - clip.samples)) < 1.5 / 32767


def test_write_is_clipping_safe_and_replaces_nan(tmp_path):
    clip = AudioClip(np.array([1.5, -1.5, 0.5, np.nan, np.inf, -np.inf], np.float32))
    pcm = np.frombuffer(wav_bytes(clip)[44:], "<i2")
    assert pcm.tolist() == [32767, -32767, 16384, 0, 32767, -32767]


def test_write_is_atomic_and_leaves_no_temporary_file(tmp_path):
    target = tmp_path / "take.wav"
    target.write_bytes(b"old content")
    write_wav(target, AudioClip(sine(300, 16000, 0.2)))
    assert read_wav(target).duration == pytest.approx(0.2)
    assert [p.name for p in tmp_path.iterdir()] == ["take.wav"]


def test_write_failure_is_a_french_error(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.raises(AudioInputError) as err:
        write_wav(blocker / "x.wav", AudioClip(sine(300, 16000, 0.1)))
    assert "Impossible d'enregistrer" in err.value.user_message
    assert err.value.hint


@pytest.mark.parametrize(
    ("bits", "tag"), [(8, PCM), (16, PCM), (24, PCM), (32, PCM), (32, FLOAT), (64, FLOAT)]
)
def test_sample_formats(tmp_path, bits, tag):
    x = sine(500, 16000, 0.25)
    clip = read_wav(write(tmp_path, make_wav(x, 16000, bits, tag)))
    tolerance = 1 / 100 if bits == 8 else 1e-4
    assert np.max(np.abs(clip.samples - x)) < tolerance
    assert clip.samples.dtype == np.float32


def test_extensible_format_and_odd_sized_chunk_before_data(tmp_path):
    x = sine(500, 16000, 0.25)
    odd = b"LIST" + struct.pack("<I", 3) + b"abc" + b"\x00"  # pad byte after odd chunk
    clip = read_wav(write(tmp_path, make_wav(x, 16000, 24, PCM, extensible=True, extra_chunks=odd)))
    assert np.max(np.abs(clip.samples - x)) < 1e-4


def test_stereo_is_downmixed_to_mono(tmp_path):
    x = sine(500, 16000, 0.25)
    stereo = np.stack([x, 0.5 * x], axis=1)
    clip = read_wav(write(tmp_path, make_wav(stereo, 16000)))
    assert clip.samples.ndim == 1
    assert np.max(np.abs(clip.samples - 0.75 * x)) < 1e-3


@pytest.mark.parametrize("rate", [8000, 22050, 44100, 48000])
def test_other_rates_are_resampled_to_16k_keeping_pitch_and_level(tmp_path, rate):
    x = sine(1000, rate, 1.0, amp=0.5)
    clip = read_wav(write(tmp_path, make_wav(np.stack([x, x], 1), rate)))
    assert clip.sample_rate == 16000
    assert clip.duration == pytest.approx(1.0, abs=1e-3)
    assert dominant_frequency(clip.samples, 16000) == pytest.approx(1000, abs=2)
    middle = clip.samples[1000:-1000]
    assert np.max(np.abs(middle)) == pytest.approx(0.5, abs=0.01)


def test_espeak_style_header_with_oversized_data_chunk(tmp_path):
    # Programs writing to a pipe cannot seek back: the data size is a placeholder.
    x = sine(300, 22050, 0.3)
    data = make_wav(x, 22050, declared_frames=0x3FFFFFFF)
    clip = read_wav(write(tmp_path, data))
    assert clip.duration == pytest.approx(0.3, abs=1e-3)


def test_read_wav_bytes_matches_file(tmp_path):
    data = make_wav(sine(700, 44100, 0.2), 44100)
    assert np.array_equal(read_wav_bytes(data).samples, read_wav(write(tmp_path, data)).samples)


def test_committed_speech_reads_as_16k_mono(speech_dir, speech_transcripts):
    for name in speech_transcripts:
        clip = read_wav(speech_dir / name)
        assert clip.sample_rate == 16000 and 0.5 < clip.duration < 5.0
        assert 0.5 < clip.peak < 1.0


# ----- resampler ------------------------------------------------------------------------


def test_resampler_suppresses_aliases_and_keeps_passband():
    above_nyquist = resample(sine(12000, 48000, 1.0, amp=1.0), 48000, 16000)
    assert np.sqrt(np.mean(above_nyquist[500:-500] ** 2)) < 1e-3  # < -57 dB
    passband = resample(sine(6000, 48000, 1.0, amp=1.0), 48000, 16000)
    assert np.sqrt(np.mean(passband[500:-500] ** 2)) == pytest.approx(np.sqrt(0.5), rel=0.05)


def test_streamed_resampling_equals_one_shot():
    x = np.random.default_rng(0).standard_normal(44100).astype(np.float32)
    whole = resample(x, 44100, 16000)
    stream = StreamResampler(44100, 16000)
    parts = [stream.process(x[i : i + 997]) for i in range(0, len(x), 997)]
    streamed = np.concatenate(parts + [stream.flush()])
    assert len(whole) == len(streamed) == int(np.ceil(44100 * 16000 / 44100))
    assert np.allclose(whole, streamed, atol=1e-6)


# ----- malformed input ------------------------------------------------------------------


def assert_french(err: AudioInputError, *words: str) -> None:
    for word in words:
        assert word in err.user_message, err.user_message
    assert err.french().startswith(err.user_message)
    assert err.detail  # English detail for the logs


def test_missing_file(tmp_path):
    with pytest.raises(AudioInputError) as err:
        read_wav(tmp_path / "nope.wav")
    assert_french(err.value, "introuvable")


def test_directory_instead_of_file(tmp_path):
    with pytest.raises(AudioInputError) as err:
        read_wav(tmp_path)
    assert_french(err.value, "pas un fichier ordinaire", "dossier")


def test_empty_file(tmp_path):
    with pytest.raises(AudioInputError) as err:
        read_wav(write(tmp_path, b""))
    assert_french(err.value, "vide")


def test_zero_samples(tmp_path):
    with pytest.raises(AudioInputError) as err:
        read_wav(write(tmp_path, make_wav(np.zeros(0, np.float32), 16000)))
    assert_french(err.value, "aucun son")


@pytest.mark.parametrize(
    "data",
    [
        b"RIFF",
        b"hello, this is a text file and not audio at all" * 10,
        bytes(np.random.default_rng(1).integers(0, 256, 4096, dtype=np.uint8)),
        b"RIFF\x10\x00\x00\x00WAVEdata\x04\x00\x00\x00\x00\x00\x00\x00",  # data before fmt
        b"RIFF\x0c\x00\x00\x00WAVEfmt \x04\x00\x00\x00\x01\x00",  # fmt too short
    ],
    ids=["truncated", "text", "random", "no-fmt", "short-fmt"],
)
def test_corrupt_files(tmp_path, data):
    with pytest.raises(AudioInputError) as err:
        read_wav(write(tmp_path, data))
    assert_french(err.value, "illisible")


def test_unsupported_encoding(tmp_path):
    data = make_wav(np.zeros(100, np.float32), 8000, bits=8, tag=MULAW)
    with pytest.raises(AudioInputError) as err:
        read_wav(write(tmp_path, data))
    assert_french(err.value, "pas pris en charge")
    assert "mu-law" in err.value.detail


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_samples(tmp_path, bad):
    x = sine(300, 16000, 0.1)
    x[100] = bad
    with pytest.raises(AudioInputError) as err:
        read_wav(write(tmp_path, make_wav(x, 16000, 32, FLOAT)))
    assert_french(err.value, "valeurs invalides")


def test_hours_long_file_is_refused_from_its_header_quickly(tmp_path):
    # A real (sparse) 3-hour 48 kHz stereo file: 2 GB that must not be read.
    rate, channels, hours = 48000, 2, 3
    data_bytes = rate * channels * 2 * 3600 * hours
    header = make_wav(np.zeros((1, channels), np.float32), rate)[:-4]  # drop the one frame
    header = header[:40] + struct.pack("<I", data_bytes)
    path = tmp_path / "long.wav"
    with path.open("wb") as handle:
        handle.write(header)
        handle.truncate(len(header) + data_bytes)
    start = time.perf_counter()
    with pytest.raises(AudioInputError) as err:
        read_wav(path)
    assert time.perf_counter() - start < 0.5
    assert_french(err.value, "trop long", "180 min")


def test_max_duration_is_configurable(tmp_path):
    path = write(tmp_path, make_wav(sine(300, 16000, 2.0), 16000))
    assert read_wav(path, max_duration_s=2.5).duration == pytest.approx(2.0)
    with pytest.raises(AudioInputError):
        read_wav(path, max_duration_s=1.0)
    assert MAX_DURATION_S == 600.0


# ----- header bombs (issue 11, item 2) --------------------------------------------------


def with_rate(data: bytes, rate: int) -> bytes:
    """The same WAV file with another sample rate (and byte rate) written in its header."""
    byte_rate = (rate * struct.unpack("<H", data[32:34])[0]) & 0xFFFFFFFF
    return data[:24] + struct.pack("<II", rate, byte_rate) + data[32:]


def traced_peak_mb(call) -> float:  # noqa: ANN001 - a callable
    """Peak Python/numpy allocation (MB) while ``call()`` runs; its exception propagates."""
    tracemalloc.start()
    try:
        call()
    finally:
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return peak / 1e6


@pytest.mark.parametrize("rate", [384_001, 10_000_019, 4_294_967_295, 192_001, 3_999, 1])
def test_implausible_sample_rates_are_refused_before_any_allocation(tmp_path, rate):
    # 2 KB files: at 384,001 Hz the resampler used to build a 635 MB filter table,
    # at 10,000,019 Hz 13 GB then a traceback.
    path = write(tmp_path, with_rate(make_wav(sine(300, 16000, 0.06), 16000), rate))
    assert path.stat().st_size < 2100

    def read() -> None:
        with pytest.raises(AudioInputError) as err:
            read_wav(path)
        assert_french(err.value, "fréquence", f"{rate} Hz")

    assert traced_peak_mb(read) < 5


@pytest.mark.parametrize("rate", [MIN_SAMPLE_RATE, 11025, 96000, 176400, MAX_SAMPLE_RATE])
def test_plausible_rates_up_to_192k_still_read(tmp_path, rate):
    x = sine(1000, rate, 0.5, amp=0.5)
    clip = read_wav(write(tmp_path, make_wav(x, rate)))
    assert clip.duration == pytest.approx(0.5, abs=1e-3)
    assert dominant_frequency(clip.samples, 16000) == pytest.approx(1000, abs=3)


@pytest.mark.parametrize("channels", [MAX_CHANNELS + 1, 65535])
def test_too_many_channels_are_refused(tmp_path, channels):
    data = bytearray(make_wav(sine(300, 16000, 0.01), 16000))
    data[22:24] = struct.pack("<H", channels)
    data[32:34] = struct.pack("<H", 0)  # "unknown" block align, accepted
    with pytest.raises(AudioInputError) as err:
        read_wav(write(tmp_path, bytes(data)))
    assert_french(err.value, "trop de canaux")


def test_tiny_file_declaring_1_8_gb_reads_only_what_it_holds(tmp_path):
    x = sine(440, 16000, 0.1)
    data = make_wav(x, 16000, declared_frames=900_000_000)  # 1.8 GB of 16-bit frames
    path = write(tmp_path, data)
    clips = []
    peak = traced_peak_mb(lambda: clips.append(read_wav(path)))
    assert peak < 5
    assert clips[0].duration == pytest.approx(0.1, abs=1e-3)


def test_large_legal_file_is_decoded_in_bounded_memory(tmp_path):
    # 30 s of 8-channel 192 kHz 16-bit audio (92 MB, sparse): within the
    # duration limit, so it is read; it used to be held whole three times over.
    rate, channels, seconds = 192_000, 8, 30
    data_bytes = rate * channels * 2 * seconds
    header = make_wav(np.zeros((1, channels), np.float32), rate)[: -2 * channels]
    header = header[:40] + struct.pack("<I", data_bytes)
    path = tmp_path / "big.wav"
    with path.open("wb") as handle:
        handle.write(header)
        handle.truncate(len(header) + data_bytes)
    clips = []
    peak = traced_peak_mb(lambda: clips.append(read_wav(path)))
    assert clips[0].duration == pytest.approx(seconds, abs=1e-3)
    output_mb = clips[0].samples.nbytes / 1e6  # 1.9 MB
    assert peak < output_mb * 2 + 40, f"{peak:.0f} MB for a {data_bytes / 1e6:.0f} MB file"


@pytest.mark.parametrize(("src", "dst"), [(191_999, 16_000), (16_000, 191_999)])
def test_resampler_memory_is_bounded_for_coprime_rates(src, dst):
    # One phase per output position: 16,000 or 191,999 phases, too many for a table.
    x = np.random.default_rng(2).standard_normal(src // 4).astype(np.float32)
    out = []
    peak = traced_peak_mb(lambda: out.append(resample(x, src, dst)))
    assert len(out[0]) == -(-len(x) * dst // src)
    assert peak < 80


def test_weights_computed_per_step_equal_the_cached_table(monkeypatch):
    x = np.random.default_rng(3).standard_normal(22050).astype(np.float32)
    with_table = resample(x, 22050, 16000)
    monkeypatch.setattr(resample_module, "_MAX_TABLE_ENTRIES", 0)
    resample_module._filter_table.cache_clear()
    try:
        assert np.array_equal(resample(x, 22050, 16000), with_table)
    finally:
        resample_module._filter_table.cache_clear()


@pytest.mark.parametrize("rate", [0, -16000, 4_294_967_295])
def test_resampler_refuses_impossible_rates(rate):
    with pytest.raises(ValueError, match="sample rates"):
        StreamResampler(rate, 16000)
