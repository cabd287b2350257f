"""Agrammatism rules: omissions and substitutions of grammatical morphemes (Broca's aphasia).

Every rule takes the tagged tokens of a correct sentence, a random generator and
a probability, and returns the new tokens and whether it changed anything. The
tags come from the generator, so "drop the determiners" really drops determiners.
"""

from __future__ import annotations

import functools
import io
import logging
import random
from collections.abc import Callable
from contextlib import redirect_stderr
from dataclasses import replace

import pyrealb
from pyrealb import A, V
from pyrealb.Constituent import PyrealbException

from models.corrector.corpus.tokens import Tag, Token

_LOGGER = logging.getLogger(__name__)

Rule = Callable[[list[Token], random.Random, float], tuple[list[Token], bool]]

_TONIC = {
    "je": "moi",
    "j'": "moi",
    "tu": "toi",
    "il": "lui",
    "elle": "elle",
    "on": "nous",
    "nous": "nous",
    "vous": "vous",
    "ils": "eux",
    "elles": "elles",
}
_VERBAL = (Tag.VERB, Tag.AUX, Tag.AUX_FUT, Tag.MODAL, Tag.COP)
_PREP_DET_AS_DET = {"au": "le", "aux": "les", "du": "le", "des": "les"}
_PREP_DET_AS_PREP = {"au": "à", "aux": "à", "du": "de", "des": "de"}
_DET_GENDER_SWAP = {
    "le": "la",
    "la": "le",
    "un": "une",
    "une": "un",
    "mon": "ma",
    "ma": "mon",
    "ton": "ta",
    "ta": "ton",
    "son": "sa",
    "sa": "son",
    "ce": "cette",
    "cette": "ce",
    "cet": "cette",
    "les": "le",
    "des": "un",
    "mes": "mon",
    "ses": "son",
    "tes": "ton",
}
# Patients default to the masculine ("le voiture") far more than the reverse, so
# a masculine determiner is made feminine only this share of the times it is drawn.
_MASC_DETS = frozenset({"le", "un", "mon", "ton", "son", "ce", "cet"})
_MASC_TO_FEM = 0.35
# Object clitic -> tonic pronoun said after the verb ("elle donner moi cadeau").
# "lui" hides the referent's gender: the tonic is "lui" or "elle".
_OBJ_TONIC = {
    "me": ("moi",),
    "m'": ("moi",),
    "te": ("toi",),
    "t'": ("toi",),
    "nous": ("nous",),
    "vous": ("vous",),
    "lui": ("lui", "elle"),
    "leur": ("eux",),
}
# Object clitics of a person ("je l'ai vu" = him): tagged human="1" by the dialogue
# source, said as a tonic like the dative ones ("moi voir lui"); things never are.
_HUMAN_TONIC = {
    ("le", "m"): ("lui",),
    ("l'", "m"): ("lui",),
    ("la", "f"): ("elle",),
    ("l'", "f"): ("elle",),
    ("les", "m"): ("eux",),
    ("les", "f"): ("elles",),
}
_PREVERBAL = frozenset({"pas", "plus", "jamais", "rien"})
# Subject clitic a "me/te/nous/vous" clitic must match to be reflexive ("je me lève").
_REFLEXIVE_SUBJECT = {
    "me": ("je", "j'"),
    "m'": ("je", "j'"),
    "te": ("tu",),
    "t'": ("tu",),
    "nous": ("nous",),
    "vous": ("vous",),
}
# What may sit between a clitic and its lexical verb: "m'a donné", "ne m'a pas aidé".
_CLITIC_TO_VERB = (Tag.AUX, Tag.AUX_FUT, Tag.MODAL, Tag.NEG, Tag.NEG_NE, Tag.ADV, Tag.CLO)
# Quantifiers and ordinals, not adjectives a patient "defaults": "tous les jours".
_NOT_DEFAULTED = frozenset({"tout", "tous", "toute", "toutes"})
# Feminine/plural endings -> masculine singular, for adjectives whose lemma is
# their own form (hand-written phrases: "prochaine"); checked against pyrealb.
_MASC_ENDINGS = (
    ("ères", "er"),
    ("ère", "er"),
    ("euses", "eux"),
    ("euse", "eux"),
    ("ives", "if"),
    ("ive", "if"),
    ("elles", "el"),
    ("elle", "el"),
    ("ennes", "en"),
    ("enne", "en"),
    ("ettes", "et"),
    ("ette", "et"),
    ("es", ""),
    ("e", ""),
    ("s", ""),
)


