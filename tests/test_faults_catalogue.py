"""The fault catalogue's own parts (issue 24): hostile files as claimed, counts judged right."""

from __future__ import annotations

import errno
import hashlib
import json
import math
import stat
import struct
import sys
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from benchmarks import fault_results, fault_sandbox, hostile_files
from benchmarks.fault_probes import CORRECTOR
from benchmarks.fault_results import Result, judge, markdown, totals
from benchmarks.fault_sandbox import Outcome, Runner, network_calls, writes_outside
from therapy_app.audio.clip import AudioClip
from therapy_app.domain.attempt_record import AttemptRecord
from therapy_app.storage import SessionRepository
from therapy_app.storage.backup import create_backup


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _wav_fields(data: bytes) -> tuple[int, int, int, int]:
    """(format code, channels, bits, data size) of a one-chunk WAV file."""
    code, channels, _, _, _, bits = struct.unpack("<HHIIHH", data[20:36])
    return code, channels, bits, struct.unpack("<I", data[40:44])[0]


def test_generated_files_are_what_they_claim(tmp_path: Path) -> None:
    files = hostile_files.generate(tmp_path / "a")
    again = hostile_files.generate(tmp_path / "b")
    assert set(files) == set(hostile_files.FILES)
    for name, path in files.items():  # deterministic: the same bytes every run
        if path.is_file() and not path.is_symlink():
            assert path.read_bytes() == again[name].read_bytes(), name
    assert stat.S_ISFIFO(files["fifo"].lstat().st_mode)
    with pytest.raises(OSError) as loop:
        files["loop.wav"].stat()
    assert loop.value.errno == errno.ELOOP
    for name, channels, value in (("float-1e30.wav", 1, 1e30), ("stereo-float-3e38.wav", 2, 3e38)):
        data = files[name].read_bytes()
        assert _wav_fields(data)[:3] == (3, channels, 32)
        samples = np.frombuffer(data[44:], "<f4")
        assert math.isclose(float(np.abs(samples).max()), value, rel_tol=1e-6)
    odd = files["odd-last-chunk.wav"].read_bytes()
    size = _wav_fields(odd)[3]
    assert size % 2 == 1 and len(odd) == 44 + size  # the data chunk ends the file, no pad byte
    assert struct.unpack("<I", odd[4:8])[0] == len(odd) - 8
    with pytest.raises(UnicodeDecodeError):
        files["passphrase-latin1.txt"].read_text(encoding="utf-8")


def test_generated_custom_lists(tmp_path: Path) -> None:
    files = hostile_files.generate(tmp_path)

    def parsed(name: str) -> Any:
        return json.loads(files[name].read_text(encoding="utf-8-sig"))

    assert files["list-bom.json"].read_bytes().startswith(b"\xef\xbb\xbf")
    assert parsed("list-bom.json")["items"] == hostile_files.LIST_ITEMS
    assert parsed("list-version-true.json")["version"] is True
    # Under the app's 1 MB file limit: the category itself is what is tested.
    assert 900_000 < files["list-900kB-category.json"].stat().st_size < 1_000_000
    invisible = parsed("list-invisible.json")["items"][0]["text"]
    assert invisible and set(invisible) <= set(hostile_files.INVISIBLE)
    assert "".join(invisible.split()) == invisible  # str.split() does not see it as blank
    [unknown] = parsed("list-unknown-picture.json")["items"]
    assert unknown["picture"] == "licorne-introuvable"
    with pytest.raises(RecursionError):
        parsed("list-nested.json")


