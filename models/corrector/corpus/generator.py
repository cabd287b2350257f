"""Samples everyday French sentences from verb frames and realises them with pyrealb."""

from __future__ import annotations

import logging
import random
from dataclasses import dataclass, field

from pyrealb import NP, PP, VP, A, Adv, D, N, P, Pro, S, V

from models.corrector.corpus import vocabulary as voc
from models.corrector.corpus.frames import CORE_FRAMES, EXTRA_FIELDS, Frame
from models.corrector.corpus.phrases import (
    Noun,
    Subject,
    category,
    noun_phrase,
    nouns,
    parse_tagged,
    person_object,
    subject,
    verb,
)
from models.corrector.corpus.realise import Realised, realise, tag_terminals
from models.corrector.corpus.tokens import Tag, Token

_LOGGER = logging.getLogger(__name__)

_TENSES = (("p", 0.44), ("pc", 0.25), ("fp", 0.12), ("f", 0.06), ("i", 0.09), ("modal", 0.04))
_TIME_BY_TENSE = {
    "p": voc.TIME_PRESENT,
    "pc": voc.TIME_PAST,
    "fp": voc.TIME_FUTURE,
    "f": voc.TIME_FUTURE,
    "i": voc.TIME_IMPERFECT,
}
# Modal or aspectual verbs that take an infinitive: (verb, tense, preposition).
_MODALS = (
    ("vouloir", "p", ""),
    ("vouloir", "c", ""),
    ("pouvoir", "p", ""),
    ("devoir", "p", ""),
    ("aimer", "p", ""),
    ("aimer", "c", ""),
    ("préférer", "p", ""),
    ("essayer", "p", "de"),
    ("pouvoir", "pc", ""),
    ("vouloir", "i", ""),
    ("devoir", "f", ""),
    ("oublier", "pc", "de"),
    ("commencer", "p", "à"),
    ("arrêter", "p", "de"),
    ("savoir", "p", ""),
)
# Frequency adverbs: odd under negation ("je ne viens pas souvent" is fine, but
# "toujours" changes meaning) and odd in front position with a comma.
_FREQUENCY = frozenset({"toujours", "souvent", "parfois", "déjà"})
_COUNTABLE = frozenset({"FOOD_COUNT", "OBJECTS", "CLOTHES", "PERSON", "TOPICS", "READING"})
_WITH_ADJ = frozenset({"FOOD_COUNT", "OBJECTS", "CLOTHES"})


@dataclass
class Sentence:
    """A correct sentence with its tokens.

    Attributes:
        text: the target sentence.
        tokens: tagged tokens (drive the degradation rules).
        source: generator name, e.g. "pyrealb-core".
        meta: sampling choices for statistics (tense, subject, type).
    """

    text: str
    tokens: list[Token]
    source: str
    meta: dict[str, str] = field(default_factory=dict)


def field_nouns(name: str) -> tuple[Noun, ...]:
    """Nouns of a semantic field named in a frame."""
    if name in EXTRA_FIELDS:
        return nouns(tuple(EXTRA_FIELDS[name].split()))
    return category(name)


@dataclass
class _Choice:
    """What was sampled for one clause (kept for wh-questions and statistics)."""

    tense: str = "p"
    neg: bool = False
    question: str = ""  # "", yon-into, yon-estce, yon-inv, wh-ou, wh-quoi, wh-quand, wh-pourquoi
    modal: tuple[str, str, str] | None = None


class CoreGenerator:
    """Sentences from the curated verb frames (family, meals, places, health...)."""

    source = "pyrealb-core"

    def __init__(self) -> None:
        self._frames = CORE_FRAMES
        self._weights = [f.weight for f in CORE_FRAMES]

    def sample(self, rng: random.Random) -> Sentence | None:
        """Samples and realises one sentence; None when pyrealb rejects it."""
        frame = rng.choices(self._frames, self._weights)[0]
        subj = subject(rng)
        choice = _sample_choice(rng, frame)
        try:
            return build_clause(rng, frame, subj, choice, self.source)
        except (KeyError, IndexError, ValueError) as err:
            _LOGGER.debug("frame %s failed: %s", frame, err)
            return None


