"""Broad-vocabulary sentences: thousands of Lexique nouns, adjectives and verbs in safe frames.

The curated frames give natural sentences but a few hundred nouns; the
corrector must also learn to copy words it has never seen corrected. These
frames are chosen so that (almost) any noun or adjective fits them.
"""

from __future__ import annotations

import functools
import logging
import random

from pyrealb import NP, PP, VP, A, Adv, D, N, P, Pro, S, V

from models.corrector.corpus.frames import broad_verbs
from models.corrector.corpus.generator import Sentence, _adjuncts, _Choice
from models.corrector.corpus.lexicon import lemmas
from models.corrector.corpus.phrases import (
    Noun,
    adverb,
    broad_nouns,
    noun_phrase,
    parse_tagged,
    subject,
    verb,
)
from models.corrector.corpus.realise import detokenize, realise, tag_terminals
from models.corrector.corpus.tokens import Tag, Token

_LOGGER = logging.getLogger(__name__)

NOUN_MIN_FREQ = 1.0  # per million words: ~9.4k nouns pyrealb knows
ADJ_MIN_FREQ = 2.0
VERB_MIN_FREQ = 2.0
_TENSES = ("p", "p", "p", "pc", "pc", "i", "f")


@functools.cache
def broad_adjectives() -> tuple[str, ...]:
    """Frequent adjectives (pyrealb inflects them)."""
    return tuple(e.lemma for e in lemmas("A", ADJ_MIN_FREQ))


