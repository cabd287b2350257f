"""Picture-naming benchmark: is the picture's name ranked first among its competitors?

    .venv/bin/python benchmarks/naming.py                 # ≈ 6-9 min on 2 shared cores
    .venv/bin/python benchmarks/naming.py --independent   # + ktuberling (report only)

For each recording, the answer's forms and its competitors' forms
(:mod:`therapy_app.naming.candidates`: 4 same-category items, 3 phonological
neighbours) are scored by ``SpeechRecognizer.score``; top-1 = an answer form
beats every competitor form. Two candidate sets are compared on the same
recordings: **bare** words only, and **determiner variants** (bare, un/une,
le/la/l', the other gender's articles).

* **Synthetic** (the app's TTS): items drawn evenly across categories, said
  bare ("chat") and with the determiner ("un chat") by SVOX Pico and three
  espeak-ng voices (``models/halting/voices.py``, deterministic).
* **Practice verdict** (every synthetic recording and Armelle's words): the
  app's whole path, VAD, transcription and
  :func:`therapy_app.naming.scoring.score_naming` (the one verdict rule of
  ``therapy_app/verdict.py``): how often a right answer gets "Bravo" (true
  accept), and how often the same recording, taken as the answer to another
  picture of the list, is wrongly accepted (false accept). The best margin on
  half of the words (least 3 x false accepts + false rejects) is reported as
  "calibration chose"; ``NAMING_RANK_MARGIN`` itself is chosen with the other
  settings by ``benchmarks/verdict_calibration.py`` (its false accepts here are
  all names of competitors, which the scoring sees: docs/decisions/0023).
* **Human, allowed** (Debian ``asterisk-prompt-fr-armelle``, one speaker,
  8 kHz telephone prompts): her only isolated nouns with certain text, the 12
  months and 7 days, said bare; competitors from those 19 and the picture bank.
* **Independent, reserved** (``--independent``; Debian ``ktuberling-data``,
  isolated nouns, mostly said with a determiner): reported in its own part
  of the JSON; nothing is chosen on it.

Writes ``benchmarks/results/naming.json``.
"""

from __future__ import annotations

import argparse
import statistics
import time
import zlib
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

from benchmarks.bookkeeping import write_report  # noqa: E402
from benchmarks.human_eval import HumanItem, armelle_words, fold, ktuberling_nouns, load_audio  # noqa: E402
from models.halting.voices import VoiceSpec, render  # noqa: E402
from models.naming.build import lexique_path, read_lexique  # noqa: E402
from therapy_app.asr.recognizer import SpeechRecognizer  # noqa: E402
from therapy_app.audio.clip import AudioClip  # noqa: E402
from therapy_app.naming.bank import NamingBank, NamingItem, default_bank  # noqa: E402
from therapy_app.naming.candidates import find_competitors  # noqa: E402
from therapy_app.naming.scoring import rank_answer, score_naming  # noqa: E402
from therapy_app.verdict import NAMING_RANK_MARGIN, RANK_MARGIN, decide  # noqa: E402

OUT = ROOT / "benchmarks" / "results" / "naming.json"
VOICES = (
    VoiceSpec("pico", "fr-FR"),
    VoiceSpec("espeak", "fr", ""),
    VoiceSpec("espeak", "fr", "f2"),
    VoiceSpec("espeak", "fr-be", "m3"),
)
_MONTHS = ("janvier février mars avril mai juin juillet août septembre octobre "
           "novembre décembre").split()  # fmt: skip
_DAYS = "dimanche lundi mardi mercredi jeudi vendredi samedi".split()


@dataclass(frozen=True)
class Recording:
    """One clip to rank.

    Attributes:
        item: the answer.
        said: what was said ("chat", "un chat").
        voice: who said it.
        clip: the audio.
    """

    item: NamingItem
    said: str
    voice: str
    clip: AudioClip


def spread_items(bank: NamingBank, count: int) -> list[NamingItem]:
    """``count`` items taken round-robin over the categories (bank order within each)."""
    by_category: dict[str, list[NamingItem]] = {}
    for item in bank.items:
        by_category.setdefault(item.category, []).append(item)
    chosen: list[NamingItem] = []
    while len(chosen) < count and any(by_category.values()):
        for items in by_category.values():
            if items and len(chosen) < count:
                chosen.append(items.pop(0))
    return chosen


def synthetic(bank: NamingBank, count: int, per_espeak: int) -> list[Recording]:
    """Pico says ``count`` items, each espeak voice the first ``per_espeak``; bare and with det."""
    items = spread_items(bank, count)
    out = []
    for voice in VOICES:
        subset = items if voice.engine == "pico" else items[:per_espeak]
        for item in subset:
            for said in dict.fromkeys((item.word, item.indefinite or item.word)):
                out.append(Recording(item, said, voice.name, render(voice, said)))
    return out


