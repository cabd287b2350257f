"""Natural French sentences (npm fr-corpus) tagged with spaCy into the rules' tokens.

The pyrealb generators only say what their templates say; everyday
collocations ("mettre la table", "il fait froid") and the verbs and nouns
people actually use come from real text. fr-corpus (MIT, 100k sentences
machine-translated from an English mix of sources) is the only sizeable
offline French text; its short sentences made of frequent words are kept.

Each sentence falls in one pool by the hash that ships with it: pool "blind"
(one tenth) is never used for training; the corrector's blind test is drawn
from it once (`models.corrector.natural_blind`).
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import re
import subprocess
import tarfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from models.corrector.corpus.lexicon import BLOCKLIST, _rows, _to_float, pyrealb_lexicon
from models.corrector.corpus.tokens import Tag, Token, normalize, render

_LOGGER = logging.getLogger(__name__)

PACKAGE = "fr-corpus@0.0.1"
# npm's published sha1 of the tarball (`npm view fr-corpus@0.0.1 dist.shasum`).
PACKAGE_SHA1 = "bc4a24dadfed5b62968dd0cca1c1117c2b060dd8"
SPACY_MODEL = "fr_core_news_md"
BLIND_POOL = "blind"
TRAIN_POOL = "train"
# One sentence in ten (by its shipped hash) is kept out of training for good.
BLIND_BUCKETS = 10

MIN_WORDS, MAX_WORDS = 3, 14
# Content lemmas must be among the most frequent of Lexique (films or books):
# the rest of the MT text is technical, literary or about English names.
TOP_LEMMAS = 6000

_ALLOWED = re.compile(r"^[A-ZÀÂÇÉÈÊÎÔa-zàâäçéèêëîïôöùûüÿœ' ,’-]+[.!?]$")
_CAPITAL_INSIDE = re.compile(r"[ ,'’-][A-ZÀÂÇÉÈÊÎÔ]")

_SUBJECT_CLITICS = frozenset("je j' tu il elle on nous vous ils elles".split())
_OBJECT_CLITICS = frozenset("me m' te t' se s' le la l' les lui leur y en nous vous".split())
_DEMONSTRATIVE_SUBJECTS = frozenset("ce c' ça cela".split())
_PREP_DETS = frozenset("au aux du des".split())
_NEGATIONS = frozenset("pas plus jamais rien".split())
_MODALS = frozenset("vouloir pouvoir devoir falloir".split())
_TENSES = {
    ("Ind", "Pres"): "p",
    ("Ind", "Imp"): "i",
    ("Ind", "Fut"): "f",
    ("Ind", "Past"): "ps",
    ("Cnd", "Pres"): "c",
    ("Sub", "Pres"): "s",
    ("Imp", "Pres"): "ip",
}


@dataclass(frozen=True)
class NaturalSentence:
    """One fr-corpus sentence.

    Attributes:
        text: the sentence as shipped.
        key: the md5 that ships with it (of the English original): decides the pool.
    """

    text: str
    key: str

    @property
    def pool(self) -> str:
        """BLIND_POOL for one sentence in BLIND_BUCKETS, TRAIN_POOL otherwise."""
        return BLIND_POOL if int(self.key[:8], 16) % BLIND_BUCKETS == 0 else TRAIN_POOL


def fetch(folder: Path) -> Path:
    """The unpacked fr-corpus package under ``folder`` (npm pack once, sha1 checked).

    Raises:
        RuntimeError: npm failed or the tarball is not the published one.
    """
    unpacked = folder / "package"
    if (unpacked / "builds").is_dir():
        return unpacked
    folder.mkdir(parents=True, exist_ok=True)
    tarball = folder / "fr-corpus-0.0.1.tgz"
    if not tarball.is_file():
        done = subprocess.run(
            ["npm", "pack", PACKAGE, "--pack-destination", str(folder)],
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0 or not tarball.is_file():
            raise RuntimeError(f"npm pack {PACKAGE} failed: {done.stderr.strip()[-500:]}")
    digest = hashlib.sha1(tarball.read_bytes()).hexdigest()
    if digest != PACKAGE_SHA1:
        raise RuntimeError(f"{tarball}: sha1 {digest}, expected {PACKAGE_SHA1}")
    with tarfile.open(tarball) as archive:
        archive.extractall(folder, filter="data")
    return unpacked


def read_sentences(package: Path) -> list[NaturalSentence]:
    """Every sentence of the unpacked package, in file order."""
    out: list[NaturalSentence] = []
    for index in range(1000):
        path = package / "builds" / f"doc-{index}.json"
        if not path.is_file():
            break
        out.extend(NaturalSentence(text, key) for text, key in json.loads(path.read_text("utf-8")))
    return out


def plausible(text: str) -> bool:
    """Surface filter: short, plain punctuation, no name or acronym inside."""
    words = text.split()
    if not MIN_WORDS <= len(words) <= MAX_WORDS or not _ALLOWED.match(text):
        return False
    return not _CAPITAL_INSIDE.search(text) and "--" not in text


@functools.cache
def frequent_lemmas() -> frozenset[str]:
    """The TOP_LEMMAS most frequent noun, verb, adjective and adverb lemmas of Lexique."""
    best: dict[str, float] = {}
    for row in _rows():
        if row["4_cgram"] not in ("NOM", "VER", "ADJ", "ADV"):
            continue
        freq = max(_to_float(row["7_freqlemfilms2"]), _to_float(row["8_freqlemlivres"]))
        lemma = row["3_lemme"]
        best[lemma] = max(best.get(lemma, 0.0), freq)
    ranked = sorted(best, key=lambda lemma: -best[lemma])
    return frozenset(lemma for lemma in ranked[:TOP_LEMMAS] if lemma not in BLOCKLIST)


@functools.cache
def _nlp():
    import spacy  # build time only ([train] extra)

    return spacy.load(SPACY_MODEL, disable=["ner"])


def tag_sentences(texts: Iterable[str], batch_size: int = 256) -> Iterator[list[Token] | None]:
    """Tokens of each text (None when it cannot be tagged faithfully), in order."""
    for doc in _nlp().pipe(texts, batch_size=batch_size):
        yield to_tokens(doc)


def _gender_number(morph) -> dict[str, str]:
    feats: dict[str, str] = {}
    gender = morph.get("Gender")
    number = morph.get("Number")
    if gender:
        feats["g"] = "f" if gender[0] == "Fem" else "m"
    if number:
        feats["n"] = "p" if number[0] == "Plur" else "s"
    return feats


def _verb_feats(tok) -> dict[str, str]:
    morph = tok.morph
    feats = _gender_number(morph)
    form = (morph.get("VerbForm") or [""])[0]
    feats["vform"] = {"Inf": "inf", "Part": "pp"}.get(form, "fin")
    person = morph.get("Person")
    if person:
        feats["pe"] = person[0]
    mood = (morph.get("Mood") or [""])[0]
    tense = (morph.get("Tense") or [""])[0]
    if feats["vform"] == "fin" and (mood, tense) in _TENSES:
        feats["t"] = _TENSES[(mood, tense)]
    return feats


def _has_infinitive_child(tok) -> bool:
    return any(
        child.dep_ in ("xcomp", "ccomp") and "Inf" in child.morph.get("VerbForm")
        for child in tok.children
    )


def _verbal_tag(tok) -> str | None:
    """AUX/AUX_FUT/COP/MODAL/VERB for a verb token, None when its lemma is unknown."""
    lemma = tok.lemma_.lower()
    if tok.dep_.startswith("aux") and lemma in ("avoir", "être"):
        return Tag.AUX
    if tok.dep_ == "cop" and lemma == "être":
        return Tag.COP
    if lemma == "aller" and _has_infinitive_child(tok):
        return Tag.AUX_FUT
    if lemma in _MODALS and _has_infinitive_child(tok):
        return Tag.MODAL
    info = pyrealb_lexicon().get(lemma, {}).get("V")
    return Tag.VERB if isinstance(info, dict) else None


def _pronoun_tag(tok, low: str) -> str:
    before_head = tok.i < tok.head.i
    if low in _SUBJECT_CLITICS and tok.dep_.startswith(("nsubj", "expl")) and before_head:
        return Tag.CLS
    if low in _DEMONSTRATIVE_SUBJECTS and tok.dep_.startswith(("nsubj", "expl")):
        return Tag.DEM
    if low in _OBJECT_CLITICS and before_head and tok.head.pos_ in ("VERB", "AUX"):
        return Tag.CLO
    return Tag.PRON


def _token(tok) -> Token | None:
    """One rules token from one spaCy token (None: the sentence is left out)."""
    low = tok.text.lower().replace("’", "'")
    pos = tok.pos_
    if pos == "PUNCT":
        return Token(tok.text, Tag.PUNCT, "")
    if low in ("ne", "n'"):
        return Token(tok.text, Tag.NEG_NE, "ne")
    if low in _NEGATIONS and pos == "ADV":
        return Token(tok.text, Tag.NEG, low)
    if pos == "DET":
        tag = Tag.PART if low in ("de", "d'", "du", "des") else Tag.DET
        return Token(tok.text, tag, low, _gender_number(tok.morph))
    if pos == "ADP":
        tag = Tag.PREP_DET if low in _PREP_DETS else Tag.PREP
        return Token(tok.text, tag, low, _gender_number(tok.morph))
    if pos == "PRON":
        return Token(tok.text, _pronoun_tag(tok, low), low, _gender_number(tok.morph))
    if pos in ("VERB", "AUX"):
        tag = _verbal_tag(tok)
        if tag is None:
            return None
        return Token(tok.text, tag, tok.lemma_.lower(), _verb_feats(tok))
    simple = {
        "NOUN": Tag.NOUN,
        "PROPN": Tag.PROPN,
        "ADJ": Tag.ADJ,
        "ADV": Tag.ADV,
        "NUM": Tag.NUM,
        "CCONJ": Tag.CONJ,
        "SCONJ": Tag.CONJ,
        "INTJ": Tag.INTJ,
    }
    tag = simple.get(pos)
    if tag is None:
        return None
    return Token(tok.text, tag, tok.lemma_.lower(), _gender_number(tok.morph))


def _content_ok(tokens: list[Token]) -> bool:
    frequent = frequent_lemmas()
    for tok in tokens:
        if tok.tag in (Tag.NOUN, Tag.VERB, Tag.ADJ) and tok.lemma not in frequent:
            return False
        if tok.tag == Tag.PROPN or tok.lemma in BLOCKLIST:
            return False
    return any(t.tag in (Tag.VERB, Tag.COP, Tag.AUX, Tag.MODAL, Tag.AUX_FUT) for t in tokens)


def to_tokens(doc) -> list[Token] | None:
    """The rules' tokens of a parsed sentence, or None when it is not plain and everyday.

    Left out: hyphenated inversions ("-vous"), verbs pyrealb cannot conjugate,
    rare content words, names, and any sentence whose tokens do not render
    back to its own normalised text.
    """
    tokens: list[Token] = []
    spacy_tokens = list(doc)
    i = 0
    while i < len(spacy_tokens):
        tok = spacy_tokens[i]
        low = tok.text.lower()
        nxt = spacy_tokens[i + 1] if i + 1 < len(spacy_tokens) else None
        if low == "est" and nxt is not None and nxt.text.lower() == "-ce":
            tokens.append(Token("est-ce", Tag.QW, "est-ce"))
            follow = spacy_tokens[i + 2] if i + 2 < len(spacy_tokens) else None
            if follow is not None and follow.text.lower() in ("que", "qu'"):
                tokens.append(Token(follow.text, Tag.QW, "que"))
                i += 3
                continue
            i += 2
            continue
        if tok.text.startswith("-") or (nxt is not None and nxt.text.startswith("-")):
            return None
        made = _token(tok)
        if made is None:
            return None
        tokens.append(made)
        i += 1
    _negations_need_ne(tokens)
    if not _content_ok(tokens) or render(tokens) != normalize(doc.text):
        return None
    return tokens


def _negations_need_ne(tokens: list[Token]) -> None:
    """ "plus"/"jamais" are negations only after a "ne" ("plus attentivement" is not)."""
    seen_ne = False
    for index, tok in enumerate(tokens):
        seen_ne = seen_ne or tok.tag == Tag.NEG_NE
        if tok.tag == Tag.NEG and not seen_ne:
            tokens[index] = Token(tok.form, Tag.ADV, tok.lemma, tok.feats)
