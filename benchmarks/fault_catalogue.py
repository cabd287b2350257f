"""The issue-24 fault catalogue: data loss, hangs and memory, tracebacks, smaller faults.

Each entry says what is tried and what passing means (exit statuses, then a
check of the disk); :mod:`benchmarks.fault_probes` sets it up, runs and judges it.
Most probes fail until the fixes of issue 24 land: the expectation is what
the fixed app must do, not what it does today.
"""

from __future__ import annotations

import json

from benchmarks import hostile_files as hostile
from benchmarks.fault_probes import (
    DB_NAME,
    ROOT,
    Check,
    Probe,
    a_file_at,
    absent,
    backed_up_then_two_more,
    copied_reference,
    crafted_backup,
    damaged_corrector,
    dangling_link,
    database_kept,
    database_moved_away,
    filled,
    hostile_file,
    kept_database_recordings,
    mode_is,
    no_file_named_newdir,
    pending_handled,
    precious,
    precious_kept,
    private_answers,
    recordings_kept,
    run_probe,
    shared_folder,
    spoken_like,
    stored_items,
    two_asides,
)
from benchmarks.fault_results import Result
from benchmarks.fault_sandbox import Runner

_NAMING_BANK = ROOT / "resources" / "naming" / "bank.json"
_MAX_CUSTOM_TEXT = 200
"""``therapy_app.domain.programs.MAX_CUSTOM_TEXT``: longest custom text or theme."""
_FILE_LIMIT = ("prlimit", "--fsize=8192")
_BOMB_LIMIT = ("prlimit", f"--fsize={256 << 20}")  # today's code must not fill the disk
_UMASK_0 = ("sh", "-c", 'umask 000 && exec "$@"', "sh")
RESTORE = ("restore", "{in}/archive.therapy-backup", "--yes")
_RESTORE_TWICE = """
    from datetime import UTC, datetime
    from therapy_app.storage.backup import restore_backup
    moment = datetime(2025, 3, 14, 9, 30, tzinfo=UTC)
    for _ in range(2):
        restore_backup(Path(sys.argv[2]), DATA, clock=lambda: moment)
"""
IMPORT_LIST = """
    from therapy_app.exports.custom_lists import read_custom_list
    items = read_custom_list(Path(sys.argv[2]))
    with SessionRepository(DATA) as repo:
        pid = repo.patients.create("Jeanne").id
        rows = [(i.kind, i.text, i.category, i.picture) for i in items]
        repo.programs.import_custom_items(pid, rows, "ortho")
        stored = [[c.text, c.category, c.picture] for c in repo.programs.custom_items(pid)]
    print(json.dumps(stored, ensure_ascii=False))
"""
"""A custom-list import as the therapist area does it (there is no command for it)."""
_ASCII_ONLY = (("PYTHONIOENCODING", "ascii"),)
_LONG = "{in}/" + "a" * hostile.LONG_NAME + ".wav"
_ENCRYPTED = ("backup", "{box}/out/b.therapy-backup", "--encrypt", "--passphrase-file")
ANY = frozenset({0, 2})


def _bank_ids() -> set[str]:
    return {item["id"] for item in json.loads(_NAMING_BANK.read_text())["items"]}


def _restore(
    name: str, variant: str | None = None, inner: tuple[str, ...] = (), read_only: bool = False
) -> Probe:
    """The reference backup (or its ``variant``) restored over two attempts: refused, data kept."""
    archive = copied_reference if variant is None else crafted_backup(variant)
    steps = (filled(2), archive)
    return Probe(
        name, RESTORE, setup=steps, check=database_kept(2), inner=inner, read_only=read_only
    )


def _list(name: str, file: str, codes: set[int], check: Check | None = None) -> Probe:
    """``file`` (a ``hostile.FILES`` name, or an absolute path) imported as a custom list."""
    steps = () if file.startswith("/") else (hostile_file(file),)
    path = file if file.startswith("/") else "{in}/" + file
    return Probe(name, (path,), frozenset(codes), steps, check, IMPORT_LIST, timeout=30)


def _bad_paths(verb: str, *rest: str) -> list[Probe]:
    """``verb`` on a path under a file, a 300-character name and a symlink loop."""
    loop = (hostile_file("loop.wav"),)
    return [
        Probe(f"{verb} /etc/passwd/x.wav", (verb, "/etc/passwd/x.wav", *rest)),
        Probe(f"{verb} a 300-character name", (verb, _LONG, *rest)),
        Probe(f"{verb} a symlink loop", (verb, "{in}/loop.wav", *rest), setup=loop),
    ]


