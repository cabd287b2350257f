"""Bad command-line values: one French line on stderr, exit code 2, never a traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from therapy_app import cli


def _main(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        status = cli.main(list(argv))
    except SystemExit as exc:  # argparse exits on bad arguments
        status = int(exc.code or 0)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["speak", "bonjour", "--rate", "0"], "entre 40 et 400 mots par minute"),
        (["speak", "bonjour", "--rate", "nan"], "n'est pas un nombre"),
        (["speak", "bonjour", "--rate", "inf"], "n'est pas un nombre"),
        (["speak", "bonjour", "--rate", "vite"], "n'est pas un nombre"),
        (["speak", "bonjour", "--pause", "-5"], "entre 0 et 1000 ms"),
        (["speak", "bonjour", "--pause", "2500"], "entre 0 et 1000 ms"),
        (["speak", "bonjour", "--pause", "2.5"], "pas un nombre entier"),
        (["loop", "--demo", "--rate", "10000"], "entre 40 et 400 mots par minute"),
        (["transcribe", "x.wav", "--beam", "0"], "entre 1 et 10"),
        (["transcribe", "x.wav", "--beam", "-3"], "entre 1 et 10"),
        (["correct", "moi aller", "--beam", "500"], "entre 1 et 10"),
        (["correct", "moi \udce9t\udce9"], "caractères illisibles"),  # what Python makes of Latin-1
        (["score", "x.wav", "pain", "\udce9t\udce9"], "caractères illisibles"),
        (["speak"], "il manque"),
        (["--provider", "tpu", "doctor"], "choix invalide"),
        (["doctor", "--inconnu"], "arguments inconnus"),
    ],
)
def test_bad_values_get_one_french_line_and_exit_2(capsys, argv, expected):
    status, out, err = _main(capsys, *argv)
    assert status == cli.EXIT_USER_ERROR
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("Erreur : ")
    assert expected in lines[0]
    assert "usage:" not in err and "Traceback" not in err


def test_output_dir_that_is_a_file_is_refused(capsys, tmp_path: Path):
    existing = tmp_path / "reponses"
    existing.write_text("pas un dossier")
    status, _, err = _main(capsys, "loop", "--demo", "--no-play", "--output-dir", str(existing))
    assert status == cli.EXIT_USER_ERROR
    assert err.strip().splitlines() == [
        f"Erreur : argument --output-dir : « {existing} » est un fichier, pas un dossier"
        " (aide : therapy-app loop --help)"
    ]
    assert existing.read_text() == "pas un dossier"


def test_limits_themselves_are_accepted():
    parser = cli.build_parser()
    args = parser.parse_args(["speak", "été", "--rate", "40", "--pause", "1000"])
    assert (args.rate, args.pause, args.text) == (40.0, 1000, "été")
    assert parser.parse_args(["speak", "x", "--rate", "400,0"]).rate == 400.0
    assert parser.parse_args(["correct", "moi", "--beam", "10"]).beam == 10
    assert parser.parse_args(["transcribe", "x.wav", "--beam", "1"]).beam == 1


def test_latin1_bytes_from_a_real_terminal(tmp_path: Path):
    # The real path: argv bytes that are not UTF-8, decoded by Python at start-up.
    result = subprocess.run(
        [os.fsencode(sys.executable), b"-m", b"therapy_app.cli", b"correct", b"moi \xe9t\xe9"],
        capture_output=True,
        timeout=120,
        env={**os.environ, "LC_ALL": "C.UTF-8", "PYTHONUTF8": "1"},
        check=False,
    )
    err = result.stderr.decode("utf-8")
    assert result.returncode == cli.EXIT_USER_ERROR, err
    assert err.strip().splitlines() == [
        "Erreur : argument text : le texte contient des caractères illisibles "
        "(le terminal n'est pas en UTF-8) (aide : therapy-app correct --help)"
    ]