def _keep(tokens: list[Token], drop: set[int]) -> list[Token]:
    return [t for i, t in enumerate(tokens) if i not in drop]


def _silence_pyrealb(func):
    @functools.wraps(func)
    def wrapper(*args):
        try:
            with redirect_stderr(io.StringIO()):
                return func(*args)
        except (PyrealbException, KeyError, IndexError, TypeError, AttributeError):
            return ""

    return wrapper


@functools.cache
@_silence_pyrealb
def conjugate(lemma: str, tense: str, pe: int, n: str) -> str:
    """A verb form from pyrealb ("" when it cannot be produced)."""
    return V(lemma).t(tense).pe(pe).n(n).realize().strip(" .").lower()


@functools.cache
@_silence_pyrealb
def participle(lemma: str) -> str:
    """Masculine singular past participle."""
    return V(lemma).t("pp").realize().strip(" .").lower()


@functools.cache
@_silence_pyrealb
def adjective(lemma: str, g: str, n: str) -> str:
    """An inflected adjective."""
    return A(lemma).g(g).n(n).realize().strip(" .").lower()


@functools.cache
def _is_adjective(lemma: str) -> bool:
    entry = pyrealb.getLexicon("fr").get(lemma)
    return isinstance(entry, dict) and "A" in entry


def masculine_singular(tok: Token) -> str:
    """The masculine singular of an adjective token ("" when unknown)."""
    low = tok.form.lower()
    if low in _NOT_DEFAULTED or not tok.lemma.isalpha():
        return ""
    if tok.lemma != low and _is_adjective(tok.lemma):
        return adjective(tok.lemma, "m", "s")
    for ending, masc in _MASC_ENDINGS:
        stem = low[: -len(ending)] + masc
        if low.endswith(ending) and len(stem) > 2 and _is_adjective(stem):
            return adjective(stem, "m", "s")
    return ""


def drop_question_words(
    tokens: list[Token], rng: random.Random, p: float
) -> tuple[list[Token], bool]:
    """Drops "est-ce que" (agrammatic questions rely on intonation and a bare wh-word)."""
    idx = {
        i
        for i, t in enumerate(tokens)
        if t.tag == Tag.QW and t.form.lower() in ("est-ce", "que", "qu'")
    }
    if not idx or rng.random() >= p:
        return tokens, False
    out = _keep(tokens, idx)
    out = [
        t.with_form("quoi") if t.tag == Tag.QW and t.form.lower() == "qu'est-ce" else t for t in out
    ]
    return out, True


def subject_clitic(
    tokens: list[Token], rng: random.Random, p_drop: float, p_tonic: float
) -> tuple[list[Token], list[str]]:
    """Drops a subject clitic or replaces it by the tonic pronoun ("je" -> "moi")."""
    out: list[Token] = []
    fired: list[str] = []
    for tok in tokens:
        if tok.tag in (Tag.CLS, Tag.CLS_INV):
            roll = rng.random()
            if roll < p_drop:
                fired.append("subj_drop")
                continue
            if roll < p_drop + p_tonic:
                tonic = _TONIC.get(tok.form.lower())
                host = _inverted_host(out) if tok.tag == Tag.CLS_INV else None
                if tonic is not None and tok.tag == Tag.CLS:
                    out.append(Token(tonic, Tag.PRON, tonic, dict(tok.feats)))
                    fired.append("subj_tonic")
                    continue
                if tonic is not None and host is not None:
                    # "veux-tu du café" -> "toi veux du café": the tonic goes before the verb.
                    out[host] = replace(out[host], hyphen=False)
                    out.insert(host, Token(tonic, Tag.PRON, tonic, dict(tok.feats)))
                    fired.append("subj_tonic")
                    continue
        out.append(tok)
    return out, fired