def _transcribed(name: str, file: str, codes: set[int]) -> Probe:
    return Probe(name, ("transcribe", "{in}/" + file), frozenset(codes), (hostile_file(file),))


DATA_LOSS = [
    Probe(
        "restore after two more attempts",
        ("restore", "{in}/kept.therapy-backup", "--yes"),
        frozenset({0}),
        (backed_up_then_two_more,),
        Check("the kept database finds all its recordings", kept_database_recordings),
    ),
    Probe(
        "database moved away, backup --status",
        ("backup", "--status"),
        frozenset({0, 1, 2}),
        (database_moved_away,),
        Check("no recording deleted", recordings_kept),
    ),
    Probe(
        "manifest entry named recordings",
        RESTORE,
        setup=(filled(2), crafted_backup("a file named recordings")),
        check=database_kept(2),
    ),
    Probe(
        "two restores in the same second",
        ("{in}/kept.therapy-backup",),
        frozenset({0}),
        (backed_up_then_two_more,),
        Check("a kept database still holds the 5 attempts", two_asides),
        script=_RESTORE_TWICE,
    ),
    Probe(
        "speak -o the database",
        ("speak", "bonjour", "-o", "{data}/" + DB_NAME),
        setup=(filled(2),),
        check=database_kept(2),
    ),
    Probe(
        "backup over the database",
        ("backup", "{data}/" + DB_NAME),
        setup=(filled(2),),
        check=database_kept(2),
    ),
    Probe(
        "speak -o an existing file",
        ("speak", "bonjour", "-o", "{box}/out/existant.wav"),
        setup=(precious("existant.wav"),),
        check=Check("the existing file is unchanged", precious_kept),
    ),
    Probe(
        "backup over an existing file",
        ("backup", "{box}/out/existant.therapy-backup"),
        setup=(filled(1), precious("existant.therapy-backup")),
        check=Check("the existing file is unchanged", precious_kept),
    ),
    Probe(
        "data folder is a shared 1777 folder",
        ("backup", "--status"),
        setup=(shared_folder,),
        check=mode_is("data", 0o1777),
    ),
    Probe(
        "database is a dangling symlink",
        ("backup", "--status"),
        setup=(dangling_link,),
        check=absent("elsewhere/cible.sqlite3", "file at the link's target"),
    ),
]

HANGS = [
    Probe(
        "transcribe a FIFO",
        ("transcribe", "{in}/fifo"),
        setup=(hostile_file("fifo"),),
        timeout=30,
    ),
    Probe(
        "passphrase file is a FIFO",
        (*_ENCRYPTED, "{in}/fifo"),
        setup=(filled(1), hostile_file("fifo")),
        timeout=30,
    ),
    _list("custom list is a FIFO", "fifo", {2}),
    Probe("passphrase file is /dev/zero", (*_ENCRYPTED, "/dev/zero"), setup=(filled(1),)),
    _list("custom list is /dev/zero", "/dev/zero", {2}),
    Probe(
        "speak 20,000 words -o",
        ("speak", hostile.words(20_000), "-o", "{box}/out/long.wav"),
        ANY,
    ),
    Probe("correct 13,500 words", ("correct", hostile.words(13_500)), ANY),
]

TRACEBACKS = [
    _restore("restore: made_at is a number", "made_at is a number"),
    _restore("restore: attempts is a text", "attempts is a text"),
    _restore("restore: format is 1e999", "format is 1e999"),
    _restore("restore: manifest nested 100,000 deep", "manifest nested 100,000 deep"),
    _restore("restore: zip bomb (2 GiB)", "zip bomb", inner=_BOMB_LIMIT),
    _restore("restore into a read-only data folder", read_only=True),
    _restore("restore under ulimit -f 8 KiB", inner=_FILE_LIMIT),
    _restore("restore: a 300-character member name", "a 300-character member name"),
    _restore("restore: recordings/a then recordings/a/b", "recordings/a then recordings/a/b"),
    Probe(
        "restore: data folder under a file",
        RESTORE,
        setup=(a_file_at("in/fichier"), copied_reference),
        data="in/fichier/data",
    ),
    *_bad_paths("transcribe"),
    *_bad_paths("score", "pomme"),
    Probe("correct a 5,000-digit number", ("correct", "j'ai " + "7" * 5000), ANY),
    Probe(
        "score a 10,000-word candidate",
        ("score", "{speech}/word_01.wav", hostile.words(10_000)),
        ANY,
    ),
    Probe(
        "passphrase file not UTF-8",
        (*_ENCRYPTED, "{in}/passphrase-latin1.txt"),
        setup=(filled(1), hostile_file("passphrase-latin1.txt")),
    ),
    _list("custom list nested 100,000 deep", "list-nested.json", {2}),
    *[
        Probe(
            f"model.json: {damage}",
            ("correct", "moi aller école"),
            setup=(damaged_corrector(damage),),
            env=(("THERAPY_APP_MODELS_DIR", "{box}/models"),),
        )
        for damage in hostile.SIDECAR_DAMAGE
    ],
    Probe(
        "PYTHONIOENCODING=ascii, backup --status",
        ("backup", "--status"),
        frozenset({0, 1, 2}),
        (filled(1),),
        env=_ASCII_ONLY,
    ),
]

