"""The optional personal-voice pack: torch, the trainer and its weights, for a child process.

Adapting the recogniser to a patient's voice trains with torch, which
practice never imports: ``python -m therapy_voice adapt`` runs in a process of
its own. The installers ship what it needs as an optional pack:

* Windows: ``TherapyApp-Voice-<version>.exe`` installs ``<install dir>\\voice\\``,
  beside ``python\\`` (the main setup replaces ``python\\`` on an upgrade, not the pack);
* Debian/Ubuntu: the package ``therapy-app-voice`` installs ``/opt/therapy-app/voice/``.

A pack folder, as ``installer/windows/stage_voice.py`` lays it out::

    voice-pack.json              manifest read here (the installers write it last)
    lib/py3.13/                  torch and what it needs beyond the app's own packages,
                                 one folder per Python version the pack serves
    app/therapy_voice/           the trainer package
    models/whisper-base-train/   the training weights (CTranslate2 model.bin + sidecar)
    THIRD_PARTY_LICENSES.txt

:func:`find_trainer` says how to start the trainer: from the pack when one is
installed and complete, else from the app's own Python when torch and
``therapy_voice`` are importable there (a developer checkout with the build
extras). The child runs with the app's interpreter and packages, the pack's
folders first on its ``sys.path``: the interpreter of the Windows bundle ignores
``PYTHONPATH`` (its ``._pth`` file fixes ``sys.path``) and the .deb runs Python
isolated (``-I``), so the folders travel in ``THERAPY_APP_VOICE_PATH`` and a
one-line bootstrap (``-c``) puts them on ``sys.path`` before running the module.

Nothing here imports torch or therapy_voice: their presence is checked with
:func:`importlib.util.find_spec`, which finds a package without running it.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import therapy_app
from therapy_app import model_store, pack_manifest
from therapy_app.errors import TherapyAppError

ENV_VOICE_DIR = "THERAPY_APP_VOICE_DIR"
"""Overrides where the pack is looked for (tests, unusual deployments)."""

ENV_CHILD_PATH = "THERAPY_APP_VOICE_PATH"
"""Folders (``os.pathsep``-separated) the bootstrap puts first on the child's ``sys.path``."""

MANIFEST = "voice-pack.json"
FORMAT = 1
"""Manifest layout version this code reads (``installer/windows/stage_voice.py``)."""

DIR_NAME = "voice"
TRAINER_MODULE = "therapy_voice"
WEIGHTS_NAME = "whisper-base-train"
"""The training weights' folder name (``therapy_app.asr.config.TRAIN_MODEL``)."""

NOT_INSTALLED = "Pack voix non installé."
"""What the therapist is told when adaptation cannot run."""

DEB_PACKAGE = "therapy-app-voice"

# Run by the child with ``-c``: the pack's folders first on sys.path, then the
# trainer as ``python -m therapy_voice`` would run it (sys.argv[1:] are its arguments).
BOOTSTRAP = (
    "import os, runpy, sys; "
    f"sys.path[0:0] = [p for p in os.environ.get({ENV_CHILD_PATH!r}, '').split(os.pathsep) if p]; "
    f"runpy.run_module({TRAINER_MODULE!r}, run_name='__main__', alter_sys=True)"
)


class VoicePackMissing(TherapyAppError):
    """The trainer cannot run here: no voice pack, or an incomplete one."""


def python_tag(version: tuple[int, ...] | None = None) -> str:
    """``"3.13"`` for the running interpreter (the key of the manifest's ``sites``)."""
    major, minor = (version or sys.version_info)[:2]
    return f"{major}.{minor}"


@dataclass(frozen=True)
class VoicePack:
    """An installed voice pack, as its manifest describes it.

    Attributes:
        directory: the pack folder.
        version: the app version the pack was built with (its trainer belongs to it).
        torch: the torch version it ships.
        device: ``"cpu"`` for a CPU-only torch build, ``"cuda"`` for one that can use CUDA.
        sites: Python version -> folder (relative to ``directory``) holding torch for it.
        trainer: folder (relative) holding the ``therapy_voice`` package.
        weights: the training weights folder (relative).
        problems: why the pack cannot be used here (empty when it can).
    """

    directory: Path
    version: str = "?"
    torch: str = "?"
    device: str = "cpu"
    sites: tuple[tuple[str, str], ...] = ()
    trainer: str = "app"
    weights: str = f"models/{WEIGHTS_NAME}"
    problems: tuple[str, ...] = ()

    @property
    def usable(self) -> bool:
        """True when every checked file is there and the pack serves this app and this Python."""
        return not self.problems

    @property
    def site_dir(self) -> Path | None:
        """The folder with torch for the running Python, or None when the pack has none."""
        rel = dict(self.sites).get(python_tag())
        return None if rel is None else self.directory / rel

    @property
    def trainer_dir(self) -> Path:
        """The folder holding the ``therapy_voice`` package."""
        return self.directory / self.trainer

    @property
    def weights_dir(self) -> Path:
        """The training weights (pass it as the trainer's ``--weights``)."""
        return self.directory / self.weights

    def describe(self) -> str:
        """One line for ``doctor`` and the log."""
        pythons = ", ".join(version for version, _ in self.sites) or "?"
        head = (
            f"{self.directory} (version {self.version}, torch {self.torch} {self.device}, "
            f"for Python {pythons})"
        )
        return head if self.usable else f"{head}: {'; '.join(self.problems)}"