def _inverted_host(out: list[Token]) -> int | None:
    """Index of the verb an inverted subject clitic is hyphenated to ("veux-tu")."""
    if out and out[-1].hyphen and out[-1].tag in _VERBAL:
        return len(out) - 1
    return None


def _drop_tagged(tags: tuple[str, ...]) -> Rule:
    def rule(tokens: list[Token], rng: random.Random, p: float) -> tuple[list[Token], bool]:
        drop = {i for i, t in enumerate(tokens) if t.tag in tags and rng.random() < p}
        return _keep(tokens, drop), bool(drop)

    return rule


drop_ne = _drop_tagged((Tag.NEG_NE,))
drop_aux = _drop_tagged((Tag.AUX, Tag.AUX_FUT))
drop_object_clitics = _drop_tagged((Tag.CLO,))
# Degree and manner words only: time adverbials ("hier", "demain") are what
# agrammatic speakers keep to mark tense, so they are never dropped.
_DROPPABLE_ADVERBS = frozenset(
    {
        "très",
        "trop",
        "vraiment",
        "assez",
        "un peu",
        "bien",
        "encore",
        "aussi",
        "beaucoup",
        "vite",
        "mal",
        "plutôt",
        "lentement",
        "fort",
    }
)


def drop_modifiers(tokens: list[Token], rng: random.Random, p: float) -> tuple[list[Token], bool]:
    """Drops degree/manner adverbs and conjunctions ("très", "bien", "mais")."""
    drop = {
        i
        for i, t in enumerate(tokens)
        if (t.tag == Tag.CONJ or (t.tag == Tag.ADV and t.form.lower() in _DROPPABLE_ADVERBS))
        and rng.random() < p
    }
    return _keep(tokens, drop), bool(drop)


def drop_copula(tokens: list[Token], rng: random.Random, p: float) -> tuple[list[Token], bool]:
    """Drops "être" as a main verb; "c'est bon" becomes "ça bon"."""
    out: list[Token] = []
    fired = False
    for i, tok in enumerate(tokens):
        if tok.tag == Tag.COP and rng.random() < p:
            fired = True
            if out and out[-1].tag == Tag.DEM:
                out[-1] = out[-1].with_form("ça")
            continue
        out.append(tok)
        del i
    return out, fired


def preverbal_negation(
    tokens: list[Token], rng: random.Random, p: float
) -> tuple[list[Token], bool]:
    """Drops "ne" and puts "pas" before the first verb: "moi pas aller"."""
    # "personne" stays after the verb ("moi voir personne"): "pas/plus/jamais/rien" move.
    neg = [i for i, t in enumerate(tokens) if t.tag == Tag.NEG and t.form.lower() in _PREVERBAL]
    verbs = [i for i, t in enumerate(tokens) if t.tag in _VERBAL]
    if not neg or not verbs or rng.random() >= p:
        return tokens, False
    pas = tokens[neg[0]]
    rest = [t for i, t in enumerate(tokens) if i != neg[0] and t.tag != Tag.NEG_NE]
    first_verb = next(i for i, t in enumerate(rest) if t.tag in _VERBAL)
    return [*rest[:first_verb], pas, *rest[first_verb:]], True


def _demonstrative_to_ca(out: list[Token]) -> None:
    # "c'est" only exists with a finite "être": "c'" + infinitive is said "ça être".
    for i in range(len(out) - 1, -1, -1):
        if out[i].tag == Tag.DEM:
            out[i] = out[i].with_form("ça")
        if out[i].tag not in (Tag.DEM, Tag.INTJ, Tag.NEG_NE):
            break


