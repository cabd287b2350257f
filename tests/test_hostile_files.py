"""Hostile input files read by the library: WAV, custom lists, text to speak (issue 24).

FIFOs must not block (the GUI's only database worker used to hang on one),
devices must not be read (``/dev/zero`` filled memory), odd values must get a
French refusal, and no English warning may leak.
"""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
import threading
import warnings
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from test_wavio import FLOAT, make_wav, sine, write

from therapy_app.audio.wavio import read_wav, read_wav_bytes
from therapy_app.errors import AudioInputError, SpeechSynthesisError, TherapyAppError
from therapy_app.exports.custom_lists import CustomListFileError, read_custom_list

posix_only = pytest.mark.skipif(os.name != "posix", reason="FIFOs and /dev/zero")


def within(seconds: float, call: Callable[[], object]) -> BaseException | None:
    """Run ``call`` in a daemon thread; fail if it is still blocked after ``seconds``."""
    outcome: list[BaseException | None] = []

    def run() -> None:
        try:
            call()
        except BaseException as exc:  # noqa: BLE001 - handed to the test
            outcome.append(exc)
        else:
            outcome.append(None)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    assert not thread.is_alive(), f"still blocked after {seconds} s"
    return outcome[0]


def in_subprocess_with_memory_limit(code: str) -> subprocess.CompletedProcess[str]:
    """``python -c code`` limited to 1 GB of address space and 60 s."""
    limit = "import resource; resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))\n"
    return subprocess.run(
        [sys.executable, "-c", limit + code],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


# ----- WAV files ------------------------------------------------------------------------


@posix_only
def test_a_fifo_as_recording_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "tube.wav"
    os.mkfifo(fifo)
    error = within(5, lambda: read_wav(fifo))
    assert isinstance(error, AudioInputError)
    assert "pas un fichier ordinaire" in error.user_message


@posix_only
def test_a_device_as_recording_is_refused() -> None:
    with pytest.raises(AudioInputError) as caught:
        read_wav("/dev/zero")
    assert "pas un fichier ordinaire" in caught.value.user_message


def test_a_folder_as_recording_is_refused(tmp_path: Path) -> None:
    with pytest.raises(AudioInputError) as caught:
        read_wav(tmp_path)
    assert "dossier" in caught.value.user_message


@pytest.mark.parametrize(
    ("bits", "value", "stereo"),
    [(32, 1e30, False), (32, 3e38, True), (64, 1e300, True), (64, -1e10, False)],
    ids=["1e30", "stereo-3e38", "float64-1e300", "float64-minus-1e10"],
)
def test_absurd_float_samples_are_refused_without_english_warnings(
    tmp_path: Path, bits: int, value: float, stereo: bool
) -> None:
    x = sine(300, 16000, 0.2).astype(np.float64)
    x[500] = value
    samples = np.stack([x, x], axis=1) if stereo else x
    path = write(tmp_path, make_wav(samples, 16000, bits, FLOAT))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # numpy's "overflow encountered" used to leak
        with pytest.raises(AudioInputError) as caught:
            read_wav(path)
    assert "valeurs invalides" in caught.value.user_message


def test_float_samples_a_little_above_full_scale_are_kept(tmp_path: Path) -> None:
    x = sine(300, 16000, 0.2, amp=1.5)  # +3.5 dBFS: a hot but real float recording
    clip = read_wav(write(tmp_path, make_wav(x, 16000, 32, FLOAT)))
    assert clip.peak == pytest.approx(1.5, abs=0.01)


@pytest.mark.parametrize("odd_chunk", [b"fact", b"fmt "])
def test_an_odd_chunk_without_its_pad_byte_is_read(odd_chunk: bytes) -> None:
    # Some writers leave the pad byte out; other readers accept such files.
    x = sine(500, 16000, 0.25)
    good = make_wav(x, 16000)
    fmt = good[20:36]
    data = good[36:]
    if odd_chunk == b"fmt ":  # a 17-byte fmt chunk (one extra byte), unpadded
        chunks = b"fmt " + struct.pack("<I", 17) + fmt + b"\x00" + data
    else:
        chunks = b"fmt " + struct.pack("<I", 16) + fmt + b"fact" + struct.pack("<I", 3) + b"abc"
        chunks += data
    body = b"WAVE" + chunks
    clip = read_wav_bytes(b"RIFF" + struct.pack("<I", len(body)) + body)
    assert np.max(np.abs(clip.samples - x)) < 1e-4


# ----- custom lists ---------------------------------------------------------------------


def write_list(tmp_path: Path, items: list[dict[str, object]], **top: object) -> Path:
    data = {"format": "therapy-app-custom-list", "version": 1, "items": items, **top}
    path = tmp_path / "liste.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


@posix_only
def test_a_fifo_as_list_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "liste.json"
    os.mkfifo(fifo)
    error = within(5, lambda: read_custom_list(fifo))
    assert isinstance(error, CustomListFileError)
    assert "pas un fichier ordinaire" in error.french()


@posix_only
def test_dev_zero_as_list_is_refused_before_reading() -> None:
    result = in_subprocess_with_memory_limit(
        "from therapy_app.exports.custom_lists import read_custom_list, CustomListFileError\n"
        "try:\n    read_custom_list('/dev/zero')\n"
        "except CustomListFileError as exc:\n    print(exc.french())\n"
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert "pas un fichier ordinaire" in result.stdout


def test_a_list_nested_100000_deep_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "liste.json"
    path.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    with pytest.raises(CustomListFileError) as caught:
        read_custom_list(path)
    assert "contenu illisible" in caught.value.french()


def test_a_list_written_by_notepad_with_a_byte_order_mark_is_read(tmp_path: Path) -> None:
    path = write_list(tmp_path, [{"kind": "word", "text": "pomme"}])
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    assert [i.text for i in read_custom_list(path)] == ["pomme"]


@pytest.mark.parametrize(
    ("items", "top", "message"),
    [
        ([{"kind": "word", "text": "pomme"}], {"version": True}, "version de ce fichier"),
        (
            [{"kind": "word", "text": "pomme", "category": "repas " * 150_000}],
            {},
            "thème de l'élément n° 1",
        ),
        ([{"kind": "word", "text": "\u200b\u200b\u200b"}], {}, "n° 1 n'a pas de texte"),
        ([{"kind": "sentence", "text": "\u2060\ufeff \u200d"}], {}, "n° 1 n'a pas de texte"),
        (
            [{"kind": "word", "text": "pomme"}, {"kind": "word", "text": "Médor", "picture": "x"}],
            {},
            "L'image de l'élément n° 2 n'existe pas",
        ),
    ],
    ids=["version-true", "900kB-category", "zero-width-spaces", "invisible-marks", "picture-id"],
)
def test_doubtful_list_contents_are_refused(
    tmp_path: Path, items: list[dict[str, object]], top: dict[str, object], message: str
) -> None:
    with pytest.raises(CustomListFileError) as caught:
        read_custom_list(write_list(tmp_path, items, **top))
    assert message in caught.value.french()


def test_invisible_characters_are_removed_from_kept_items(tmp_path: Path) -> None:
    path = write_list(
        tmp_path,
        [{"kind": "word", "text": "pom\u200bme", "category": "\u200bfruits", "picture": "chien"}],
    )
    [item] = read_custom_list(path)
    assert (item.text, item.category, item.picture) == ("pomme", "fruits", "chien")


# ----- text to speak -------------------------------------------------------------------


@pytest.fixture(scope="module")
def synthesizer():
    from therapy_app.tts.synthesizer import SpeechSynthesizer

    try:
        return SpeechSynthesizer.load(prefer="pico")
    except TherapyAppError as exc:
        pytest.skip(f"no voice: {exc.detail}")


def test_tags_the_app_does_not_use_are_not_read_aloud(synthesizer) -> None:
    plain = synthesizer.synthesize("bonjour").duration
    for text in ('<speed level="70">bonjour', "bonjour >", '<pitch level="50">bonjour</pitch>'):
        assert synthesizer.synthesize(text).duration == pytest.approx(plain, abs=0.02), text
    paused = synthesizer.synthesize('bonjour <break time="500ms"/> toi').duration
    assert paused > synthesizer.synthesize("bonjour toi").duration + 0.3  # breaks still work


@pytest.mark.parametrize("text", ["bonjour <break", 'bonjour <break time="500ms"', "</speed"])
def test_an_unfinished_tag_is_refused(synthesizer, text: str) -> None:
    with pytest.raises(SpeechSynthesisError) as caught:
        synthesizer.synthesize(text)
    assert "balise incomplète" in caught.value.french()
