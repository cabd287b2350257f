"""Whisper log-mel features: filterbank and spectrogram against reference implementations."""

from __future__ import annotations

import numpy as np
import pytest

from therapy_app.asr.features import (
    MelSettings,
    hz_to_mel,
    log_mel_spectrogram,
    mel_filterbank,
    mel_to_hz,
    pad_or_trim,
)


def _librosa_style_filterbank(sr: int, n_fft: int, n_mels: int) -> np.ndarray:
    """librosa.filters.mel (Slaney scale and norm) written band by band, as an oracle."""

    def to_mel(f: float) -> float:
        return f / (200.0 / 3) if f < 1000.0 else 15.0 + np.log(f / 1000.0) / (np.log(6.4) / 27)

    def to_hz(m: float) -> float:
        return m * (200.0 / 3) if m < 15.0 else 1000.0 * np.exp((np.log(6.4) / 27) * (m - 15.0))

    fft_freqs = [k * sr / n_fft for k in range(n_fft // 2 + 1)]
    top = to_mel(sr / 2)
    centers = [to_hz(top * i / (n_mels + 1)) for i in range(n_mels + 2)]
    weights = np.zeros((n_mels, len(fft_freqs)))
    for band in range(n_mels):
        lo, mid, hi = centers[band : band + 3]
        for k, f in enumerate(fft_freqs):
            rise = (f - lo) / (mid - lo)
            fall = (hi - f) / (hi - mid)
            weights[band, k] = max(0.0, min(rise, fall)) * 2.0 / (hi - lo)
    return weights


def test_filterbank_matches_band_by_band_oracle():
    ours = mel_filterbank(16_000, 400, 80)
    oracle = _librosa_style_filterbank(16_000, 400, 80)
    assert ours.shape == (80, 201)
    assert ours.dtype == np.float32
    np.testing.assert_allclose(ours, oracle, rtol=1e-5, atol=1e-9)


@pytest.mark.parametrize(
    ("band", "first", "last", "peak_bin", "peak"),
    [
        (0, 1, 1, 1, 0.024862593984176087),
        (1, 1, 2, 2, 0.022871772096078016),
        (40, 42, 44, 43, 0.01473556574143909),
        (79, 186, 199, 192, 0.003164711739176461),
    ],
)
def test_filterbank_matches_whisper_reference_values(band, first, last, peak_bin, peak):
    # Values of Whisper's mel_filters.npz (= librosa.filters.mel(sr=16000, n_fft=400,
    # n_mels=80)) as computed by faster-whisper's numpy port.
    row = mel_filterbank()[band]
    nonzero = np.nonzero(row)[0]
    assert (nonzero.min(), nonzero.max(), int(row.argmax())) == (first, last, peak_bin)
    assert row.max() == pytest.approx(peak, rel=1e-6)
    assert mel_filterbank().sum() == pytest.approx(1.9990241029178577, rel=1e-6)


def test_mel_scale_round_trip_and_break_point():
    freqs = np.array([0.0, 200.0, 999.0, 1000.0, 4000.0, 8000.0])
    np.testing.assert_allclose(mel_to_hz(hz_to_mel(freqs)), freqs, rtol=1e-9, atol=1e-9)
    assert hz_to_mel(np.array(1000.0)) == pytest.approx(15.0)


def test_pad_or_trim():
    assert len(pad_or_trim(np.ones(10, np.float32), 16)) == 16
    assert len(pad_or_trim(np.ones(20, np.float32), 16)) == 16


def test_spectrogram_shape_and_range():
    rng = np.random.default_rng(1)
    mel = log_mel_spectrogram((rng.standard_normal(16_000) * 0.1).astype(np.float32))
    assert mel.shape == (80, 3000)
    assert mel.dtype == np.float32
    # After the max-8 floor and (x + 4) / 4 every value spans at most 2 units.
    assert mel.max() - mel.min() <= 2.0 + 1e-5


def test_spectrogram_matches_whisper_torch_reference():
    torch = pytest.importorskip("torch", reason="torch gives the reference STFT")
    rng = np.random.default_rng(0)
    t = np.arange(40_000) / 16_000
    audio = (0.3 * np.sin(2 * np.pi * 440 * t) + 0.05 * rng.standard_normal(t.size)).astype(
        np.float32
    )
    # whisper.audio.log_mel_spectrogram on pad_or_trim(audio), written with torch.
    signal = torch.from_numpy(np.pad(audio, (0, 480_000 - audio.size)))
    stft = torch.stft(signal, 400, 160, window=torch.hann_window(400), return_complex=True)
    power = stft[..., :-1].abs() ** 2
    mel = torch.from_numpy(_librosa_style_filterbank(16_000, 400, 80).astype(np.float32)) @ power
    log_spec = torch.clamp(mel, min=1e-10).log10()
    log_spec = torch.maximum(log_spec, log_spec.max() - 8.0)
    reference = ((log_spec + 4.0) / 4.0).numpy()
    np.testing.assert_allclose(log_mel_spectrogram(audio), reference, atol=5e-5)


def test_settings_round_trip():
    settings = MelSettings()
    assert MelSettings.from_dict(settings.to_dict()) == settings
    assert (settings.n_samples, settings.n_frames) == (480_000, 3000)