def _lexicon_item(word: str, table: dict[str, Any], category: str) -> NamingItem | None:
    """A NamingItem for a word Lexique knows as a singular noun (accents restored)."""
    parts = word.split()
    restored, phon = [], ""
    for part in parts:
        key = fold(part).replace(" ", "")
        rows = table.get(part) or table.get(_ACCENTLESS.get(key, ""), [])
        if not rows:
            return None
        best = max(rows, key=lambda e: e.freq_lemma_films)
        restored.append(best.ortho.replace("oe", "œ") if "oe" in best.ortho else best.ortho)
        phon += best.phon
    head_rows = [
        e
        for e in table.get(restored[0].replace("œ", "oe"), [])
        if e.cgram == "NOM" and e.number != "p"
    ]
    if not head_rows:
        return None
    gender = max(head_rows, key=lambda e: e.freq_lemma_films).gender or "m"
    text = " ".join(restored)
    article = "un " if gender == "m" else "une "
    vowel = text[0] in "aeiouyàâéèêîôœh"
    definite = ("l'" if vowel else ("le " if gender == "m" else "la ")) + text
    return NamingItem(
        id=f"{category}:{text}",
        word=text,
        gender=gender,
        category=category,
        semantic_cue="",
        indefinite=article + text,
        definite=definite,
        plural="",
        first_sounds="",
        first_sounds_spoken="",
        phon=phon,
        frequency_band=0,
        picture="",
    )


_ACCENTLESS: dict[str, str] = {}


def _accentless_index(table: dict[str, Any]) -> None:
    """Folded spelling -> the most frequent Lexique spelling (ktuberling names drop accents)."""
    best: dict[str, tuple[float, str]] = {}
    for ortho, rows in table.items():
        key = fold(ortho).replace(" ", "")
        freq = max(e.freq_lemma_films for e in rows)
        if key not in best or freq > best[key][0]:
            best[key] = (freq, ortho)
    _ACCENTLESS.update({k: v for k, (_, v) in best.items()})


def human_set(
    human: Sequence[HumanItem], table: dict[str, Any], category_of: dict[str, str]
) -> list[tuple[NamingItem, HumanItem]]:
    """Human recordings whose text is a known singular noun, with their NamingItem."""
    out = []
    seen: set[str] = set()
    for h in human:
        text = h.text.strip()
        item = _lexicon_item(text, table, category_of.get(text, "human"))
        if item is None or text in seen:
            continue
        seen.add(text)
        out.append((item, h))
    return out


def with_items(bank: NamingBank, extra: Iterable[NamingItem]) -> NamingBank:
    """The picture bank plus ``extra`` items (competitors are drawn from both)."""
    extra = list(extra)
    categories = dict(bank.categories)
    categories.update({i.category: i.category for i in extra})
    known = {i.word for i in bank.items}
    return replace(
        bank, items=(*bank.items, *(i for i in extra if i.word not in known)), categories=categories
    )


def rank_all(
    recognizer: SpeechRecognizer,
    bank: NamingBank,
    recordings: Sequence[tuple[NamingItem, str, str, AudioClip]],
) -> list[dict[str, Any]]:
    """Rank each recording with bare and determiner-variant candidates (one encoding)."""
    rows = []
    for item, said, voice, clip in recordings:
        answer = bank.by_word(item.word) or item
        competitors = find_competitors(answer, bank)
        start = time.perf_counter()
        encoded = recognizer.encode(clip)
        bare = rank_answer(recognizer, encoded, answer, competitors, with_determiners=False)
        variants = rank_answer(recognizer, encoded, answer, competitors, with_determiners=True)
        rows.append(
            {
                "word": item.word,
                "said": said,
                "voice": voice,
                "bare_top1": bare.top1,
                "bare_rival": bare.rival,
                "bare_margin": round(bare.margin, 3),
                "variants_top1": variants.top1,
                "variants_rival": variants.rival,
                "variants_margin": round(variants.margin, 3),
                "seconds": round(time.perf_counter() - start, 3),
            }
        )
    return rows


