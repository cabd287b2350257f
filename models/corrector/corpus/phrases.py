"""Noun phrases, subjects and adjuncts for the sentence generator (pyrealb specs)."""

from __future__ import annotations

import functools
import logging
import random
from dataclasses import dataclass

from pyrealb import NO, NP, Adv, D, N, Pro, Q, V, addToLexicon

from models.corrector.corpus import vocabulary as voc
from models.corrector.corpus.lexicon import lemmas, pyrealb_lexicon
from models.corrector.corpus.tokens import Tag, Token

_LOGGER = logging.getLogger(__name__)

_TAG_CODES = {
    "D": Tag.DET,
    "N": Tag.NOUN,
    "A": Tag.ADJ,
    "P": Tag.PREP,
    "Adv": Tag.ADV,
    "NUM": Tag.NUM,
    "X": Tag.X,
    "CLS": Tag.CLS,
    "COP": Tag.COP,
    "CONJ": Tag.CONJ,
    "QW": Tag.QW,
    "INTJ": Tag.INTJ,
    "PRON": Tag.PRON,
}
_FEM_ENDINGS = (
    ("ère", "er"),
    ("euse", "eur"),
    ("rice", "eur"),
    ("enne", "en"),
    ("onne", "on"),
    ("ette", "et"),
    ("ine", "in"),
    ("e", ""),
)


@dataclass(frozen=True)
class Noun:
    """A noun lemma as pyrealb needs it.

    Attributes:
        lemma: pyrealb lemma (masculine for nouns of both genders).
        g: grammatical gender of the intended word.
        word: the intended singular form (e.g. "amie" for lemma "ami", g="f").
        plural_only: a plurale tantum ("lunettes", "vacances"): always plural.
    """

    lemma: str
    g: str
    word: str
    plural_only: bool = False

    def n(self) -> N:
        """A fresh pyrealb N terminal."""
        term = N(self.lemma)
        if pyrealb_lexicon()[self.lemma]["N"].get("g") == "x":
            term.g(self.g)
        if self.plural_only:
            term.n("p")
        return term


@functools.cache
def resolve_noun(word: str) -> Noun | None:
    """Finds the pyrealb lemma and gender of a curated noun ("amie" -> ami, f).

    Returns None for words pyrealb cannot inflect (they are skipped).
    """
    if word in voc.PLURAL_ONLY:
        noun = _resolve_singular(voc.PLURAL_ONLY[word])
        return None if noun is None else Noun(noun.lemma, noun.g, word, plural_only=True)
    return _resolve_singular(word)


def _resolve_singular(word: str) -> Noun | None:
    lex = pyrealb_lexicon()
    word = word.replace("œ", "oe")  # pyrealb's spelling; the realiser restores "œ"
    info = lex.get(word, {}).get("N")
    if isinstance(info, dict) and info.get("g") in ("m", "f"):
        return Noun(word, info["g"], word)
    if isinstance(info, dict) and info.get("g") == "x":
        return Noun(word, "m", word)
    for fem, masc in _FEM_ENDINGS:
        if word.endswith(fem):
            lemma = word[: -len(fem)] + masc
            info = lex.get(lemma, {}).get("N")
            if isinstance(info, dict) and info.get("g") == "x":
                return Noun(lemma, "f", word)
    return None


def nouns(words: tuple[str, ...]) -> tuple[Noun, ...]:
    """Resolves a curated list, dropping (and logging) what pyrealb does not know."""
    out = []
    for word in dict.fromkeys(words):
        noun = resolve_noun(word)
        if noun is None:
            _LOGGER.debug("not in pyrealb lexicon: %s", word)
        else:
            out.append(noun)
    return tuple(out)


@functools.cache
def register_names() -> tuple[tuple[str, str], ...]:
    """Adds first names to pyrealb's lexicon as invariable nouns; returns (name, gender)."""
    names = [(n, "m") for n in voc.NAMES_M] + [(n, "f") for n in voc.NAMES_F]
    for name, g in names:
        addToLexicon(name, {"N": {"g": g, "tab": "nI"}})
    return tuple(names)


@functools.cache
def broad_nouns(min_freq: float) -> tuple[Noun, ...]:
    """Frequent Lexique nouns that pyrealb knows: the breadth of the vocabulary."""
    return tuple(Noun(e.lemma, e.gender, e.lemma) for e in lemmas("N", min_freq))


@functools.cache
def category(name: str) -> tuple[Noun, ...]:
    """The curated nouns of a semantic field (see `vocabulary`)."""
    return nouns(getattr(voc, name))


def verb(lemma: str, transitive: bool = True) -> V:
    """A verb terminal; intransitive uses of "aê" verbs take "être" ("elles sont rentrées")."""
    term = V(lemma)
    info = pyrealb_lexicon().get(lemma, {}).get("V", {})
    if not transitive and isinstance(info, dict) and info.get("aux") == "aê":
        term.aux("êt")
    return term


def adverb(word: str):
    """An adverb terminal; multi-word ones ("un peu") become tagged quoted strings."""
    if " " not in word:
        return Adv(word)
    term = Q(word)
    term.role = Tag.ADV
    return term