@pytest.fixture(scope="module")
def reference_backup(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("reference")
    with SessionRepository(folder / "data") as repo:
        session = repo.sessions.start(repo.patients.create("Jeanne").id, "repetition")
        silence = AudioClip(np.zeros(1600, dtype=np.float32))
        repo.attempts.add(AttemptRecord(session_id=session.id, kind="repetition"), silence)
        return create_backup(repo, folder / "reference.therapy-backup").path


def _manifest(archive: Path) -> tuple[zipfile.ZipFile, str]:
    zf = zipfile.ZipFile(archive)
    return zf, zf.read(hostile_files.MANIFEST).decode()


def test_crafted_backups_are_what_they_claim(tmp_path: Path, reference_backup: Path) -> None:
    built = {
        name: make(reference_backup, tmp_path / f"{index}.zip")
        for index, (name, make) in enumerate(hostile_files.BACKUPS.items())
        if name != "zip bomb"
    }
    for name, archive in built.items():
        zf, text = _manifest(archive)
        with zf:
            if name == "manifest nested 100,000 deep":
                with pytest.raises(RecursionError):
                    json.loads(text)
                continue
            manifest = json.loads(text)
            members = [i.filename for i in zf.infolist()]
            for member, digest in manifest["files"].items():  # every member honestly hashed
                assert _sha256(zf.read(member)) == digest, (name, member)
        assert members[-1] == hostile_files.MANIFEST
        if name == "format is 1e999":
            assert manifest["format"] == math.inf
        elif name == "made_at is a number":
            assert isinstance(manifest["made_at"], int)
        elif name == "attempts is a text":
            assert isinstance(manifest["attempts"], str)
        elif name == "a file named recordings":
            assert "recordings" in members
        elif name == "a file named pending":
            assert "pending" in members
        elif name == "a 300-character member name":
            assert max(len(m.rsplit("/", 1)[-1]) for m in members) == hostile_files.LONG_NAME + 4
        elif name == "recordings/a then recordings/a/b":
            assert members.index("recordings/a") < members.index("recordings/a/b")


def test_zip_bomb_is_small_and_inflates_to_its_declared_size(
    tmp_path: Path, reference_backup: Path
) -> None:
    bomb = hostile_files.zip_bomb(reference_backup, tmp_path / "bomb.zip", size=64 << 20)
    zf, text = _manifest(bomb)
    with zf:
        [info] = [i for i in zf.infolist() if i.filename.endswith("bombe.wav")]
        assert info.file_size == 64 << 20 and info.compress_size < 100_000
        assert zf.read(info) == bytes(64 << 20)  # also checks its CRC-32
        assert json.loads(text)["files"][info.filename] == _sha256(bytes(64 << 20))
        others = sum(i.file_size for i in zf.infolist() if i is not info)
    # Small: the backup's files (stored as they are) plus under 100 kB of deflated zeros.
    assert bomb.stat().st_size < others + 100_000 + 4_096


@pytest.mark.parametrize("damage", hostile_files.SIDECAR_DAMAGE)
def test_damaged_model_sidecars(tmp_path: Path, damage: str) -> None:
    folder = hostile_files.damaged_model(CORRECTOR, tmp_path / CORRECTOR.name, damage)
    assert (folder / "encoder.onnx").resolve() == (CORRECTOR / "encoder.onnx").resolve()
    text = (folder / "model.json").read_text(encoding="utf-8")
    if damage == "nested 100,000 deep":
        with pytest.raises(RecursionError):
            json.loads(text)
        return
    files = json.loads(text)["files"]
    if damage == "files is a list":
        assert isinstance(files, list)
    else:
        assert "path" not in next(iter(files.values()))


# -- the runner's counts --------------------------------------------------------------


@pytest.fixture
def runner(tmp_path: Path) -> Runner:
    return Runner(tmp_path, use_strace=False)


def _python(code: str) -> list[str | bytes]:
    return [sys.executable, "-c", code]


def test_a_write_outside_the_data_folder_is_counted(runner: Runner) -> None:
    box = runner.box("writes", outputs=("out",))
    (box.root / "out").mkdir()
    inside = "import os; os.makedirs('{data}'); open('{data}/db', 'w'); open('{box}/out/f', 'w')"
    assert runner.run(_python(inside), box).outside == []
    home = "import os; open(os.environ['HOME'] + '/.trace', 'w')"
    tmp = "import tempfile; tempfile.mkstemp()"
    outcome = runner.run(_python(f"{home}; {tmp}"), box)
    assert outcome.outside[0] == "home/.trace" and outcome.outside[1].startswith("tmp/")
    chmod = runner.run(_python("import os; os.chmod('{in}', 0o700)"), box)
    assert chmod.outside == ["in"]  # a changed mode counts too
    result = Result.measured("w", "c", outcome, False, "")
    assert result.outside == 2 and result.failed and totals([result])["outside"] == 2


def test_strace_lines_are_read_for_network_and_writes() -> None:
    box = Path("/tmp/faults-x/boxes/001")
    lines = [
        '12 openat(AT_FDCWD, "/etc/therapy", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 3</etc/therapy>',
        '12 openat(AT_FDCWD, "/usr/lib/x.so", O_RDONLY|O_CLOEXEC) = 3</usr/lib/x.so>',
        '12 openat(AT_FDCWD, "/tmp/faults-x/boxes/001/data/db", O_RDWR|O_CREAT, 0644) = 4',
        '12 openat(AT_FDCWD, "/dev/shm/jack_db-0/__db.001", O_RDWR|O_CREAT, 0660) = 5',
        '12 mkdir("/root/.config/pulse", 0700) = -1 EEXIST (File exists)',
        '12 openat(7</home/u>, ".bashrc", O_WRONLY|O_APPEND) = 8',
        '12 symlink("/tmp/pulse-x", "/home/u/.config/pulse/id-runtime") = 0',
        "12 connect(3<socket:[1]>, {sa_family=AF_INET, sin_port=htons(443)}, 16) = 0",
        '12 connect(3<socket:[2]>, {sa_family=AF_UNIX, sun_path="/run/pulse"}, 110) = 0',
    ]
    assert writes_outside(lines, box) == [
        "openat /etc/therapy",
        "openat /home/u/.bashrc",
        "symlink /home/u/.config/pulse/id-runtime",
    ]
    assert network_calls(lines) == 1


def test_a_probe_past_its_time_limit_is_a_hang(runner: Runner) -> None:
    box = runner.box("sleeper")
    outcome = runner.run(["sleep", "100"], box, timeout=2)
    assert outcome.hung and outcome.seconds < 10
    assert judge(outcome, {0}) == (False, "hang: killed after 2 s")  # not a crash
    result = Result.measured("sleep", "hangs", outcome, False, "")
    assert result.failed and totals([result])["hangs"] == 1


def test_a_probe_using_1_5_gb_is_over_the_memory_limit(runner: Runner) -> None:
    # Held for a moment: launched from a big pytest process, only the /proc samples count.
    held = "import time; b = b'x' * (1500 << 20); time.sleep(0.5)"
    outcome = runner.run(_python(held), runner.box("memory"))
    assert outcome.returncode == 0 and not outcome.hung
    assert 1400 < outcome.peak_mb < fault_sandbox.MEMORY_KILL_MB
    result = Result.measured("memory", "hangs", outcome, False, "")
    assert result.over_memory and totals([result])["over_memory"] == 1
    small = runner.run(_python("pass"), runner.box("small"))
    assert not Result.measured("small", "hangs", small, False, "").failed


@pytest.mark.parametrize(
    ("code", "err", "crashed"),
    [
        (2, "Erreur : Le fichier est introuvable.\n", False),
        (2, "Le fichier est introuvable.\n", True),
        (0, 'Traceback (most recent call last):\n  File "x"\nValueError: x\n', True),
        (1, "", True),
        (0, "x.py:3: RuntimeWarning: overflow encountered in reduce\n", True),
    ],
)
def test_judging_exit_status_french_line_and_warnings(code: int, err: str, crashed: bool) -> None:
    outcome = Outcome(code, b"", err.encode(), 0.1)
    assert judge(outcome, {0, 2}, warnings=True)[0] is crashed


def test_markdown_table(runner: Runner) -> None:
    ok = Result("a", "hangs", False, 0, 0, 0, 0.1, "", peak_mb=80.0, expected="exit 2")
    bad = Result("b", "hangs", True, 1, 0, 0, 0.1, "x | y", peak_mb=90.0, expected="exit 0")
    table = markdown([ok, bad])
    assert table.splitlines()[0] == "| " + " | ".join(fault_results.COLUMNS) + " |"
    assert "| hangs | 2 | 1 | 1 | 0 | 0 | 0 | 0 | 0 | 90 |" in table
    assert "| hangs: b | exit 0 | fails | 90 | x \\| y |" in table
