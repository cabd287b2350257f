"""The ``therapy-app`` command line: data on stdout, logs and errors on stderr."""

from __future__ import annotations

import argparse
import codecs
import contextlib
import json
import logging
import math
import os
import re
import subprocess
import sys
import time
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

from therapy_app import __version__, paths
from therapy_app.errors import TherapyAppError
from therapy_app.tts.options import MAX_PAUSE_MS, MAX_RATE_WPM, MIN_RATE_WPM

if TYPE_CHECKING:  # imported lazily at run time: `--help` and `doctor` start fast
    from therapy_app.audio.clip import AudioClip
    from therapy_app.phrases.model import PhraseBook
    from therapy_app.speech.chain import UtteranceResult
    from therapy_app.speech.services import SpeechServices
    from therapy_app.storage import SessionRepository
    from therapy_app.storage.row_types import Patient
    from therapy_app.voice.model import AdaptProgress, PersonalModel

_LOGGER = logging.getLogger("therapy_app.cli")

DEMO_RECORDING = "demo/moi_aller_boulangerie_hier.wav"
EXIT_USER_ERROR = 2
EXIT_NO_SPEECH = 3
"""``transcribe``: the recording holds no speech (nothing printed on stdout)."""

# Command-line values are checked before anything loads (the TTS limits are
# the synthesizer's own); beams wider than 10 only cost time.
MAX_BEAM = 10

_ARGPARSE_FRENCH = (
    (re.compile(r"^argument (\S+): "), r"argument \1 : "),
    (re.compile(r"the following arguments are required: "), "il manque : "),
    (re.compile(r"unrecognized arguments: "), "arguments inconnus : "),
    (
        re.compile(r"invalid choice: (.*) \(choose from (.*)\)"),
        r"choix invalide : \1 (possibles : \2)",
    ),
    (re.compile(r"expected one argument"), "une valeur est attendue"),
)


def _out(line: str = "") -> None:
    print(line, flush=True)