def infinitive(tokens: list[Token], rng: random.Random, p: float) -> tuple[list[Token], bool]:
    """Leaves finite verbs and participles in the infinitive: "moi aller"."""
    out: list[Token] = []
    fired = False
    for tok in tokens:
        if (
            tok.tag in (Tag.VERB, Tag.MODAL, Tag.COP)
            and tok.feats.get("vform") != "inf"
            and rng.random() < p
            and tok.lemma.isalpha()
        ):
            _demonstrative_to_ca(out)
            # An infinitive is not inverted: "pouvez-vous" becomes "pouvoir vous".
            out.append(replace(tok.with_form(tok.lemma, vform="inf"), hyphen=False))
            fired = True
        else:
            out.append(tok)
    return out, fired


def bare_participle(tokens: list[Token], rng: random.Random, p: float) -> tuple[list[Token], bool]:
    """Replaces finite verbs by the bare past participle: "moi mangé"."""
    out: list[Token] = []
    fired = False
    for tok in tokens:
        if tok.tag == Tag.VERB and tok.feats.get("vform") == "fin" and rng.random() < p:
            form = participle(tok.lemma)
            if form and form != tok.form.lower():
                out.append(replace(tok.with_form(form, vform="pp"), hyphen=False))
                fired = True
                continue
        out.append(tok)
    return out, fired


def drop_prepositions(
    tokens: list[Token], rng: random.Random, p: float
) -> tuple[list[Token], bool]:
    """Drops prepositions; a contracted "au" keeps its article ("aller le marché")."""
    out: list[Token] = []
    fired = False
    for tok in tokens:
        if tok.tag in (Tag.PREP, Tag.PREP_DET) and rng.random() < p:
            fired = True
            if tok.tag == Tag.PREP_DET:
                article = _PREP_DET_AS_DET.get(tok.form.lower())
                if article:
                    out.append(Token(article, Tag.DET, "le", dict(tok.feats)))
            continue
        out.append(tok)
    return out, fired


def drop_determiners(tokens: list[Token], rng: random.Random, p: float) -> tuple[list[Token], bool]:
    """Drops articles, possessives, demonstratives and partitives ("du pain" -> "pain")."""
    out: list[Token] = []
    fired = False
    skip_det = False
    for tok in tokens:
        if skip_det and tok.tag == Tag.DET:
            skip_det = False
            continue
        skip_det = False
        if tok.tag in (Tag.DET, Tag.PART) and rng.random() < p:
            fired = True
            # "de la" / "de l'": the article after the partitive "de" goes too.
            skip_det = tok.tag == Tag.PART
            continue
        if tok.tag == Tag.PREP_DET and rng.random() < p:
            fired = True
            out.append(Token(_PREP_DET_AS_PREP[tok.form.lower()], Tag.PREP, "", dict(tok.feats)))
            continue
        out.append(tok)
    return out, fired


def default_adjectives(
    tokens: list[Token], rng: random.Random, p: float
) -> tuple[list[Token], bool]:
    """Feminine/plural adjectives and participles said in the masculine singular.

    "la soupe chaud", "mes lunettes cassé", "elle est venu": the default form
    is what patients produce when agreement fails; p applies per inflected word.
    """
    out: list[Token] = []
    fired = False
    for tok in tokens:
        new = ""
        if tok.tag == Tag.ADJ:
            new = masculine_singular(tok)
        elif tok.tag == Tag.VERB and tok.feats.get("vform") == "pp" and tok.lemma.isalpha():
            new = participle(tok.lemma)
        if new and new != tok.form.lower() and rng.random() < p:
            out.append(tok.with_form(new, g="m", n="s"))
            fired = True
        else:
            out.append(tok)
    return out, fired


def _reflexive(tokens: list[Token], i: int) -> bool:
    """Whether the clitic at i is reflexive: "se", or "me/te/nous/vous" matching the subject."""
    low = tokens[i].form.lower()
    if low in ("se", "s'"):
        return True
    subjects = _REFLEXIVE_SUBJECT.get(low)
    if subjects is None:
        return False
    before = [t for t in tokens[:i] if t.tag == Tag.CLS]
    after = [t for t in tokens[i + 1 : i + 5] if t.tag == Tag.CLS_INV]
    subject = before[-1] if before else (after[0] if after else None)
    return subject is not None and subject.form.lower() in subjects


