"""Verb frames mined from natural text: which verb takes which noun, with which preposition.

    python -m models.corrector.corpus.mined_frames [--fetch-dir build/fr_corpus]

Every sentence of fr-corpus's train pool is parsed with spaCy; a verb's direct
object or prepositional complement that is a frequent noun gives a frame
(verb, "obj" or "pp", preposition) and one of its nouns ("mettre" obj "table",
"penser" pp "à" "avenir"). Written to ``mined_frames.json`` beside this module
(committed, so that building a corpus needs neither npm nor spaCy); the
`MinedGenerator` realises them with the curated subjects, tenses and
determiners. Blind-pool sentences are never parsed.
"""

from __future__ import annotations

import argparse
import json
import logging
from collections import Counter, defaultdict
from pathlib import Path

from models.corrector.corpus.frames import Frame
from models.corrector.corpus.generator import EXTRA_FIELDS, CoreGenerator
from models.corrector.corpus.lexicon import BLOCKLIST, gender, pyrealb_lexicon, verb_patterns
from models.corrector.corpus.natural import TRAIN_POOL, fetch, frequent_lemmas, read_sentences

_LOGGER = logging.getLogger(__name__)

DATA = Path(__file__).resolve().parent / "mined_frames.json"
PREPOSITIONS = ("à", "de", "dans", "sur", "avec", "pour", "chez", "en", "sous", "vers", "par")
# être/avoir frames are the copula and compound tenses' business, not a verb's
# complement; modals, motion and link verbs take infinitives or adjectives far more
# often than the noun a parse slip gives them.
_SKIP_VERBS = frozenset(("être", "avoir"))
_NOT_REALISED = frozenset(
    "pouvoir vouloir devoir falloir aller venir faire sembler paraître devenir rester".split()
)
MAX_WORDS = 30
# A verb–noun pair seen once is as often a parse or translation slip as a collocation;
# a prepositional one ("en fait", "de façon") is an idiom unless seen more.
MIN_PAIR_COUNT = 2
MIN_PP_PAIR_COUNT = 3
PP_REALISED = frozenset(("à", "dans", "sur", "avec", "chez", "pour"))
MIN_NOUNS = 2


def _frame_of(tok) -> tuple[str, str, str] | None:
    """(kind, preposition, noun) for a noun complement of a verb, else None."""
    if tok.pos_ != "NOUN" or tok.head.pos_ != "VERB":
        return None
    noun = tok.lemma_.lower()
    if tok.dep_ == "obj":
        return "obj", "", noun
    if tok.dep_.startswith("obl") or tok.dep_ == "iobj":
        preps = [c.text.lower() for c in tok.children if c.dep_ == "case"]
        if len(preps) == 1 and preps[0] in PREPOSITIONS:
            return "pp", preps[0], noun
    return None


def mine(fetch_dir: Path) -> dict[str, dict[str, int]]:
    """frame key "verb|kind|prep" -> noun -> count, over the train pool."""
    import spacy  # build time only ([train] extra)

    nlp = spacy.load("fr_core_news_md", disable=["ner"])
    texts = [
        s.text
        for s in read_sentences(fetch(fetch_dir))
        if s.pool == TRAIN_POOL and len(s.text.split()) <= MAX_WORDS
    ]
    frequent = frequent_lemmas()
    verbs = pyrealb_lexicon()
    found: dict[str, Counter[str]] = defaultdict(Counter)
    for index, doc in enumerate(nlp.pipe(texts, batch_size=256)):
        if index % 5000 == 0:
            _LOGGER.info("%d / %d sentences", index, len(texts))
        for tok in doc:
            frame = _frame_of(tok)
            if frame is None:
                continue
            verb = tok.head.lemma_.lower()
            kind, prep, noun = frame
            if (
                verb in _SKIP_VERBS
                or not isinstance(verbs.get(verb, {}).get("V"), dict)
                or verb not in frequent
                or noun not in frequent
                or noun in BLOCKLIST
                or gender(noun) not in ("m", "f")
            ):
                continue
            found[f"{verb}|{kind}|{prep}"][noun] += 1
    return {key: dict(nouns.most_common()) for key, nouns in sorted(found.items())}


def mined_frames(path: Path = DATA) -> tuple[Frame, ...]:
    """Frames of the committed file; each registers its nouns as a field of its own."""
    data = json.loads(path.read_text(encoding="utf-8"))
    frames: list[Frame] = []
    for index, (key, nouns) in enumerate(sorted(data["frames"].items())):
        verb, kind, prep = key.split("|")
        patterns = set(verb_patterns(verb))
        if verb in _NOT_REALISED or (kind == "obj" and "tdir" not in patterns):
            continue
        if kind == "pp" and (prep not in PP_REALISED or not patterns & {"tind", "intr"}):
            continue
        least = MIN_PP_PAIR_COUNT if kind == "pp" else MIN_PAIR_COUNT
        kept = [noun for noun, count in nouns.items() if count >= least]
        if len(kept) < MIN_NOUNS:
            continue
        slot = f"MINED{index}"
        EXTRA_FIELDS[slot] = " ".join(kept)
        # Sampled by how often the frame was seen, damped so rare frames still come up.
        weight = sum(nouns[noun] for noun in kept) ** 0.5
        styles = ("def", "indef", "poss", "dem") if kind == "obj" else ("def", "indef", "poss")
        frames.append(Frame(verb, kind, slot, prep, styles=styles, weight=weight))
    return tuple(frames)


class MinedGenerator(CoreGenerator):
    """Sentences from the mined frames, with the core generator's subjects and tenses."""

    source = "pyrealb-mined"

    def __init__(self) -> None:
        self._frames = mined_frames()
        self._weights = [f.weight for f in self._frames]


def main(argv: list[str] | None = None) -> int:
    """Entry point: mines and writes the frames file."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--fetch-dir", type=Path, default=Path("build/fr_corpus"))
    parser.add_argument("--out", type=Path, default=DATA)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO)
    frames = mine(args.fetch_dir)
    nouns = sum(len(v) for v in frames.values())
    args.out.write_text(
        json.dumps(
            {
                "source": "npm fr-corpus@0.0.1 train pool, parsed with spaCy fr_core_news_md 3.8.0",
                "command": "python -m models.corrector.corpus.mined_frames",
                "frames": frames,
            },
            ensure_ascii=False,
            indent=0,
            sort_keys=True,
        )
        + "\n",
        encoding="utf-8",
    )
    print(f"{len(frames)} frames, {nouns} verb–noun pairs written to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