def _sample_choice(rng: random.Random, frame: Frame) -> _Choice:
    tense = rng.choices([t for t, _ in _TENSES], [w for _, w in _TENSES])[0]
    choice = _Choice(tense=tense)
    if tense == "modal":
        choice.modal = rng.choice(_MODALS)
        choice.tense = choice.modal[1]
    if frame.kind in ("refl", "refl_obj") and tense in ("fp", "modal"):
        # pyrealb misplaces the reflexive clitic with an infinitive ("je se vais lever").
        choice.tense, choice.modal = "p", None
    choice.neg = rng.random() < 0.15
    roll = rng.random()
    if roll < 0.045:
        choice.question = "yon-into"
    elif roll < 0.07:
        choice.question = "yon-estce"
    elif roll < 0.08:
        choice.question = "yon-inv"
    elif roll < 0.10:
        choice.question = rng.choice(("wh-ou", "wh-quoi", "wh-quand", "wh-pourquoi"))
    return choice


def complement(
    rng: random.Random, frame: Frame, slot: str, subj: Subject, neg: bool, prep: str = ""
) -> PP | NP | None:
    """The NP (or PP when `prep` is given) filling a frame slot."""
    if slot == "PERSON":
        phrase = person_object(rng, subj.pe, subj.n)
    else:
        noun = rng.choice(field_nouns(slot))
        style = rng.choice(frame.styles)
        number = "p" if slot in _COUNTABLE and style != "part" and rng.random() < 0.2 else "s"
        adj = rng.choice(voc.ADJ_THING) if slot in _WITH_ADJ and rng.random() < 0.12 else None
        if style in ("part", "indef", "num") and neg and not prep:
            # Negation turns un/du/des into "de": "je ne mange pas de pain".
            part = P("de")
            part.role = Tag.PART
            phrase = NP(part, noun.n())
            if number == "p" or style == "num":
                phrase.n("p")
        elif style == "part":
            part = P("de")
            part.role = Tag.PART
            phrase = NP(part, D("le"), noun.n())
        else:
            phrase = noun_phrase(rng, noun, style, number, adj, subj.pe, subj.n)
    if not prep:
        return phrase
    return PP(P(prep), phrase)


def _location(rng: random.Random, slot: str, subj: Subject) -> PP:
    if slot == "CHEZ":
        if rng.random() < 0.4:
            return PP(P("chez"), person_object(rng, subj.pe, subj.n))
        noun = rng.choice(field_nouns("CHEZ"))
        return PP(P("chez"), noun_phrase(rng, noun, "def"))
    if slot == "HOME":
        return rng.choice(
            (
                PP(P("à"), NP(D("le"), N("maison"))),
                PP(P("chez"), Pro("moi").pe(subj.pe).n(subj.n).g(subj.g)),
            )
        )
    noun = rng.choice(field_nouns(slot))
    return PP(P("à"), NP(D("le"), noun.n()))


def verb_phrase(
    rng: random.Random, frame: Frame, subj: Subject, choice: _Choice, drop: str = ""
) -> VP:
    """The VP of a frame, without tense (set on the clause)."""
    parts: list = [verb(frame.verb, frame.kind in ("obj", "obj_pp", "refl_obj"))]
    if frame.kind == "obj" and drop != "obj":
        obj = complement(rng, frame, frame.slot, subj, choice.neg)
        # pyrealb climbs clitics over an infinitive's governor ("je le veux prendre"),
        # so objects become pronouns only in simple and compound tenses.
        simple = choice.modal is None and choice.tense != "fp" and not drop
        if (
            simple
            and not choice.question
            and rng.random() < 0.08
            and frame.styles[0] in ("def", "poss")
        ):
            obj = obj.pro()
        parts.append(obj)
    elif frame.kind == "loc" and drop != "loc":
        parts.append(_location(rng, frame.slot, subj))
    elif frame.kind == "pp" and drop != "obj":
        parts.append(complement(rng, frame, frame.slot, subj, choice.neg, frame.prep))
    elif frame.kind == "obj_pp":
        if drop != "obj":
            parts.append(complement(rng, frame, frame.slot, subj, choice.neg))
        parts.append(complement(rng, frame, frame.slot2, subj, False, frame.prep2))
    elif frame.kind == "refl_obj":
        parts.append(complement(rng, frame, frame.slot, subj, False))
    return VP(*parts)