def _err(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


class _FrenchArgumentParser(argparse.ArgumentParser):
    """argparse with one French line on stderr for bad arguments (no usage block)."""

    def error(self, message: str) -> NoReturn:
        for pattern, french in _ARGPARSE_FRENCH:
            message = pattern.sub(french, message)
        self.exit(EXIT_USER_ERROR, f"Erreur : {message} (aide : {self.prog} --help)\n")


def _number(value: str) -> float:
    try:
        number = float(value.replace(",", "."))
    except ValueError:
        raise argparse.ArgumentTypeError(f"« {value} » n'est pas un nombre") from None
    if not math.isfinite(number):
        raise argparse.ArgumentTypeError(f"« {value} » n'est pas un nombre")
    return number


def _whole(value: str) -> int:
    number = _number(value)
    if number != int(number):
        raise argparse.ArgumentTypeError(f"« {value} » n'est pas un nombre entier")
    return int(number)


def _rate(value: str) -> float:
    rate = _number(value)
    if not MIN_RATE_WPM <= rate <= MAX_RATE_WPM:
        raise argparse.ArgumentTypeError(
            f"la vitesse doit être comprise entre {MIN_RATE_WPM:.0f} et {MAX_RATE_WPM:.0f} "
            f"mots par minute (reçu : {value})"
        )
    return rate


def _pause(value: str) -> int:
    pause = _whole(value)
    if not 0 <= pause <= MAX_PAUSE_MS:
        raise argparse.ArgumentTypeError(
            f"la pause doit être comprise entre 0 et {MAX_PAUSE_MS} ms (reçu : {value})"
        )
    return pause


def _beam(value: str) -> int:
    beam = _whole(value)
    if not 1 <= beam <= MAX_BEAM:
        raise argparse.ArgumentTypeError(
            f"la largeur de faisceau doit être comprise entre 1 et {MAX_BEAM} (reçu : {value})"
        )
    return beam


def _positive(value: str) -> float:
    number = _number(value)
    if number <= 0:
        raise argparse.ArgumentTypeError(f"la valeur doit être positive (reçu : {value})")
    return number


def _steps(value: str) -> int:
    steps = _whole(value)
    if steps < 1:
        raise argparse.ArgumentTypeError(f"il faut au moins un pas (reçu : {value})")
    return steps


def _text(value: str) -> str:
    # Bytes that are not UTF-8 (a Latin-1 terminal) reach Python as lone
    # surrogates, which the tokenizers reject with a C++ exception.
    if any("\udc80" <= char <= "\udcff" for char in value):
        raise argparse.ArgumentTypeError(
            "le texte contient des caractères illisibles (le terminal n'est pas en UTF-8)"
        )
    return value


def _output_dir(value: str) -> Path:
    from therapy_app.output_paths import OutputPathError, output_folder

    try:
        return output_folder(value).path
    except OutputPathError as exc:
        raise argparse.ArgumentTypeError(exc.user_message.rstrip(".")) from None


def _cmd_doctor(args: argparse.Namespace) -> int:
    from therapy_app import doctor

    report = doctor.run(provider=args.provider, verify_hashes=not args.no_hash)
    if args.json:
        _out(json.dumps(report.to_dict(), ensure_ascii=False, indent=2))
    else:
        for check in report.checks:
            mark = "ok " if check.ok else ("!! " if check.required else "-- ")
            _out(f"{mark} {check.name}: {check.detail}")
        _out("Tout est prêt." if report.ok else "Des éléments manquent (voir « !! » ci-dessus).")
    return 0 if report.ok else 1


def _cmd_build_models(args: argparse.Namespace) -> int:
    root = paths.project_root()
    if not (root / "models" / "build.py").is_file():
        raise TherapyAppError(
            "La construction des modèles n'est possible que depuis les sources du projet.",
            "Les versions installées fournissent déjà leurs modèles.",
            f"no models/build.py under {root}",
        )
    command = [sys.executable, "-m", "models.build"] + (["--force"] if args.force else [])
    return subprocess.call(command, cwd=root)


def _read_clip(path: str) -> AudioClip:
    from therapy_app.audio.wavio import read_wav

    return read_wav(Path(path))


def _cmd_transcribe(args: argparse.Namespace) -> int:
    from therapy_app.asr.recognizer import DecodeOptions, SpeechRecognizer

    clip = _read_clip(args.file)
    personal = _personal_model(args.patient)
    recognizer = SpeechRecognizer.load(provider=args.provider, personal=personal)
    options = DecodeOptions() if args.beam is None else DecodeOptions(beam_size=args.beam)
    if args.raw:
        transcript = recognizer.transcribe(clip, options)
    else:
        # The app's own path: speech found by the VAD, long pauses capped.
        from therapy_app.asr.utterance import hear
        from therapy_app.vad.silero import VoiceActivityDetector

        heard = hear(recognizer, VoiceActivityDetector.load(), clip, options)
        if heard is None:
            _err("Aucune parole détectée dans cet enregistrement.")
            return EXIT_NO_SPEECH
        transcript = heard.transcript
    _LOGGER.info(
        "%.2f s of audio in %.2f s on %s",
        transcript.audio_seconds,
        transcript.decode_seconds,
        transcript.provider,
    )
    if args.json:
        _out(json.dumps(asdict(transcript), ensure_ascii=False))
    if not transcript.text.strip():
        _err("Aucune parole détectée dans cet enregistrement.")
        return EXIT_NO_SPEECH
    if not args.json:
        _out(transcript.text)
    return 0


def _cmd_score(args: argparse.Namespace) -> int:
    from therapy_app.asr.recognizer import SpeechRecognizer

    clip = _read_clip(args.file)
    ranked = SpeechRecognizer.load(provider=args.provider).score(clip, args.candidates)
    if args.json:
        _out(json.dumps([asdict(c) for c in ranked], ensure_ascii=False))
    else:
        for cand in ranked:
            _out(f"{cand.rank}\t{cand.logprob:.2f}\t{cand.text}")
    return 0


def _cmd_speak(args: argparse.Namespace) -> int:
    from therapy_app.output_paths import output_file
    from therapy_app.tts.options import SynthesisOptions, check_text
    from therapy_app.tts.synthesizer import SpeechSynthesizer

    # Checked before anything is synthesised or loaded.
    target = output_file(args.output, force=args.force) if args.output else None
    check_text(args.text)
    synth = SpeechSynthesizer.load(prefer=args.voice)
    options = SynthesisOptions(rate_wpm=args.rate, pause_between_words_ms=args.pause)
    start = time.perf_counter()
    clip = synth.synthesize(args.text, options)
    _LOGGER.info(
        "%s: %.2f s of speech in %.3f s",
        synth.voice_name,
        clip.duration,
        time.perf_counter() - start,
    )
    if target is not None:
        from therapy_app.audio.wavio import write_wav

        write_wav(target.prepare(), clip)
        _out(str(args.output))
    else:
        _play(clip)
    return 0


def _cmd_judge(args: argparse.Namespace) -> int:
    from therapy_app.asr.recognizer import SpeechRecognizer
    from therapy_app.exercises import load_content
    from therapy_app.naming.bank import default_bank
    from therapy_app.practice import judging
    from therapy_app.practice.events import ExerciseKind
    from therapy_app.vad.silero import VoiceActivityDetector

    # The item first: a target the exercise does not know is refused before loading.
    item, source = judging.item_for(
        ExerciseKind(args.exercise), args.target, load_content(), default_bank()
    )
    clip = _read_clip(args.file)
    personal = _personal_model(args.patient)
    recognizer = SpeechRecognizer.load(provider=args.provider, personal=personal)
    judged = judging.judge(recognizer, VoiceActivityDetector.load(), clip, item, source)
    if args.json:
        data = judging.as_json(judged)
        data["recognizer"] = recognizer.model_version
        _out(json.dumps(data, ensure_ascii=False))
    else:
        for line in judging.report_lines(judged):
            _out(line)
    _out(judging.verdict_word(judged))
    return 0


def _cmd_correct(args: argparse.Namespace) -> int:
    from therapy_app.correction.corrector import Corrector

    correction = Corrector.load(provider=args.provider).correct(args.text, beam_size=args.beam)
    if args.json:
        _out(json.dumps(asdict(correction), ensure_ascii=False))
    elif correction.refusal is not None:
        print(f"Je n'ai pas corrigé cette phrase : {correction.refusal}", file=sys.stderr)
        _out(args.text)
    else:
        _out(correction.best)
    return 0


def _play(clip: AudioClip) -> None:
    from therapy_app.audio.player import Player

    with Player() as player:
        player.play(clip, blocking=True)


def _print_result(result: UtteranceResult, index: int) -> None:
    t = result.timings
    _out(f"[{index}] entendu   ({t.get('asr', 0):.2f} s) : {result.text or '(rien)'}")
    first = result.correction.proposals[0] if result.correction is not None else None
    if first is not None and first.source == "phrase":
        _out(f"[{index}] carnet    ({t.get('phrases', 0):.2f} s) : {first.text}")
    elif "phrases" in t:
        _out(f"[{index}] carnet    ({t['phrases']:.2f} s) : (aucune phrase reconnue)")
    correction = result.correction.correction if result.correction is not None else None
    if correction is not None:
        restored = [w for op in correction.diff if op.kind == "restored" for w in op.target]
        if correction.refusal is not None:
            _out(f"[{index}] non corrigé : {correction.refusal}")
        else:
            _out(f"[{index}] corrigé   ({t.get('correct', 0):.2f} s) : {correction.best}")
        if restored:
            _out(f"[{index}] restauré  : {' '.join(restored)}")
    if result.speech is not None:
        _out(f"[{index}] voix      ({t.get('tts', 0):.2f} s) : {result.speech.duration:.1f} s")


def _result_json(result: UtteranceResult) -> str:
    """``loop --json``: one utterance as one line (``heard``, ``proposals``, ``timings``)."""
    proposals = result.correction.proposals if result.correction is not None else []
    return json.dumps(
        {
            "heard": result.text,
            "proposals": [
                {"text": p.text, "score": round(p.score, 4), "source": p.source} for p in proposals
            ],
            "timings": {k: round(v, 4) for k, v in result.timings.items()},
        },
        ensure_ascii=False,
    )


def _loop_book(args: argparse.Namespace) -> PhraseBook | None:
    """``--phrases FILE`` (with ``--patient``: agreed with their gender) or ``--patient``'s book."""
    if args.phrases is None and args.patient is None:
        return None
    from therapy_app.phrases.book import file_book, patient_book
    from therapy_app.phrases.model import Gender

    gender = Gender.UNSAID
    book = None
    if args.patient is not None:
        with _patient_repository(args.patient) as (repository, patient):
            if args.phrases is None:
                book = patient_book(repository, patient.id)
            else:
                gender = repository.phrases.gender(patient.id)
    if book is None:
        book = file_book(Path(args.phrases), gender)
    origin = "du fichier" if args.phrases is not None else "du carnet du patient"
    _err(f"Carnet de phrases : {len(book)} phrase(s) {origin}.")
    return book


def _cmd_loop(args: argparse.Namespace) -> int:
    # The practice screens' own speech path and loader (therapy_app.speech).
    from therapy_app.phrases.match import index_book
    from therapy_app.speech import chain
    from therapy_app.speech.loading import load_services, load_steps
    from therapy_app.speech.services import SilentPlayer
    from therapy_app.tts.options import SynthesisOptions

    # With --json stdout carries one JSON line per utterance and nothing else.
    say = _err if args.json else _out
    out_dir: Path | None = args.output_dir
    if out_dir is not None:
        _prepare_answers_dir(out_dir, force=args.force)
    book = _loop_book(args)  # a bad file is refused before the models load
    personal = _personal_model(args.patient)
    _err("Chargement des modèles…")
    services = load_services(
        player=SilentPlayer() if args.no_play else None,
        steps=load_steps(args.provider, with_corrector=not args.no_correct, personal=personal),
    )
    if book is not None:
        index_book(book)  # once, before the first utterance: not counted in its latency
    for notice in services.notices:
        _err(notice)
    options = SynthesisOptions(rate_wpm=args.rate)
    inputs = list(args.input or [])
    if args.demo:
        inputs.append(str(paths.resources_dir() / DEMO_RECORDING))
    index = 0
    while True:
        index += 1
        if inputs:
            if index > len(inputs):
                return 0
            clip = _read_clip(inputs[index - 1])
            say(f"[{index}] fichier   : {inputs[index - 1]} ({clip.duration:.1f} s)")
        else:
            recorded = _record(services, say)
            if recorded is None:
                return 0
            clip = recorded
        result = chain.run_utterance(services, clip, options, book=book)
        if args.json:
            _out(_result_json(result))
        else:
            _print_result(result, index)
        if result.speech is not None:
            if out_dir is not None:
                from therapy_app.audio.wavio import write_wav
                from therapy_app.output_paths import output_file

                answer = output_file(out_dir / _answer_name(index), force=args.force)
                say(f"[{index}] écrit     : {write_wav(answer.prepare(), result.speech)}")
            chain.play_clip(services, result.speech)
        if args.once:
            return 0


def _answer_name(index: int) -> str:
    return f"reponse_{index:03d}.wav"


def _prepare_answers_dir(folder: Path, *, force: bool) -> None:
    """Create ``--output-dir`` (0700) before the models load; refuse to overwrite unasked."""
    from therapy_app.output_paths import OutputPathError, output_folder

    output_folder(folder).prepare()
    earlier = sorted(folder.glob("reponse_*.wav"))
    if earlier and not force:
        raise OutputPathError(
            f"Le dossier « {folder} » contient déjà des réponses ({earlier[0].name}…).",
            "Choisissez un autre dossier, ou ajoutez --force pour les remplacer.",
            f"{len(earlier)} answers in {folder}, no --force",
        )


def _record(services: SpeechServices, say: Callable[[str], None] = _out) -> AudioClip | None:
    from therapy_app.audio.recorder import RecorderSettings
    from therapy_app.speech import chain
    from therapy_app.vad.silero import DEFAULT_TRAILING_SILENCE_MS

    _err("Parlez… (arrêt automatique à la fin de la phrase, Ctrl+C pour quitter)")
    limits = RecorderSettings(max_seconds=30.0, no_speech_timeout_s=8.0)
    recorder = chain.start_recording(services, DEFAULT_TRAILING_SILENCE_MS, limits)
    try:
        captured = chain.capture(recorder)
    except KeyboardInterrupt:
        with contextlib.suppress(TherapyAppError):
            recorder.stop()  # close the microphone; the clip so far is not wanted
        return None
    say(f"enregistré : {captured.clip.duration:.1f} s")
    return captured.clip


# -- a patient's personal voice ------------------------------------------


@contextlib.contextmanager
def _patient_repository(name: str) -> Iterator[tuple[SessionRepository, Patient]]:
    """The data and the patient called ``name``; no database is created to find nobody."""
    from therapy_app.storage import SessionRepository
    from therapy_app.voice.store import find_patient

    if not (paths.user_data_dir() / paths.DB_FILENAME).is_file():
        raise TherapyAppError(
            f"Aucun patient ne s'appelle « {name.strip()} ».",
            "Aucune donnée n'a encore été enregistrée sur cet ordinateur.",
        )
    with SessionRepository(check_integrity=False) as repository:
        yield repository, find_patient(repository, name)


def _personal_model(name: str | None) -> PersonalModel | None:
    """``--patient NAME``: the patient's adopted personal model, None for the generic one."""
    if name is None:
        return None
    from therapy_app.voice.store import personal_model

    with _patient_repository(name) as (repository, patient):
        personal = personal_model(repository.data_dir, patient.id)
    if personal is None:
        _err(f"Modèle général (pas de modèle personnel adopté pour « {patient.display_name} »).")
    else:
        _err(f"Modèle personnel de « {patient.display_name} ».")
    return personal


def _cmd_voice_import(args: argparse.Namespace) -> int:
    from therapy_app.storage import SessionRepository
    from therapy_app.voice.importing import import_tsv

    with SessionRepository(check_integrity=False) as repository:
        report = import_tsv(repository, args.patient, Path(args.list))
    for line in report.summary():
        _out(line)
    return 0


def _cmd_voice_adapt(args: argparse.Namespace) -> int:
    import signal

    from therapy_app.voice import report
    from therapy_app.voice.adaptation import AdaptationCancelledError, adapt_blocking

    last = ""

    def show(progress: AdaptProgress) -> None:
        nonlocal last
        line = report.progress_line(progress)
        if line != last:
            _err(line)
            last = line

    def stop(signum: int, frame: object) -> None:
        raise KeyboardInterrupt  # the trainer is told to stop and keep what it learnt

    previous = signal.signal(signal.SIGTERM, stop)
    try:
        with _patient_repository(args.patient) as (repository, patient):
            decision = adapt_blocking(
                repository,
                patient.id,
                show,
                provider=args.provider,
                max_steps=args.max_steps,
                minutes=args.minutes,
            )
    except KeyboardInterrupt:
        raise AdaptationCancelledError(
            "L'adaptation de la reconnaissance a été arrêtée.",
            "Relancez-la : l'apprentissage reprendra où il s'était arrêté.",
        ) from None
    finally:
        signal.signal(signal.SIGTERM, previous)
    if args.json:
        _out(json.dumps(decision.to_dict(), ensure_ascii=False))
    else:
        for line in report.decision_lines(decision):
            _out(line)
    return 0


def _cmd_voice_status(args: argparse.Namespace) -> int:
    from therapy_app.voice import report
    from therapy_app.voice.store import voice_status

    with _patient_repository(args.patient) as (repository, patient):
        status = voice_status(repository, patient.id)
    if args.json:
        data = asdict(status)
        data["usable_total"] = status.usable_total
        _out(json.dumps(data, ensure_ascii=False, default=str))
    else:
        for line in report.status_lines(status, patient.display_name):
            _out(line)
    return 0


def _cmd_voice_revert(args: argparse.Namespace) -> int:
    from therapy_app.voice.store import revert, undo_revert

    with _patient_repository(args.patient) as (repository, patient):
        if args.undo:
            undo_revert(repository.data_dir, patient.id)
            _out(f"« {patient.display_name} » utilise de nouveau son modèle personnel.")
        else:
            revert(repository.data_dir, patient.id)
            _out(
                f"« {patient.display_name} » utilise de nouveau le modèle général "
                "(le modèle personnel est gardé : --undo le reprend)."
            )
    return 0


PASSPHRASE_ENV = "THERAPY_APP_BACKUP_PASSPHRASE"


MAX_PASSPHRASE_FILE_BYTES = 4096
"""A passphrase file holds one line: a FIFO or /dev/zero is refused, a big file too."""


def _readable_passphrase(passphrase: str, source: str) -> str:
    # Bytes that are not UTF-8 (environment, terminal) reach Python as lone
    # surrogates, which the key derivation cannot encode.
    if any("\udc80" <= char <= "\udcff" for char in passphrase):
        raise TherapyAppError(
            f"Le mot de passe {source} contient des caractères illisibles.",
            "Utilisez un texte en UTF-8.",
            f"passphrase from {source} is not UTF-8",
        )
    return passphrase


def _passphrase(args: argparse.Namespace, *, confirm: bool) -> str | None:
    """The backup passphrase: a file, the environment, or typed twice (never an argument)."""
    if args.passphrase_file:
        from therapy_app.input_files import read_text

        text = read_text(
            args.passphrase_file,
            "le fichier du mot de passe",
            max_bytes=MAX_PASSPHRASE_FILE_BYTES,
        )
        return text.rstrip("\r\n")
    if os.environ.get(PASSPHRASE_ENV):
        return _readable_passphrase(os.environ[PASSPHRASE_ENV], f"de la variable {PASSPHRASE_ENV}")
    if not getattr(args, "encrypt", True):
        return None
    if not sys.stdin.isatty():
        raise TherapyAppError(
            "Aucun mot de passe pour la sauvegarde.",
            f"Utilisez --passphrase-file ou la variable {PASSPHRASE_ENV}.",
        )
    import getpass

    first = _readable_passphrase(getpass.getpass("Mot de passe de la sauvegarde : "), "tapé")
    if confirm and getpass.getpass("Encore une fois : ") != first:
        raise TherapyAppError("Les deux mots de passe ne sont pas identiques.", "Recommencez.")
    return first


def _cmd_backup(args: argparse.Namespace) -> int:
    from therapy_app.output_paths import backup_target
    from therapy_app.storage import SessionRepository
    from therapy_app.storage.backup import backup_warning, create_backup

    if args.status:
        with SessionRepository(check_integrity=False) as repository:
            warning = backup_warning(repository, args.max_age_days)
            last = repository.maintenance.last_backup_time()
        _out(
            f"dernière sauvegarde : {last.astimezone():%d/%m/%Y %H:%M}"
            if last
            else "dernière sauvegarde : aucune"
        )
        if warning:
            _out(warning)
        return 1 if warning else 0
    if args.destination is None:
        raise TherapyAppError(
            "Indiquez où écrire la sauvegarde (un fichier ou un dossier).",
            "Exemple : therapy-app backup /media/cle-usb",
        )
    # Checked here, before create_backup, which would replace any file (even
    # the live database) with the archive.
    target = backup_target(args.destination, force=args.force)
    with SessionRepository(check_integrity=False) as repository:
        passphrase = _passphrase(args, confirm=True) if args.encrypt else None
        info = create_backup(repository, target.prepare(), passphrase=passphrase)
    _out(info.summary())
    if info.missing:
        _err(f"Attention : {len(info.missing)} enregistrement(s) introuvable(s) sur le disque.")
    return 0


def _cmd_restore(args: argparse.Namespace) -> int:
    from therapy_app.storage.backup import restore_backup
    from therapy_app.storage.backup_crypto import is_encrypted

    archive = Path(args.archive)
    passphrase = None
    try:
        encrypted = archive.is_file() and is_encrypted(archive)
    except OSError as exc:  # unreadable: restore_backup would say so too, in French
        raise TherapyAppError(
            "Le fichier de sauvegarde ne peut pas être lu.",
            "Vérifiez que le support est branché et lisible. Rien n'a été modifié.",
            str(exc),
        ) from exc
    if encrypted:
        passphrase = _passphrase(args, confirm=False)
    if not args.yes:
        if not sys.stdin.isatty():
            raise TherapyAppError(
                "La restauration remplace les données actuelles.",
                "Confirmez avec --yes (les données actuelles sont mises de côté, pas effacées).",
            )
        answer = input("Remplacer les données actuelles par cette sauvegarde ? [o/N] ")
        if answer.strip().lower() not in ("o", "oui", "y", "yes"):
            _out("Rien n'a été modifié.")
            return 1
    info = restore_backup(archive, passphrase=passphrase)
    kept = (
        f" Les données précédentes sont gardées dans le dossier « {info.aside} » "
        "(aucun enregistrement n'a été effacé)."
        if info.aside is not None
        else ""  # restored into a new data folder: nothing was replaced
    )
    _out(
        f"Sauvegarde du {info.made_at.astimezone():%d/%m/%Y %H:%M} restaurée "
        f"({info.patient_count} patient(s), {info.attempt_count} essai(s)).{kept}"
    )
    return 0


def _cmd_recordings(args: argparse.Namespace) -> int:
    from therapy_app.storage import SessionRepository
    from therapy_app.storage.orphans import orphan_recordings
    from therapy_app.storage.recording_files import RECORDINGS_DIR

    data_dir = paths.user_data_dir()
    orphans: list[str] = []
    # No recordings folder, no orphan: nothing is opened, no database created.
    if (data_dir / RECORDINGS_DIR).is_dir():
        with SessionRepository(check_integrity=False) as repository:
            orphans = [orphan.relative_path for orphan in orphan_recordings(repository)]
    for relative_path in orphans:
        _out(relative_path)
    _err(
        f"{len(orphans)} enregistrement(s) sans essai dans « {data_dir} » (chemins relatifs "
        "à ce dossier) ; rien n'est effacé."
        if orphans
        else "Aucun enregistrement sans essai."
    )
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser (exposed for tests and documentation)."""
    parser = _FrenchArgumentParser(prog="therapy-app", description=__doc__)
    parser.add_argument("--version", action="version", version=__version__)
    parser.add_argument("-v", "--verbose", action="store_true", help="debug logs on stderr")
    parser.add_argument(
        "--provider",
        choices=["auto", "cpu", "cuda"],
        default=None,
        help="execution provider (default: THERAPY_APP_PROVIDER or auto)",
    )
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("doctor", help="check models, hashes, providers, audio and voice")
    p.add_argument("--json", action="store_true")
    p.add_argument("--no-hash", action="store_true", help="skip sha256 verification")
    p.set_defaults(func=_cmd_doctor)

    p = sub.add_parser("build-models", help="build the speech models (needs the build extra)")
    p.add_argument("--force", action="store_true")
    p.set_defaults(func=_cmd_build_models)

    p = sub.add_parser("transcribe", help="transcribe a WAV file (last stdout line: the text)")
    p.add_argument("file")
    p.add_argument(
        "--beam", type=_beam, default=None, help=f"beam width 1..{MAX_BEAM}; 1 = greedy (default 3)"
    )
    p.add_argument("--raw", action="store_true", help="the whole file, no VAD, pauses as recorded")
    p.add_argument("--json", action="store_true", help="details as JSON")
    _patient_option(p)
    p.set_defaults(func=_cmd_transcribe)

    p = sub.add_parser("score", help="rank expected texts by likelihood given the audio")
    p.add_argument("file")
    p.add_argument("candidates", nargs="+", type=_text)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=_cmd_score)

    p = sub.add_parser(
        "judge", help="judge a recording as practice would (last stdout line: réussi/échoué)"
    )
    p.add_argument("file", help="WAV recording of the answer")
    p.add_argument("--exercise", required=True, choices=["naming", "repetition", "completion"])
    p.add_argument(
        "--target",
        required=True,
        type=_text,
        help="naming: the picture's word; repetition/completion: the expected text",
    )
    p.add_argument("--json", action="store_true", help="every number the rule used")
    _patient_option(p, scoring=True)
    p.set_defaults(func=_cmd_judge)

    p = sub.add_parser("speak", help="say a French text (or write it with -o)")
    p.add_argument("text", type=_text)
    p.add_argument("-o", "--output", help="WAV file to write instead of playing")
    p.add_argument("--force", action="store_true", help="replace the -o file if it exists")
    p.add_argument("--rate", type=_rate, default=140.0, help="words per minute, 40..400")
    p.add_argument("--pause", type=_pause, default=0, help="pause between words, 0..1000 ms")
    p.add_argument("--voice", choices=["pico", "espeak"], default="pico")
    p.set_defaults(func=_cmd_speak)

    p = sub.add_parser("correct", help="correct telegraphic French (last stdout line: result)")
    p.add_argument("text", type=_text)
    p.add_argument("--beam", type=_beam, default=3, help=f"1..{MAX_BEAM}; 1 = greedy")
    p.add_argument("--json", action="store_true", help="alternatives, scores and diff")
    p.set_defaults(func=_cmd_correct)

    p = sub.add_parser("loop", help="microphone → recognition → correction → speech")
    p.add_argument("--input", action="append", help="WAV file instead of the microphone")
    p.add_argument("--demo", action="store_true", help="use the bundled demo recording")
    p.add_argument("--once", action="store_true", help="stop after one utterance")
    p.add_argument("--no-play", action="store_true", help="do not play the answer")
    p.add_argument("--no-correct", action="store_true", help="skip the corrector")
    p.add_argument(
        "--output-dir", type=_output_dir, help="also write each spoken answer as a WAV here"
    )
    p.add_argument("--force", action="store_true", help="replace answers already in --output-dir")
    p.add_argument("--rate", type=_rate, default=140.0, help="words per minute of the answer")
    p.add_argument(
        "--phrases",
        metavar="FILE",
        type=_text,
        help="a phrase book: one sentence per line, a clear match is proposed first",
    )
    p.add_argument(
        "--json", action="store_true", help="one JSON line per utterance on stdout, nothing else"
    )
    p.add_argument(
        "--patient",
        type=_text,
        metavar="NAME",
        help="this patient's phrase book (and personal voice model when one was adopted)",
    )
    p.set_defaults(func=_cmd_loop)

    p = sub.add_parser("backup", help="back up all patients' data (database + recordings)")
    p.add_argument("destination", nargs="?", help="backup file, or a folder to write it in")
    p.add_argument("--encrypt", action="store_true", help="protect it with a passphrase")
    p.add_argument("--passphrase-file", help="read the passphrase from this file")
    p.add_argument("--status", action="store_true", help="say when the last backup was made")
    p.add_argument("--force", action="store_true", help="replace the backup file if it exists")
    p.add_argument(
        "--max-age-days", type=_whole, default=7, help="--status: warn past this age (days)"
    )
    p.set_defaults(func=_cmd_backup)

    p = sub.add_parser("restore", help="replace the data with a backup (current data kept aside)")
    p.add_argument("archive", help="the .therapy-backup file")
    p.add_argument("--passphrase-file", help="read the passphrase from this file")
    p.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    p.set_defaults(func=_cmd_restore)

    p = sub.add_parser("recordings", help="recordings in the data folder")
    p.add_argument(
        "--orphans",
        action="store_true",
        required=True,
        help="list the recordings no attempt refers to (one path per line, relative "
        "to the data folder); nothing is deleted",
    )
    p.set_defaults(func=_cmd_recordings)

    _voice_parsers(sub)
    return parser


def _patient_option(parser: argparse.ArgumentParser, *, scoring: bool = False) -> None:
    extra = " (and its scoring, when adopted for scoring)" if scoring else ""
    parser.add_argument(
        "--patient",
        type=_text,
        metavar="NAME",
        help=f"use this patient's personal voice model when one was adopted{extra}",
    )


def _voice_parsers(sub: argparse._SubParsersAction[_FrenchArgumentParser]) -> None:
    voice = sub.add_parser("voice", help="a patient's personal voice model")
    commands = voice.add_subparsers(dest="voice_command", required=True)

    p = commands.add_parser("import", help="import recordings listed in a TSV (file, text)")
    p.add_argument("--patient", required=True, type=_text, metavar="NAME")
    p.add_argument("list", metavar="LIST.tsv", help="header 'file<TAB>text', paths relative to it")
    p.set_defaults(func=_cmd_voice_import)

    p = commands.add_parser("adapt", help="train and check a personal model (blocks)")
    p.add_argument("--patient", required=True, type=_text, metavar="NAME")
    p.add_argument("--json", action="store_true", help="the decision as JSON")
    p.add_argument("--max-steps", type=_steps, default=None, help=argparse.SUPPRESS)  # tests
    p.add_argument(
        "--minutes",
        type=_positive,
        default=None,
        help="budget for preparation and training (default: the trainer's, 12)",
    )
    p.set_defaults(func=_cmd_voice_adapt)

    p = commands.add_parser("status", help="usable recordings, last adaptation, model in use")
    p.add_argument("--patient", required=True, type=_text, metavar="NAME")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=_cmd_voice_status)

    p = commands.add_parser("revert", help="use the generic model again for this patient")
    p.add_argument("--patient", required=True, type=_text, metavar="NAME")
    p.add_argument("--undo", action="store_true", help="use the personal model set aside again")
    p.set_defaults(func=_cmd_voice_revert)


# What a terminal that cannot show accented letters prints instead of the
# characters of French messages that have no plain-letter form.
_PLAIN_FORMS = {"«": '"', "»": '"', "’": "'", "…": "...", "œ": "oe", "Œ": "OE", "—": "-", "–": "-"}


def _plain_letters(error: UnicodeError) -> tuple[str, int]:
    """Codec error handler: "é" becomes "e", "«" becomes '"', anything else "?"."""
    if not isinstance(error, UnicodeEncodeError):
        raise error
    plain = []
    for char in error.object[error.start : error.end]:
        ascii_form = unicodedata.normalize("NFKD", char).encode("ascii", "ignore").decode()
        plain.append(_PLAIN_FORMS.get(char) or ascii_form or ("" if char.isspace() else "?"))
    return "".join(plain), error.end


codecs.register_error("therapy_app.plain_letters", _plain_letters)


def _tolerant_streams() -> None:
    """Printing French never fails (``PYTHONIOENCODING=ascii``, a Latin-1 console).

    Python's stdout is strict: the first "é" used to end the command with a
    UnicodeEncodeError traceback.
    """
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            with contextlib.suppress(ValueError, OSError):
                reconfigure(errors="therapy_app.plain_letters")


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``therapy-app`` console script."""
    _tolerant_streams()
    args = build_parser().parse_args(argv)
    logging.basicConfig(
        level=logging.DEBUG if args.verbose else logging.INFO,
        format="%(levelname)s %(name)s: %(message)s",
        stream=sys.stderr,
    )
    if argv is None:  # a real command line, not a test calling main() in-process
        # Library warnings (numpy, onnxruntime) are English developer notes:
        # into the log, shown with -v only.
        logging.captureWarnings(True)
        if not args.verbose:
            logging.getLogger("py.warnings").setLevel(logging.ERROR)
    try:
        return int(args.func(args) or 0)
    except TherapyAppError as exc:
        _LOGGER.debug("failure detail: %s", exc.detail)
        _err(f"Erreur : {exc.french()}")
        return EXIT_USER_ERROR
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    raise SystemExit(main())
