"""Builds the corpus: sample sentences in parallel chunks, degrade, split, write JSONL."""

from __future__ import annotations

import hashlib
import json
import logging
import multiprocessing
import random
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path

from models.corrector.corpus.severity import SEVERITY_MIX, degrade
from models.corrector.corpus.sources import Mixture
from models.corrector.corpus.tokens import Tag, normalize, render
from models.evaluation_texts import evaluation_texts, is_evaluation_pair

_LOGGER = logging.getLogger(__name__)

SPLITS = ("train", "valid", "test")
CHUNK = 1000  # candidate sentences per work unit: the unit of determinism
MIN_WORDS, MAX_WORDS = 3, 20


@dataclass(frozen=True)
class BuildConfig:
    """Corpus build options.

    Attributes:
        out: output folder.
        size: number of pairs to write (all splits together).
        seed: master seed; the output is a function of (seed, size, code).
        workers: processes sampling sentences (at most 2 on the shared machine).
        intact_rate: share of pairs whose src is just the normalised target.
        second_variant: probability that a sentence gets a second pair.
        valid_pct: percent of sentences in valid (by hash of the target).
        test_pct: percent of sentences in test.
    """

    out: Path = Path("build/corpus")
    size: int = 480_000
    seed: int = 13
    workers: int = 2
    intact_rate: float = 0.15
    second_variant: float = 0.5
    valid_pct: int = 2
    test_pct: int = 2


@dataclass
class Pair:
    """One training example (the JSONL record)."""

    src: str
    tgt: str
    severity: str
    rules: list[str]
    sid: str
    source: str


@dataclass
class SentenceRecord:
    """A unique target sentence with its pairs and what statistics need."""

    tgt: str
    source: str
    lemmas: list[str]
    meta: dict[str, str]
    pairs: list[Pair] = field(default_factory=list)


def sentence_id(tgt: str) -> str:
    """Stable id of a target sentence (also decides its split)."""
    return "s" + hashlib.sha1(tgt.encode("utf-8")).hexdigest()[:12]


def split_of(tgt: str, valid_pct: int, test_pct: int) -> str:
    """Split by hash of the target: a sentence and all its variants share one split."""
    bucket = int(hashlib.sha1(("split:" + tgt).encode("utf-8")).hexdigest()[:8], 16) % 100
    if bucket < test_pct:
        return "test"
    if bucket < test_pct + valid_pct:
        return "valid"
    return "train"


def _pair_rng(seed: int, tgt: str) -> random.Random:
    # Seeded by the text, not by position: the same sentence always degrades the same way.
    digest = hashlib.sha256(f"{seed}\x00{tgt}".encode()).digest()
    return random.Random(int.from_bytes(digest[:8], "big"))


def make_pairs(
    tgt: str, tokens, source: str, seed: int, intact_rate: float, second_variant: float
) -> list[Pair]:
    """The 1–2 pairs of one sentence (deterministic for seed and text)."""
    rng = _pair_rng(seed, tgt)
    sid = sentence_id(tgt)
    # Hand-written utterances are few and frequent in real use: more variants each.
    count = 4 if source == "handwritten" else (2 if rng.random() < second_variant else 1)
    pairs: list[Pair] = []
    seen_src: set[str] = set()
    intact_done = False
    for _ in range(count):
        if not intact_done and rng.random() < intact_rate:
            intact_done = True
            src = normalize(tgt)
            if src not in seen_src:
                seen_src.add(src)
                pairs.append(Pair(src, tgt, "intact", [], sid, source))
            continue
        severity = rng.choices([s for s, _ in SEVERITY_MIX], [w for _, w in SEVERITY_MIX])[0]
        result = degrade(tokens, severity, rng)
        if result.src in seen_src:
            continue
        seen_src.add(result.src)
        intact_done = intact_done or result.severity == "intact"
        pairs.append(Pair(result.src, tgt, result.severity, list(result.rules), sid, source))
    return pairs


_MIXTURE: Mixture | None = None


def _init_worker() -> None:
    global _MIXTURE
    _MIXTURE = Mixture()