def build_clause(
    rng: random.Random, frame: Frame, subj: Subject, choice: _Choice, source: str
) -> Sentence | None:
    """Assembles subject, VP, tense, negation, question form and adjuncts."""
    drop = ""
    wh_front: list[Token] = []
    if choice.question.startswith("wh-"):
        if choice.question == "wh-ou" and frame.kind == "loc":
            drop = "loc"
        elif choice.question == "wh-quoi" and frame.kind == "obj" and frame.slot != "PERSON":
            drop = "obj"
        elif choice.question in ("wh-quand", "wh-pourquoi"):
            pass
        else:
            choice.question = "yon-into"
    vp = verb_phrase(rng, frame, subj, choice, drop)
    tense = choice.tense
    if choice.modal is not None:
        verb, mtense, prep = choice.modal
        vp.t("b")
        inner = PP(P(prep), vp) if prep else vp
        vp = VP(V(verb).t(mtense), inner)
    elif tense == "fp":
        vp = VP(V("aller"), vp.t("b"))
        tense = "p"
    clause = S(subj.spec(), vp)
    if choice.modal is None:
        clause.t(tense)
    typ: dict = {}
    if frame.kind in ("refl", "refl_obj"):
        typ["refl"] = True
    if choice.neg:
        typ["neg"] = True if rng.random() < 0.88 else rng.choice(("plus", "jamais"))
    if choice.question == "yon-inv" and subj.np is None and subj.kind not in ("1s", "on"):
        typ["int"] = "yon"
    elif choice.question == "yon-inv":
        choice.question = "yon-estce"
    if typ:
        clause.typ(typ)
    front, end = _adjuncts(rng, choice, subj)
    if choice.question == "yon-estce":
        wh_front = parse_tagged("est-ce/QW que/QW")
    elif choice.question == "wh-ou":
        wh_front = parse_tagged("où/QW" if rng.random() < 0.5 else "où/QW est-ce/QW que/QW")
    elif choice.question == "wh-quoi":
        wh_front = parse_tagged("qu'est-ce/QW que/QW")
    elif choice.question == "wh-quand":
        wh_front = parse_tagged("quand/QW est-ce/QW que/QW")
        front, end = [], []
    elif choice.question == "wh-pourquoi":
        wh_front = parse_tagged(
            "pourquoi/QW" if rng.random() < 0.5 else "pourquoi/QW est-ce/QW que/QW"
        )
    punct = "?" if choice.question else "."
    realised = realise(clause, front=front, end=end, punct=punct)
    if realised is None:
        return None
    if wh_front:
        realised = prepend(realised, wh_front)
    meta = {
        "tense": choice.modal[0] + "+inf" if choice.modal else choice.tense,
        "subject": subj.kind,
        "neg": str(choice.neg),
        "type": choice.question or "decl",
        "frame": frame.kind,
    }
    return Sentence(realised.text, realised.tokens, source, meta)


def _adjuncts(
    rng: random.Random, choice: _Choice, subj: Subject
) -> tuple[list[Token], list[Token]]:
    front: list[Token] = []
    end: list[Token] = []
    tense = "p" if choice.modal is not None else choice.tense
    if rng.random() < 0.33 and tense in _TIME_BY_TENSE:
        options = _TIME_BY_TENSE[tense]
        if choice.neg:
            options = tuple(o for o in options if o.split("/")[0] not in _FREQUENCY)
        time = parse_tagged(rng.choice(options))
        if rng.random() < 0.4 and not choice.question and time[0].form not in _FREQUENCY:
            front = time
        else:
            end = time
    if rng.random() < 0.04:
        companion = tag_terminals(PP(P("avec"), person_object(rng, subj.pe, subj.n)).real())
        end = companion + end
    return front, end


def prepend(realised: Realised, front: list[Token]) -> Realised:
    """Puts question words before a realised clause, fixing case and elision."""
    from models.corrector.corpus.realise import detokenize
    from models.corrector.corpus.tokens import render

    tokens = [*front, *realised.tokens]
    lowered = tokens[len(front)]
    if not _is_name(lowered):
        tokens[len(front)] = lowered.with_form(lowered.form[:1].lower() + lowered.form[1:])
    last = tokens[len(front) - 1]
    if last.form == "que" and render([tokens[len(front)]]).startswith(tuple("aeiouéèêhy")):
        if render([Token("que", Tag.QW), tokens[len(front)]]).startswith("qu'"):
            tokens[len(front) - 1] = last.with_form("qu'")
    return Realised(detokenize(tokens), tokens)


def _is_name(tok: Token) -> bool:
    return tok.tag == Tag.NOUN and tok.lemma[:1].isupper()


# Silence "imported but unused" for names used only by sibling generators.
__all__ = ["A", "Adv", "CoreGenerator", "Sentence", "build_clause", "complement", "verb_phrase"]