def _judged(
    recognizer: SpeechRecognizer,
    vad: Any,
    bank: NamingBank,
    rec_item: NamingItem,
    clip: AudioClip,
    other: NamingItem,
) -> dict[str, Any]:
    """The practice rule's numbers for one recording as the answer to its own picture and to
    ``other`` (a wrong picture): WER, margin over the competitors, gap to the transcript."""
    from therapy_app.asr.utterance import hear

    heard = hear(recognizer, vad, clip)
    row: dict[str, Any] = {"word": rec_item.word, "heard": None, "wrong_target": other.word}
    if heard is None:
        return row
    row["heard"] = heard.transcript.text
    for key, target in (("right", rec_item), ("wrong", other)):
        rivals = find_competitors(target, bank)
        result = score_naming(recognizer, heard.asr_clip, heard.transcript.text, target, rivals)
        row[key] = {"success": result.success, "wer": result.wer, "margin": result.margin,
                    "gap": result.transcript_gap, "phone_fit": result.phone_fit,
                    "phone_margin": result.phone_margin,
                    "by_phones": result.by_phones}  # fmt: skip
    return row


def judge_all(
    recognizer: SpeechRecognizer,
    bank: NamingBank,
    recordings: Sequence[tuple[NamingItem, str, str, AudioClip]],
) -> list[dict[str, Any]]:
    """Each recording judged as the right answer and as the answer to another picture.

    The other picture is two places further in the same list (same voice), so
    wrong answers are real names of the set, not noise.
    """
    from therapy_app.vad.silero import VoiceActivityDetector

    vad = VoiceActivityDetector.load()
    by_voice: dict[str, list[NamingItem]] = {}
    for item, _, voice, _ in recordings:
        by_voice.setdefault(voice, []).append(item)
    seen: Counter[str] = Counter()
    rows = []
    for item, said, voice, clip in recordings:
        same_voice, position = by_voice[voice], seen[voice]
        seen[voice] += 1
        other = next(
            candidate
            for step in (2, 3, 4, 5)
            for candidate in [same_voice[(position + step) % len(same_voice)]]
            if candidate.word != item.word
        )
        answer = bank.by_word(item.word) or item
        row = _judged(recognizer, vad, bank, answer, clip, bank.by_word(other.word) or other)
        row.update({"said": said, "voice": voice})
        rows.append(row)
    return rows


def rates(rows: Sequence[dict[str, Any]], rank_margin: float) -> dict[str, Any]:
    """True accept of the right picture and false accept of the wrong one, at ``rank_margin``."""

    def accepted(judged: dict[str, Any] | None) -> bool:
        if judged is None:
            return False
        # The phone rule (decision 0029) does not depend on the margin replayed here.
        return (
            bool(judged.get("by_phones"))
            or decide(
                judged["wer"],
                judged["margin"],
                judged["gap"],
                rank_margin=rank_margin,
                phone_margin=judged.get("phone_margin"),
            ).success
        )

    n = len(rows)
    if not n:
        return {"n": 0}
    return {
        "n": n,
        "true_accept": round(100 * sum(accepted(r.get("right")) for r in rows) / n, 1),
        "false_accept": round(100 * sum(accepted(r.get("wrong")) for r in rows) / n, 1),
    }


def _calibration_half(word: str) -> bool:
    """Half of the words (fixed by their hash) choose the margin; the other half is reported."""
    return zlib.crc32(word.encode()) % 2 == 0


def calibrate(half: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The naming margin with the least 3 x false accepts + false rejects on ``half``.

    Synthetic voices and Armelle's allowed words together (words of the
    calibration half); as for the repetition verdict, a "Bravo" for a wrong
    name is the worst error.
    """
    grid = [round(0.1 * k, 1) for k in range(0, 16)]

    def cost(margin: float) -> float:
        r = rates(half, margin)
        return 3 * r["false_accept"] + (100 - r["true_accept"])

    best = min(grid, key=lambda m: (cost(m), -m))
    return {"grid": {str(m): rates(half, m) for m in grid}, "chosen": best}


def summary(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Top-1 rates (percent) for both candidate sets."""
    n = len(rows)
    if not n:
        return {"n": 0}
    return {
        "n": n,
        "bare_top1": round(100 * sum(r["bare_top1"] for r in rows) / n, 1),
        "variants_top1": round(100 * sum(r["variants_top1"] for r in rows) / n, 1),
        "median_s": round(statistics.median(r["seconds"] for r in rows), 3),
    }