def _lexical_verb(tokens: list[Token], i: int) -> int | None:
    """Index of the lexical verb a clitic at i belongs to (skipping aux, negation...)."""
    for j in range(i + 1, min(i + 6, len(tokens))):
        tag = tokens[j].tag
        if tag == Tag.VERB:
            return None if tokens[j].hyphen else j
        if tag not in _CLITIC_TO_VERB:
            return None
    return None


def object_tonic(tokens: list[Token], rng: random.Random, p: float) -> tuple[list[Token], bool]:
    """Object clitic said as a tonic pronoun after the verb: "elle donné moi cadeau".

    Reflexive clitics are left alone (patients drop them: "moi lever", never
    "moi lever moi"); that is `drop_object_clitics`' job.
    """
    out = list(tokens)
    fired = False
    i = 0
    while i < len(out):
        tok = out[i]
        tonics = _OBJ_TONIC.get(tok.form.lower())
        if tok.feats.get("human"):
            tonics = _HUMAN_TONIC.get((tok.form.lower(), tok.feats.get("g", "m")), tonics)
        verb = _lexical_verb(out, i) if tok.tag == Tag.CLO and tonics else None
        if verb is None or _reflexive(out, i) or rng.random() >= p:
            i += 1
            continue
        tonic = tonics[0] if len(tonics) == 1 else rng.choice(tonics)
        new = Token(tonic, Tag.PRON, tonic, dict(tok.feats))
        out = [*out[:i], *out[i + 1 : verb + 1], new, *out[verb + 1 :]]
        fired = True
    return out, fired


def agreement_errors(tokens: list[Token], rng: random.Random, p: float) -> tuple[list[Token], bool]:
    """Gender/number errors on determiners and adjectives, person errors on verbs.

    Determiner errors lean masculine ("le voiture" more than "la camion").
    """
    out: list[Token] = []
    fired = False
    for tok in tokens:
        low = tok.form.lower()
        if rng.random() >= p:
            out.append(tok)
            continue
        new = ""
        if tok.tag == Tag.DET and low in _DET_GENDER_SWAP:
            if low not in _MASC_DETS or rng.random() < _MASC_TO_FEM:
                new = _DET_GENDER_SWAP[low]
        elif tok.tag == Tag.ADJ and tok.lemma.isalpha():
            g = "m" if tok.feats.get("g") == "f" else "f"
            new = adjective(tok.lemma, g, tok.feats.get("n", "s"))
        elif tok.tag == Tag.VERB and tok.feats.get("vform") == "fin":
            pe, n = rng.choice(((3, "s"), (3, "p"), (1, "s"), (2, "p")))
            new = conjugate(tok.lemma, "p", pe, n)
        if new and new != low:
            out.append(tok.with_form(new))
            fired = True
        else:
            out.append(tok)
    return out, fired


def repeat_word(tokens: list[Token], rng: random.Random, p: float) -> tuple[list[Token], bool]:
    """Repeats a word (perseveration/hesitation), mostly the first: "moi moi aller"."""
    words = [i for i, t in enumerate(tokens) if t.tag != Tag.PUNCT and not t.hyphen]
    if not words or rng.random() >= p:
        return tokens, False
    i = words[0] if rng.random() < 0.5 else rng.choice(words)
    copy = tokens[i].with_form(tokens[i].form)
    return [*tokens[: i + 1], copy, *tokens[i + 1 :]], True


def insert_filler(tokens: list[Token], rng: random.Random, p: float) -> tuple[list[Token], bool]:
    """Inserts "euh" (one, sometimes two) between words."""
    if rng.random() >= p:
        return tokens, False
    out = list(tokens)
    for _ in range(1 if rng.random() < 0.75 else 2):
        slots = [i for i in range(len(out) + 1) if i == 0 or not out[i - 1].hyphen]
        out.insert(rng.choice(slots), Token("euh", Tag.INTJ, "euh"))
    return out, True