def app_root() -> str:
    """The folder ``therapy_app`` was imported from (the app's site-packages when installed).

    Not resolved: in the .deb the later Python folders hold symlinks to the
    first one's files, and the child must import from its own version's folder.
    """
    return os.path.dirname(os.path.dirname(os.path.abspath(therapy_app.__file__)))


def pack_dir() -> Path | None:
    """Where the pack would be: ``THERAPY_APP_VOICE_DIR``, else beside the installed app.

    Windows: ``<install dir>\\voice`` (the bundled CPython is ``<install dir>\\python``,
    ``sys.base_prefix``). The .deb: ``/opt/therapy-app/voice`` when the app runs
    from ``/opt/therapy-app/lib/py3.X``. Elsewhere (a source checkout) there is
    no pack: None.
    """
    override = os.environ.get(ENV_VOICE_DIR)
    if override:
        return Path(override)
    if sys.platform == "win32":
        return Path(sys.base_prefix).parent / DIR_NAME
    site = Path(app_root())
    if site.parent.name == "lib" and (site.parent.parent / "launch.py").is_file():
        return site.parent.parent / DIR_NAME
    return None


def _size_problems(folder: Path, files: Mapping[str, object]) -> list[str]:
    missing = pack_manifest.damaged(folder, files)
    if not missing:
        return []
    shown = ", ".join(missing[:5]) + (f" and {len(missing) - 5} more" if len(missing) > 5 else "")
    return [f"missing or damaged: {shown} (reinstall the voice pack)"]


def find(directory: Path | None = None) -> VoicePack | None:
    """The installed pack, or None when there is none.

    Args:
        directory: where to look; None uses :func:`pack_dir`.

    The pack is unusable (``problems``) when its manifest is unreadable, a file
    it lists is missing or has another size, it was built for another app
    version (its trainer imports this app's modules), or it has no torch for
    the running Python.
    """
    folder = directory if directory is not None else pack_dir()
    if folder is None or not (folder / MANIFEST).is_file():
        return None
    try:
        meta = pack_manifest.read(folder, MANIFEST, FORMAT)
        files = meta["files"]
        if not isinstance(files, dict):
            raise TypeError("'files' is not an object")
        pack = VoicePack(
            directory=folder,
            version=str(meta.get("version", "?")),
            torch=str(meta["torch"]),
            device=str(meta.get("device", "cpu")),
            sites=tuple(sorted((str(k), str(v)) for k, v in dict(meta["sites"]).items())),
            trainer=str(meta.get("trainer", "app")),
            weights=str(meta.get("weights", f"models/{WEIGHTS_NAME}")),
        )
    except (OSError, ValueError, KeyError, TypeError) as exc:
        return VoicePack(folder, problems=(f"unreadable {MANIFEST}: {exc}",))
    problems = []
    if pack.version != therapy_app.__version__:
        problems.append(
            f"built for TherapyApp {pack.version}, this is {therapy_app.__version__} "
            "(install the voice pack of this version)"
        )
    if pack.site_dir is None:
        problems.append(f"no torch for Python {python_tag()} in the pack")
    problems += _size_problems(folder, files)
    if not (pack.trainer_dir / TRAINER_MODULE / "__main__.py").is_file():
        problems.append(f"no {TRAINER_MODULE} package in {pack.trainer_dir}")
    if not (pack.weights_dir / model_store.SIDECAR).is_file():
        problems.append(f"no training weights in {pack.weights_dir}")
    return replace(pack, problems=tuple(problems))


def child_python() -> str:
    """The app's own interpreter, with a console-capable executable on Windows.

    The GUI runs under ``pythonw.exe``; the trainer reports progress on stderr,
    so it gets ``python.exe`` from the same folder (started with no window).
    """
    executable = sys.executable
    folder, name = os.path.split(executable)
    if name.lower() == "pythonw.exe":
        console = os.path.join(folder, "python.exe")
        if os.path.isfile(console):
            return console
    return executable