SMALLER = [
    Probe(
        "restore: a file named pending",
        RESTORE,
        ANY,
        (filled(2), crafted_backup("a file named pending")),
        Check("refused with the database kept, or no file named pending", pending_handled),
    ),
    _list('custom list "version": true', "list-version-true.json", {2}),
    _list(
        "custom list 900 kB category",
        "list-900kB-category.json",
        {0, 2},
        stored_items(
            f"refused, or categories of {_MAX_CUSTOM_TEXT} characters at most",
            lambda items: all(len(category) <= _MAX_CUSTOM_TEXT for _, category, _ in items),
        ),
    ),
    _list(
        "custom list invisible item",
        "list-invisible.json",
        {0, 2},
        stored_items(
            "refused, or no item without a visible character",
            lambda items: all(t.strip(hostile.INVISIBLE + " ") for t, _, _ in items),
        ),
    ),
    _list(
        "custom list unknown picture id",
        "list-unknown-picture.json",
        {0, 2},
        stored_items(
            "refused, or no unknown picture id stored",
            lambda items: all(p in _bank_ids() | {""} for _, _, p in items),
        ),
    ),
    _list(
        "custom list with a UTF-8 BOM",
        "list-bom.json",
        {0},
        stored_items("both items imported", lambda items: len(items) == 2),
    ),
    _transcribed("float WAV, samples 1e30", "float-1e30.wav", {0, 2, 3}),
    _transcribed("stereo float WAV, samples 3e38", "stereo-float-3e38.wav", {0, 2, 3}),
    _transcribed("odd last chunk without pad byte", "odd-last-chunk.wav", {0, 3}),
    Probe(
        "backup newdir/",
        ("backup", "newdir/"),
        ANY,
        (filled(1),),
        Check("no file named newdir", no_file_named_newdir),
        outputs=("cwd/newdir",),
    ),
    Probe(
        "speak -o a stray <",
        ("speak", "bonjour < madame", "-o", "{box}/out/tags.wav"),
        ANY,
        check=spoken_like("bonjour madame"),
    ),
    Probe(
        "speak -o an unclosed tag",
        ("speak", 'bonjour <speed level="300" madame', "-o", "{box}/out/tags.wav"),
        ANY,
        check=spoken_like("bonjour madame"),
    ),
    Probe(
        "loop --output-dir under umask 000",
        (
            "loop",
            "--input",
            "{speech}/word_01.wav",
            "--once",
            "--no-play",
            "--output-dir",
            "{box}/out/reponses",
        ),  # fmt: skip
        frozenset({0}),
        check=Check("the answers folder is not writable by others", private_answers),
        timeout=120,
        inner=_UMASK_0,
    ),
    Probe(
        "doctor with a fresh HOME",
        ("doctor", "--no-hash"),
        frozenset({0, 1}),
        check=absent("home/.config/pulse", "$HOME/.config/pulse"),
    ),
]

CATALOGUE = {
    "data-loss": ("data loss", DATA_LOSS),
    "hangs": ("hangs", HANGS),
    "tracebacks": ("tracebacks", TRACEBACKS),
    "smaller": ("smaller", SMALLER),
}
"""Group name (for ``--only``) -> its probes."""


def catalogue_probes(runner: Runner, group: str) -> list[Result]:
    """Run every probe of the group ``group`` (a key of ``CATALOGUE``)."""
    category, probes = CATALOGUE[group]
    return [r for p in probes if (r := run_probe(runner, p, category)) is not None]