def parse_tagged(text: str) -> list[Token]:
    """Parses hand-tagged text "ce/D matin/N" into tokens."""
    tokens = []
    for item in text.split():
        form, code = item.rsplit("/", 1)
        tokens.append(Token(form, _TAG_CODES.get(code) or getattr(Tag, code), form.lower()))
    return tokens


def determiner(rng: random.Random, style: str, owner_pe: int, owner_n: str) -> D | NO | None:
    """A determiner terminal for a style: def, indef, poss, dem, num, none."""
    if style == "def":
        return D("le")
    if style == "indef":
        return D("un")
    if style == "dem":
        return D("ce")
    if style == "poss":
        if owner_n == "p":
            return D({1: "notre", 2: "votre", 3: "leur"}[owner_pe]).pe(owner_pe)
        return D("mon").pe(owner_pe)
    if style == "num":
        return NO(rng.choice((2, 2, 2, 3, 3, 4, 5, 6, 10))).dOpt({"nat": True})
    return None


def noun_phrase(
    rng: random.Random,
    noun: Noun,
    style: str,
    number: str = "s",
    adj: str | None = None,
    owner_pe: int = 1,
    owner_n: str = "s",
) -> NP:
    """Builds an NP; numerals force the plural and adjectives go where French puts them."""
    from pyrealb import A

    det = determiner(rng, style, owner_pe, owner_n)
    if style == "num":
        number = "p"
    parts = [] if det is None else [det]
    if adj is not None and adj in voc.PRENOMINAL:
        parts += [A(adj), noun.n()]
    elif adj is not None:
        parts += [noun.n(), A(adj)]
    else:
        parts.append(noun.n())
    phrase = NP(*parts)
    if number == "p":
        phrase.n("p")
    return phrase


@dataclass(frozen=True)
class Subject:
    """Who the sentence is about.

    Attributes:
        pe: grammatical person 1/2/3.
        n: number s/p.
        g: gender m/f (for participle and adjective agreement).
        np: a noun phrase subject, or None for a subject pronoun.
        kind: label for statistics ("1s", "3s_np"...).
    """

    pe: int
    n: str
    g: str
    np: NP | None
    kind: str

    def spec(self):
        """A fresh pyrealb subject constituent."""
        if self.np is not None:
            return self.np
        if self.kind == "on":
            return Pro("on")
        return Pro("je").pe(self.pe).n(self.n).g(self.g)


# Persons: patients talk about themselves first, then about relatives and carers.
_SUBJECT_WEIGHTS = (
    ("1s", 0.42),
    ("2s", 0.07),
    ("3s", 0.10),
    ("3s_np", 0.15),
    ("1p", 0.06),
    ("on", 0.04),
    ("2p", 0.08),
    ("3p", 0.03),
    ("3p_np", 0.05),
)


def subject(rng: random.Random, human_np_only: bool = False) -> Subject:
    """Samples a subject; `human_np_only` is kept for frames that need a person."""
    del human_np_only
    kind = rng.choices([k for k, _ in _SUBJECT_WEIGHTS], [w for _, w in _SUBJECT_WEIGHTS])[0]
    g = rng.choice("mf")
    if kind in ("3s_np", "3p_np"):
        number = "p" if kind == "3p_np" else "s"
        return person_subject(rng, number, kind)
    pe, n = {
        "1s": (1, "s"),
        "2s": (2, "s"),
        "3s": (3, "s"),
        "1p": (1, "p"),
        "on": (3, "s"),
        "2p": (2, "p"),
        "3p": (3, "p"),
    }[kind]
    if kind == "on":
        g = "m"
    return Subject(pe, n, g, None, kind)


def person_subject(rng: random.Random, number: str, kind: str) -> Subject:
    """A noun phrase subject naming a person: "ma fille", "le médecin", "Marie"."""
    roll = rng.random()
    if number == "s" and roll < 0.25:
        name, g = rng.choice(register_names())
        return Subject(3, "s", g, NP(N(name)), kind)
    if roll < 0.65:
        noun = rng.choice(category("FAMILY"))
        number = "p" if noun.plural_only else number
        phrase = noun_phrase(rng, noun, "poss", number, owner_pe=1)
    else:
        noun = rng.choice(category("ROLES"))
        phrase = noun_phrase(rng, noun, "def", number)
    return Subject(3, number, noun.g, phrase, kind)


def person_object(rng: random.Random, owner_pe: int = 1, owner_n: str = "s") -> NP:
    """A person as object or after a preposition."""
    roll = rng.random()
    if roll < 0.2:
        name, _ = rng.choice(register_names())
        return NP(N(name))
    if roll < 0.7:
        noun = rng.choice(category("FAMILY"))
        number = "p" if rng.random() < 0.15 else "s"
        return noun_phrase(rng, noun, "poss", number, owner_pe=owner_pe, owner_n=owner_n)
    noun = rng.choice(category("ROLES"))
    return noun_phrase(rng, noun, "def")