class BroadGenerator:
    """Samples sentences whose content word is drawn from the whole frequent lexicon."""

    source = "pyrealb-broad"

    def __init__(self) -> None:
        self._nouns = broad_nouns(NOUN_MIN_FREQ)
        self._adjs = broad_adjectives()
        self._tdir = broad_verbs("tdir", VERB_MIN_FREQ)
        self._intr = broad_verbs("intr", VERB_MIN_FREQ)
        self._builders = (
            (self._need, 3),
            (self._talk, 3),
            (self._seek, 2),
            (self._its, 3),
            (self._like, 2),
            (self._where, 2),
            (self._noun_adj, 2),
            (self._its_adj, 2),
            (self._person_adj, 2),
            (self._verb_clitic, 4),
            (self._verb_intr, 3),
            (self._there_is, 2),
            (self._know, 1),
        )

    def sample(self, rng: random.Random) -> Sentence | None:
        """One sentence, or None when pyrealb rejects it."""
        builder = rng.choices([b for b, _ in self._builders], [w for _, w in self._builders])[0]
        result = builder(rng)
        if result is None:
            return None
        text, tokens, kind = result
        return Sentence(text, tokens, self.source, {"frame": kind, "type": "decl"})

    def _noun(self, rng: random.Random) -> Noun:
        return rng.choice(self._nouns)

    def _clause(self, rng, subj, vp, kind, neg_p=0.12, q_p=0.08, tenses=_TENSES):
        clause = S(subj.spec(), vp)
        tense = rng.choice(tenses)
        clause.t(tense)
        if rng.random() < neg_p:
            clause.typ({"neg": True})
        question = rng.random() < q_p
        front, end = _adjuncts(rng, _Choice(tense=tense), subj) if rng.random() < 0.5 else ([], [])
        if question:
            front = []
        realised = realise(clause, front=front, end=end, punct="?" if question else ".")
        if realised is None:
            return None
        return realised.text, realised.tokens, kind

    def _need(self, rng):
        np = noun_phrase(rng, self._noun(rng), rng.choice(("indef", "def", "poss")))
        vp = VP(V("avoir"), NP(N("besoin")), PP(P("de"), np))
        return self._clause(rng, subject(rng), vp, "need", tenses=("p", "p", "i", "pc"))

    def _talk(self, rng):
        verb, prep = rng.choice(
            (("parler", "de"), ("penser", "à"), ("rêver", "de"), ("s'occuper", "de"))
        )
        if verb == "s'occuper":
            verb, prep = "parler", "de"
        np = noun_phrase(rng, self._noun(rng), rng.choice(("def", "def", "poss", "dem")))
        return self._clause(rng, subject(rng), VP(V(verb), PP(P(prep), np)), "talk")

    def _seek(self, rng):
        verb = rng.choice(
            (
                "chercher",
                "trouver",
                "voir",
                "regarder",
                "garder",
                "choisir",
                "oublier",
                "montrer",
                "demander",
                "attendre",
            )
        )
        np = noun_phrase(rng, self._noun(rng), rng.choice(("def", "poss", "dem", "indef")))
        return self._clause(rng, subject(rng), VP(V(verb), np), "seek")

    def _its(self, rng):
        noun = self._noun(rng)
        adj = rng.choice(self._adjs) if rng.random() < 0.25 else None
        np = noun_phrase(rng, noun, "indef" if rng.random() < 0.7 else "poss", adj=adj)
        clause = S(Pro("ce"), VP(V("être"), np)).t(rng.choice(("p", "p", "p", "i")))
        if rng.random() < 0.15:
            clause.typ({"neg": True})
        realised = realise(clause)
        return None if realised is None else (realised.text, realised.tokens, "its")

    def _like(self, rng):
        verb = rng.choice(("aimer", "aimer", "adorer", "détester", "préférer"))
        np = noun_phrase(rng, self._noun(rng), "def", "p" if rng.random() < 0.3 else "s")
        vp = (
            VP(V(verb), Adv("bien"), np)
            if verb == "aimer" and rng.random() < 0.3
            else VP(V(verb), np)
        )
        return self._clause(rng, subject(rng), vp, "like")

    def _where(self, rng):
        noun = self._noun(rng)
        number = "p" if rng.random() < 0.2 else "s"
        np_tokens = tag_terminals(
            noun_phrase(
                rng, noun, rng.choice(("def", "poss")), number, owner_pe=rng.choice((1, 1, 2))
            ).real()
        )
        cop = "sont" if number == "p" else "est"
        tokens = [*parse_tagged("où/QW"), *parse_tagged(f"{cop}/COP"), *np_tokens]
        tokens[1].lemma = "être"
        tokens[1].feats["vform"] = "fin"
        tokens.append(Token("?", Tag.PUNCT))
        return detokenize(tokens), tokens, "where"

    def _noun_adj(self, rng):
        noun = self._noun(rng)
        number = "p" if rng.random() < 0.25 else "s"
        subj_np = noun_phrase(rng, noun, rng.choice(("def", "poss", "dem")), number)
        adj = rng.choice(self._adjs)
        mod = (
            [adverb(rng.choice(("très", "trop", "vraiment", "assez")))]
            if rng.random() < 0.3
            else []
        )
        clause = S(subj_np, VP(V("être"), *mod, A(adj))).t(rng.choice(("p", "p", "i", "pc")))
        if rng.random() < 0.12:
            clause.typ({"neg": True})
        realised = realise(clause)
        return None if realised is None else (realised.text, realised.tokens, "noun_adj")

    def _its_adj(self, rng):
        adj = rng.choice(self._adjs)
        mod = (
            [adverb(rng.choice(("très", "trop", "vraiment", "un peu", "assez")))]
            if rng.random() < 0.4
            else []
        )
        clause = S(Pro("ce"), VP(V("être"), *mod, A(adj))).t(rng.choice(("p", "p", "i", "pc", "f")))
        if rng.random() < 0.15:
            clause.typ({"neg": True})
        realised = realise(clause)
        return None if realised is None else (realised.text, realised.tokens, "its_adj")

    def _person_adj(self, rng):
        subj = subject(rng)
        mod = (
            [adverb(rng.choice(("très", "un peu", "vraiment", "trop")))]
            if rng.random() < 0.3
            else []
        )
        return self._clause(rng, subj, VP(V("être"), *mod, A(rng.choice(self._adjs))), "person_adj")

    def _verb_clitic(self, rng):
        verb = rng.choice(self._tdir)
        obj = rng.choice((Pro("ça"), Pro("ça"), NP(D("le"), self._noun(rng).n()).pro()))
        subj = subject(rng)
        if rng.random() < 0.35:
            # Only "ça" here: pyrealb would climb a clitic over the modal ("je le veux voir").
            modal = rng.choice(("vouloir", "pouvoir", "devoir", "aller", "aimer"))
            vp = VP(V(modal), VP(V(verb), Pro("ça")).t("b"))
            return self._clause(rng, subj, vp, "verb_modal", tenses=("p", "p", "i", "f"))
        return self._clause(rng, subj, VP(V(verb), obj), "verb_obj")

    def _verb_intr(self, rng):
        lemma = rng.choice(self._intr)
        mod = (
            [adverb(rng.choice(("souvent", "beaucoup", "bien", "mal", "vite", "encore")))]
            if rng.random() < 0.35
            else []
        )
        return self._clause(rng, subject(rng), VP(verb(lemma, False), *mod), "verb_intr")

    def _there_is(self, rng):
        noun = self._noun(rng)
        np_tokens = tag_terminals(
            noun_phrase(rng, noun, "indef", "p" if rng.random() < 0.2 else "s").real()
        )
        where = rng.choice(
            (
                "",
                "ici",
                "dans la cuisine",
                "dans le salon",
                "dans la rue",
                "dehors",
                "là-bas",
                "dans le jardin",
            )
        )
        text = "il/CLS y/CLO a/VERB"
        tokens = parse_tagged(text)
        tokens[2].lemma = "avoir"
        tokens[2].feats["vform"] = "fin"
        tokens.extend(np_tokens)
        if where:
            tagged = {"ici": "ici/Adv", "dehors": "dehors/Adv", "là-bas": "là-bas/Adv"}.get(where)
            if tagged is None:
                prep, det, noun_word = where.split()
                tagged = f"{prep}/P {det}/D {noun_word}/N"
            tokens.extend(parse_tagged(tagged))
        tokens.append(Token(".", Tag.PUNCT))
        return detokenize(tokens), tokens, "there_is"

    def _know(self, rng):
        np = noun_phrase(rng, self._noun(rng), rng.choice(("def", "dem")))
        return self._clause(rng, subject(rng), VP(V("connaître"), np), "know", neg_p=0.3)
