"""A tiny templated telegraphic/grammatical corpus for tests and pipeline smoke runs.

It is not the training corpus (that one is built by ``models.corrector.corpus``):
it only has the same JSONL layout so that training, export and the runtime can
be exercised end to end in seconds, without the real corpus.
"""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

# (tonic pronoun, subject clitic, present form of "vouloir", "avoir", "être").
_SUBJECTS = [
    ("moi", "je", "veux", "ai", "suis"),
    ("toi", "tu", "veux", "as", "es"),
    ("lui", "il", "veut", "a", "est"),
    ("elle", "elle", "veut", "a", "est"),
    ("nous", "nous", "voulons", "avons", "sommes"),
    ("eux", "ils", "veulent", "ont", "sont"),
]
# (infinitive, past participle) of verbs taking "avoir" and a direct object.
_VERBS = [
    ("manger", "mangé"),
    ("acheter", "acheté"),
    ("prendre", "pris"),
    ("boire", "bu"),
    ("voir", "vu"),
]
_OBJECTS = [
    ("pain", "le pain"),
    ("soupe", "la soupe"),
    ("pomme", "une pomme"),
    ("café", "un café"),
    ("journal", "le journal"),
    ("gâteau", "un gâteau"),
]
_TIMES = ["hier", "ce matin", "ce soir"]


def _pair(rng: random.Random) -> dict[str, object]:
    tonic, clitic, want, have, _ = rng.choice(_SUBJECTS)
    inf, participle = rng.choice(_VERBS)
    bare, full = rng.choice(_OBJECTS)
    if rng.random() < 0.5:
        src = f"{tonic} {inf} {bare}"
        tgt = f"{clitic} {want} {inf} {full}."
        rules = ["tonic_pronoun", "modal_omission", "determiner_omission"]
    else:
        when = rng.choice(_TIMES)
        src = f"{tonic} {inf} {bare} {when}"
        subject = "j'" if clitic == "je" else clitic + " "
        tgt = f"{subject}{have} {participle} {full} {when}."
        rules = ["tonic_pronoun", "infinitive_verb", "auxiliary_omission"]
    tgt = tgt[0].upper() + tgt[1:]
    if rng.random() < 0.15:
        src = tgt.lower().rstrip(".")
        rules = []
    severity = "intact" if not rules else "moderate"
    return {"src": src, "tgt": tgt, "severity": severity, "rules": rules, "source": "toy"}


def write_toy_corpus(out_dir: Path, n_train: int = 600, n_valid: int = 60, seed: int = 0) -> Path:
    """Write ``train/valid/test.jsonl`` with templated pairs.

    Args:
        out_dir: folder to create.
        n_train: training pairs (valid and test get ``n_valid`` each).
        seed: random seed, so the corpus is reproducible.

    Returns:
        ``out_dir``.
    """
    rng = random.Random(seed)
    out_dir.mkdir(parents=True, exist_ok=True)
    sid = 0
    for split, count in (("train", n_train), ("valid", n_valid), ("test", n_valid)):
        with (out_dir / f"{split}.jsonl").open("w", encoding="utf-8") as handle:
            for _ in range(count):
                row = _pair(rng)
                row["sid"] = f"toy-{sid}"
                sid += 1
                handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    manifest = {"name": "toy", "sources": [{"name": "toy templates", "licence": "MIT"}]}
    (out_dir / "MANIFEST.json").write_text(json.dumps(manifest, indent=2) + "\n", encoding="utf-8")
    return out_dir


def main() -> None:
    """Command line: ``python -m models.corrector.toy_corpus --out build/toy_corpus``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--train", type=int, default=600)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    write_toy_corpus(args.out, n_train=args.train, seed=args.seed)


if __name__ == "__main__":
    main()