def _work(args: tuple[int, int, float, float]) -> list[SentenceRecord]:
    """Samples one chunk of candidates and degrades the valid ones."""
    seed, chunk, intact_rate, second_variant = args
    assert _MIXTURE is not None
    rng = random.Random(f"{seed}:{chunk}")
    records: list[SentenceRecord] = []
    seen: set[str] = set()
    for _ in range(CHUNK):
        sent = _MIXTURE.sample(rng)
        if sent is None or sent.text in seen:
            continue
        words = normalize(sent.text).split()
        if not MIN_WORDS <= len(words) <= MAX_WORDS or render(sent.tokens) != normalize(sent.text):
            continue
        seen.add(sent.text)
        pairs = make_pairs(sent.text, sent.tokens, sent.source, seed, intact_rate, second_variant)
        lemmas = [
            f"{t.tag}\t{t.lemma.lower()}" for t in sent.tokens if t.tag != Tag.PUNCT and t.lemma
        ]
        records.append(SentenceRecord(sent.text, sent.source, lemmas, sent.meta, pairs))
    return records


def _chunk_results(cfg: BuildConfig) -> Iterator[list[SentenceRecord]]:
    """Chunk results in chunk order; at most 2 chunks per worker are in flight."""
    args = ((cfg.seed, k, cfg.intact_rate, cfg.second_variant) for k in range(10**7))
    if cfg.workers <= 1:
        _init_worker()
        yield from map(_work, args)
        return
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(cfg.workers, initializer=_init_worker) as pool:
        pending: deque = deque()
        for arg in args:
            pending.append(pool.apply_async(_work, (arg,)))
            if len(pending) >= 2 * cfg.workers:
                yield pending.popleft().get()


def iter_records(cfg: BuildConfig) -> Iterator[SentenceRecord]:
    """Unique sentences in a deterministic order until `cfg.size` pairs are reached.

    A pair whose source or target is a text of the hand-written evaluation sets
    is dropped (the generator can make common ones, e.g. "je suis content"), so
    those sets stay unseen by training.
    """
    banned = evaluation_texts()
    seen: set[str] = set()
    total = 0
    for batch in _chunk_results(cfg):
        for rec in batch:
            rec.pairs = [p for p in rec.pairs if not is_evaluation_pair(p.src, p.tgt, banned)]
            if rec.tgt in seen or not rec.pairs:
                continue
            seen.add(rec.tgt)
            rec.pairs = rec.pairs[: cfg.size - total]
            total += len(rec.pairs)
            yield rec
            if total >= cfg.size:
                return


def build(cfg: BuildConfig) -> dict:
    """Generates, splits and writes the corpus with its statistics and manifest.

    Returns:
        The statistics dictionary (also written to stats.json).
    """
    from models.corrector.corpus.report import Stats, write_manifest

    started = time.monotonic()
    cfg.out.mkdir(parents=True, exist_ok=True)
    by_split: dict[str, list[Pair]] = {s: [] for s in SPLITS}
    stats = Stats()
    for rec in iter_records(cfg):
        split = split_of(rec.tgt, cfg.valid_pct, cfg.test_pct)
        by_split[split].extend(rec.pairs)
        stats.add(split, rec)
        if stats.sentences % 50_000 == 0:
            _LOGGER.info(
                "%d sentences, %d pairs, %.0f s",
                stats.sentences,
                stats.pairs,
                time.monotonic() - started,
            )
    for split, pairs in by_split.items():
        random.Random(f"{cfg.seed}:shuffle:{split}").shuffle(pairs)
        path = cfg.out / f"{split}.jsonl"
        tmp = path.with_suffix(".jsonl.tmp")
        with open(tmp, "w", encoding="utf-8") as handle:
            for pair in pairs:
                handle.write(json.dumps(asdict(pair), ensure_ascii=False) + "\n")
        tmp.replace(path)
    elapsed = time.monotonic() - started
    summary = stats.write(cfg.out, cfg, elapsed)
    write_manifest(cfg, elapsed)
    _LOGGER.info(
        "wrote %d pairs (%d sentences) to %s in %.0f s",
        stats.pairs,
        stats.sentences,
        cfg.out,
        elapsed,
    )
    return summary