@dataclass(frozen=True)
class TrainerLaunch:
    """How to start ``therapy_voice`` in a child process.

    Attributes:
        python: the app's interpreter (the child uses the app's packages).
        path: folders put first on the child's ``sys.path``, in order.
        weights: the training weights folder, for the trainer's ``--weights``.
        source: ``"pack"`` (the installed voice pack) or ``"app"`` (torch and
            therapy_voice importable in the app's own Python).
        pack: the pack, when the source is one.
        isolated: start the child with ``-I`` (as the .deb's launchers start the app).
        dll_dirs: folders prepended to the child's ``PATH`` (the GPU pack's CUDA
            DLLs, for a pack whose torch can use CUDA).
    """

    python: str
    path: tuple[str, ...]
    weights: Path
    source: str
    pack: VoicePack | None = None
    isolated: bool = False
    dll_dirs: tuple[str, ...] = ()

    def argv(self, args: Sequence[str]) -> list[str]:
        """The child's command line; ``args`` go to the trainer (``["adapt", ...]``).

        ``-X utf8``: the progress lines on stderr are UTF-8 on every system (a
        Windows pipe would otherwise carry the ANSI code page, and the bundled
        interpreter ignores ``PYTHONIOENCODING``).
        """
        flags = ["-I"] if self.isolated else []
        return [self.python, *flags, "-X", "utf8", "-c", BOOTSTRAP, *args]

    def env(self, base: Mapping[str, str] | None = None) -> dict[str, str]:
        """The child's environment: ``base`` (default ``os.environ``) plus the pack's folders."""
        env = dict(os.environ if base is None else base)
        env[ENV_CHILD_PATH] = os.pathsep.join(self.path)
        if self.dll_dirs:
            env["PATH"] = os.pathsep.join([*self.dll_dirs, *filter(None, [env.get("PATH")])])
        return env

    def describe(self) -> str:
        """One line for the log."""
        where = self.pack.describe() if self.pack is not None else "the app's own Python"
        return f"trainer from {where}; weights {self.weights}"


def _cuda_dll_dirs(pack: VoicePack) -> tuple[str, ...]:
    """The GPU pack's DLL folder, for a torch built with CUDA (the PyPI Windows torch is not)."""
    if pack.device != "cuda":
        return ()
    from therapy_app import gpu_pack

    gpu = gpu_pack.find()
    return (str(gpu.dll_dir),) if gpu is not None and gpu.usable else ()


def _own_weights() -> Path | None:
    for base in model_store.search_dirs():
        candidate = base / WEIGHTS_NAME
        if (candidate / model_store.SIDECAR).is_file() and (candidate / "model.bin").is_file():
            return candidate
    return None


def _own_python_trainer() -> tuple[TrainerLaunch | None, list[str]]:
    """The trainer from the app's own Python, or why not."""
    missing = []
    try:
        torch_found = importlib.util.find_spec("torch") is not None
        trainer = importlib.util.find_spec(TRAINER_MODULE)
    except (ImportError, ValueError) as exc:
        return None, [f"cannot look for torch and {TRAINER_MODULE}: {exc}"]
    if not torch_found:
        missing.append("torch is not installed in the app's Python")
    if trainer is None or trainer.origin is None:
        missing.append(f"{TRAINER_MODULE} is not importable in the app's Python")
    weights = _own_weights()
    if weights is None:
        missing.append(f"no {WEIGHTS_NAME} folder in {model_store.search_dirs()[0]}")
    if missing or trainer is None or trainer.origin is None or weights is None:
        return None, missing
    trainer_parent = str(Path(trainer.origin).parent.parent)
    path = tuple(dict.fromkeys([trainer_parent, app_root()]))
    launch = TrainerLaunch(
        python=child_python(),
        path=path,
        weights=weights,
        source="app",
        isolated=bool(sys.flags.isolated),
    )
    return launch, []


def install_hint() -> str:
    """What to install, in French, for this kind of installation."""
    version = therapy_app.__version__
    if sys.platform == "win32":
        return (
            f"Installez le module « TherapyApp-Voice-{version}.exe » pour adapter la "
            "reconnaissance à la voix du patient."
        )
    if pack_dir() is not None:
        return f"Installez le paquet {DEB_PACKAGE} ({DEB_PACKAGE}_{version}_amd64.deb)."
    return "Installez torch (pip install torch), puis lancez : python -m models.build"


def find_trainer(directory: Path | None = None) -> TrainerLaunch:
    """How to start the trainer here: from the voice pack, else from the app's own Python.

    Args:
        directory: the pack folder; None uses :func:`pack_dir`.

    Raises:
        VoicePackMissing: neither is usable; ``user_message`` is « Pack voix non
            installé. », ``detail`` says what is missing.
    """
    pack = find(directory)
    if pack is not None and pack.usable and pack.site_dir is not None:
        path = (str(pack.trainer_dir), app_root(), str(pack.site_dir))
        return TrainerLaunch(
            python=child_python(),
            path=tuple(dict.fromkeys(path)),
            weights=pack.weights_dir,
            source="pack",
            pack=pack,
            isolated=bool(sys.flags.isolated),
            dll_dirs=_cuda_dll_dirs(pack),
        )
    launch, missing = _own_python_trainer()
    if launch is not None:
        return launch
    folder = directory if directory is not None else pack_dir()
    if pack is not None:
        reasons = [f"voice pack {pack.describe()}"]
    elif folder is not None:
        reasons = [f"no voice pack in {folder}"]
    else:
        reasons = []
    raise VoicePackMissing(NOT_INSTALLED, install_hint(), "; ".join([*reasons, *missing]))