def main(argv: list[str] | None = None) -> int:
    """Command line (see the module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=40, help="items spoken by Pico")
    parser.add_argument("--per-espeak", type=int, default=16, help="items per espeak-ng voice")
    parser.add_argument("--independent", action="store_true", help="also ktuberling (reserved)")
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    started = time.perf_counter()
    recognizer = SpeechRecognizer.load(threads=2)
    bank = default_bank()
    table = read_lexique(lexique_path())
    _accentless_index(table)

    recs = synthetic(bank, args.items, args.per_espeak)
    synth_rows = rank_all(recognizer, bank, [(r.item, r.said, r.voice, r.clip) for r in recs])
    result: dict[str, Any] = {"synthetic": {}, "human_allowed": {}, "rows": {}}
    groups: dict[str, list[dict[str, Any]]] = {}
    for row in synth_rows:
        with_det = row["said"] != row["word"]
        family = "pico" if row["voice"] == "pico" else "espeak"
        groups.setdefault(f"{family}, {'with determiner' if with_det else 'bare'}", []).append(row)
    groups["all synthetic"] = synth_rows
    result["synthetic"] = {name: summary(rows) for name, rows in groups.items()}
    result["rows"]["synthetic"] = synth_rows

    categories = {m: "mois" for m in _MONTHS} | {d: "jour" for d in _DAYS}
    armelle = [h for h in armelle_words() if h.text in categories]
    pairs = human_set(armelle, table, categories)
    human_bank = with_items(bank, [item for item, _ in pairs])
    human_rows = rank_all(
        recognizer, human_bank, [(i, h.text, "armelle", h.clip) for i, h in pairs]
    )
    result["human_allowed"] = {"armelle months and days, bare": summary(human_rows)}
    result["rows"]["human_allowed"] = human_rows

    # The practice verdict (VAD, transcript, the one rule with naming's margin).
    synthetic_recs = [(r.item, r.said, r.voice, r.clip) for r in recs]
    human_recs = [(i, h.text, "armelle", h.clip) for i, h in pairs]
    judged = {
        "synthetic": judge_all(recognizer, bank, synthetic_recs),
        "armelle": judge_all(recognizer, human_bank, human_recs),
    }
    every = judged["synthetic"] + judged["armelle"]
    calibration = calibrate([r for r in every if _calibration_half(r["word"])])
    held_out = [r for r in every if not _calibration_half(r["word"])]
    result["practice_verdict"] = {
        "naming_rank_margin": NAMING_RANK_MARGIN,
        "repetition_rank_margin": RANK_MARGIN,
        "calibration": calibration,
        "held_out_half": {m: rates(held_out, m) for m in (RANK_MARGIN, NAMING_RANK_MARGIN)},
        "pico": {
            m: rates([r for r in judged["synthetic"] if r["voice"] == "pico"], m)
            for m in (RANK_MARGIN, NAMING_RANK_MARGIN)
        },  # fmt: skip
        "espeak": {
            m: rates([r for r in judged["synthetic"] if r["voice"] != "pico"], m)
            for m in (RANK_MARGIN, NAMING_RANK_MARGIN)
        },  # fmt: skip
        "armelle": {m: rates(judged["armelle"], m) for m in (RANK_MARGIN, NAMING_RANK_MARGIN)},
    }
    result["rows"]["practice_verdict"] = judged

    if args.independent:
        nouns = [
            HumanItem(n.uid, n.text, n.clip)
            for n in ktuberling_nouns()
            if not n.text.startswith(("Tux", "j ", "je "))
        ]
        pairs = human_set(nouns, table, {})
        loaded = [(i, h.text, "ktuberling", load_audio(h.clip)) for i, h in pairs]
        loaded = [r for r in loaded if r[3].duration <= 30.0]
        ind_bank = with_items(bank, [r[0] for r in loaded])
        ind_rows = rank_all(recognizer, ind_bank, loaded)
        result["independent_reserved"] = {
            "note": "ktuberling-data: report only, no setting chosen on it",
            "ktuberling isolated nouns": summary(ind_rows),
        }
        result["rows"]["independent_reserved"] = ind_rows

    result["seconds"] = round(time.perf_counter() - started, 1)
    write_report(args.out, result)
    print("| set | n | top-1, bare candidates | top-1, determiner variants |")
    print("|---|---|---|---|")
    parts = [("synthetic", result["synthetic"]), ("human", result["human_allowed"])]
    if "independent_reserved" in result:
        parts.append(("independent", {"ktuberling": result["independent_reserved"][
            "ktuberling isolated nouns"]}))  # fmt: skip
    for _, block in parts:
        for name, s in block.items():
            if isinstance(s, dict) and s.get("n"):
                print(f"| {name} | {s['n']} | {s['bare_top1']} % | {s['variants_top1']} % |")
    v = result["practice_verdict"]
    print(
        f"practice verdict, true / false accept at margin {RANK_MARGIN} (repetition's) "
        f"and {NAMING_RANK_MARGIN} (naming's); calibration chose {v['calibration']['chosen']}:"
    )
    for name in ("pico", "espeak", "armelle", "held_out_half"):
        cells = [f"{r['true_accept']} / {r['false_accept']} %" for r in v[name].values()]
        print(f"| {name} | {v[name][RANK_MARGIN]['n']} | " + " | ".join(cells) + " |")
    print(f"({result['seconds']} s) -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
