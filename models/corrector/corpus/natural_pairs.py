"""A corpus version with natural sentences (fr-corpus, train pool) and the ASR slice mixed in.

    python -m models.corrector.corpus.natural_pairs --base build/corpus \
        --out build/corpus_v6 [--variants 4] [--repeat 2] \
        [--slice models/halting/slices/beam5 --slice-repeat 10]

Each natural sentence of the train pool gets up to ``--variants`` degraded
sources made by the same rules as the generated sentences (the tags come from
spaCy instead of the generator), split by the same hash as the base corpus;
its train pairs are repeated ``--repeat`` times. Sentences of the blind pool
and texts of the evaluation sets never enter.
"""

from __future__ import annotations

import argparse
import json
import logging
import random
from dataclasses import asdict
from pathlib import Path

from models.corrector.corpus.build import BuildConfig, Pair, make_pairs, split_of
from models.corrector.corpus.natural import (
    TRAIN_POOL,
    fetch,
    plausible,
    read_sentences,
    tag_sentences,
)
from models.corrector.corpus.realise import load_french
from models.corrector.corpus.report import sha256_file
from models.corrector.corpus.tokens import normalize
from models.evaluation_texts import evaluation_texts, is_evaluation_pair
from models.halting.merge_slice import SPLITS, slice_lines, slice_rows, write_manifest

_LOGGER = logging.getLogger(__name__)
SOURCE = "natural"


def natural_pairs(fetch_dir: Path, variants: int, seed: int) -> dict[str, list[Pair]]:
    """Degraded pairs of every usable train-pool sentence, by split."""
    load_french()
    everything = read_sentences(fetch(fetch_dir))
    # The same text can ship twice under two hashes: a blind-pool text never trains.
    blind_texts = {normalize(s.text) for s in everything if s.pool != TRAIN_POOL}
    sentences = [
        s
        for s in everything
        if s.pool == TRAIN_POOL and plausible(s.text) and normalize(s.text) not in blind_texts
    ]
    banned = evaluation_texts()
    cfg = BuildConfig()
    by_split: dict[str, list[Pair]] = {s: [] for s in SPLITS}
    used = 0
    seen: set[str] = set()
    for sentence, tokens in zip(sentences, tag_sentences(s.text for s in sentences), strict=True):
        if tokens is None or sentence.text in seen:
            continue
        seen.add(sentence.text)
        pairs: dict[str, Pair] = {}
        for k in range(variants):
            try:
                made = make_pairs(sentence.text, tokens, SOURCE, seed + k, cfg.intact_rate, 0.0)
            except Exception as err:  # a tagging slip the rules cannot take: drop the sentence
                _LOGGER.debug("left out (%s): %s", type(err).__name__, err)
                pairs = {}
                break
            for pair in made:
                if not is_evaluation_pair(pair.src, pair.tgt, banned):
                    pairs.setdefault(pair.src, pair)
        if pairs:
            used += 1
            split = split_of(sentence.text, cfg.valid_pct, cfg.test_pct)
            by_split[split].extend(pairs.values())
    _LOGGER.info("%d natural sentences used of %d candidates", used, len(sentences))
    return by_split


def _is_banned(line: str, banned: frozenset[str]) -> bool:
    """A base-corpus line whose text is an evaluation text (the blind set came later)."""
    row = json.loads(line)
    return is_evaluation_pair(row["src"], row["tgt"], banned)


def main(argv: list[str] | None = None) -> int:
    """Entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", type=Path, required=True, help="generated corpus folder")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--fetch-dir", type=Path, default=Path("build/fr_corpus"))
    parser.add_argument("--variants", type=int, default=4)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--seed", type=int, default=29)
    parser.add_argument("--slice", type=Path, help="ASR-in-the-loop slice folder")
    parser.add_argument("--slice-repeat", type=int, default=10)
    parser.add_argument("--max-wer", type=float, default=0.67)
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.INFO)
    natural = natural_pairs(args.fetch_dir, args.variants, args.seed)
    args.out.mkdir(parents=True, exist_ok=True)
    counts: dict[str, int] = {}
    banned = evaluation_texts()
    for split in SPLITS:
        lines = [
            line
            for line in (args.base / f"{split}.jsonl").read_text(encoding="utf-8").splitlines()
            if not _is_banned(line, banned)
        ]
        repeat = args.repeat if split == "train" else 1
        ours = [json.dumps(asdict(p), ensure_ascii=False) for p in natural[split]]
        lines.extend(ours * repeat)
        if split == "train" and args.slice is not None:
            _, kept = slice_rows(args.slice, args.max_wer)
            lines.extend(slice_lines(kept, args.slice_repeat))
        random.Random(f"{args.seed}:{split}").shuffle(lines)
        (args.out / f"{split}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
        counts[split] = len(natural[split])
    manifest = json.loads((args.base / "MANIFEST.json").read_text(encoding="utf-8"))
    manifest["command"] = (
        f"{manifest.get('command', '')} && python -m models.corrector.corpus.natural_pairs "
        f"--base {args.base} --out {args.out} --variants {args.variants} --repeat {args.repeat}"
        + (f" --slice {args.slice} --slice-repeat {args.slice_repeat}" if args.slice else "")
    )
    manifest["natural"] = {
        "package": "npm fr-corpus@0.0.1 (MIT), train pool only",
        "pairs": counts,
        "variants": args.variants,
        "repeat": args.repeat,
        "base_corpus_manifest_sha256": sha256_file(args.base / "MANIFEST.json"),
    }
    write_manifest(manifest, args.out)
    print(f"natural pairs {counts} added to {args.base} in {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
