"""Everyday scenes the other sources lack: pets, things, clock times, ages, towns, clitics."""

from __future__ import annotations

import logging
import random

from pyrealb import NO, NP, PP, VP, A, D, N, P, Pro, Q, S, V

from models.corrector.corpus import vocabulary as voc
from models.corrector.corpus.frames import CORE_FRAMES
from models.corrector.corpus.generator import Sentence, _adjuncts, _Choice, verb_phrase
from models.corrector.corpus.phrases import (
    Noun,
    Subject,
    adverb,
    category,
    noun_phrase,
    person_subject,
    register_names,
    subject,
    verb,
)
from models.corrector.corpus.realise import realise
from models.corrector.corpus.tokens import Tag, Token

_LOGGER = logging.getLogger(__name__)

_TENSES = ("p", "p", "p", "pc", "pc", "i", "f")
_THING_FIELDS = ("OBJECTS", "CLOTHES", "FOOD_COUNT", "FOOD_MASS", "ROOMS", "PLACES", "MEALS")
# Degree words before a predicative adjective ("trop petites", "pas très chaud").
_DEGREE = ("très", "trop", "un peu", "vraiment", "assez", "tout")
_ANIMAL_VERBS = ("dormir", "dormir", "manger", "manger", "jouer", "courir", "boire")
# Cries only the right animals make.
_CRIES = {
    "chien": "aboyer",
    "chiot": "aboyer",
    "chat": "miauler",
    "chaton": "miauler",
    "oiseau": "chanter",
    "canari": "chanter",
    "perruche": "chanter",
}
_BABY_VERBS = ("dormir", "manger", "pleurer", "jouer", "rire", "marcher", "boire", "grandir")
_ANIMAL_CARE = (
    "sortir",
    "promener",
    "nourrir",
    "caresser",
    "laver",
    "soigner",
    "chercher",
    "appeler",
    "garder",
    "emmener",
)
_SPOTS = (
    ("sur", "canapé"),
    ("sur", "lit"),
    ("sur", "fauteuil"),
    ("sur", "tapis"),
    ("dans", "jardin"),
    ("dans", "cuisine"),
    ("dans", "chambre"),
    ("dans", "salon"),
    ("sous", "table"),
    ("devant", "porte"),
    ("devant", "télé"),
    ("devant", "fenêtre"),
    ("dans", "panier"),
)
# (verb, reflexive) daily routines that take a clock time.
_ROUTINES = (
    ("lever", True),
    ("coucher", True),
    ("réveiller", True),
    ("laver", True),
    ("habiller", True),
    ("manger", False),
    ("déjeuner", False),
    ("dîner", False),
    ("partir", False),
    ("arriver", False),
    ("rentrer", False),
    ("commencer", False),
    ("finir", False),
    ("sortir", False),
    ("venir", False),
    ("passer", False),
)
_DATIVE_VERBS = (
    ("donner", "OBJECTS"),
    ("apporter", "OBJECTS"),
    ("prêter", "OBJECTS"),
    ("montrer", "OBJECTS"),
    ("offrir", "OBJECTS"),
    ("acheter", "OBJECTS"),
    ("envoyer", "OBJECTS"),
    ("rendre", "OBJECTS"),
    ("donner", "FOOD_COUNT"),
    ("préparer", "MEALS"),
    ("acheter", "CLOTHES"),
    ("donner", "BODY_CARE"),
)
_ACC_VERBS = (
    "attendre",
    "appeler",
    "aider",
    "voir",
    "aimer",
    "entendre",
    "comprendre",
    "chercher",
    "remercier",
    "embrasser",
    "écouter",
    "connaître",
    "inviter",
    "accompagner",
    "emmener",
    "déranger",
)
_HAVE_ADJ = ("beau", "nouveau", "petit", "grand", "joli", "vieux", "gros", "bon")
_HOURS = tuple(range(1, 12))  # 12 is "midi"
_MONTHS = (
    "janvier février mars avril mai juin juillet août septembre octobre novembre décembre"
).split()
# (verb, tense) life events dated by a month or a year.
_EVENTS = (
    ("naître", "pc"),
    ("naître", "pc"),
    ("marier", "pc"),
    ("partir", "pc"),
    ("partir", "f"),
    ("arriver", "pc"),
    ("déménager", "pc"),
    ("mourir", "pc"),
    ("commencer", "pc"),
    ("rentrer", "f"),
    ("venir", "f"),
)
_DURATION_UNITS = (("an", 3), ("mois", 2), ("semaine", 2), ("jour", 2))
_SINCE = (
    ("être", "malade"),
    ("être", "marié"),
    ("être", "fatigué"),
    ("être", "à la retraite"),
    ("habiter", "ici"),
    ("travailler", ""),
    ("attendre", ""),
    ("avoir", "mal au dos"),
)
_NOT_ACTIONS = frozenset({"vouloir", "aimer", "préférer", "détester", "oublier", "perdre"})
_OBJECT_PERSONS = ((1, "s"), (1, "s"), (2, "s"), (3, "s"), (3, "s"), (1, "p"), (2, "p"), (3, "p"))


def _pronoun(pe: int, n: str, g: str) -> Pro:
    return Pro("moi").pe(pe).n(n).g(g)


class EverydayGenerator:
    """Short, frequent patient sentences about pets, things, times, ages, towns and people."""

    source = "pyrealb-everyday"

    def __init__(self) -> None:
        self._animals = category("ANIMALS")
        self._things = {name: category(name) for name in _THING_FIELDS}
        self._builders = (
            (self._animal_does, 3),
            (self._baby_does, 1),
            (self._care_animal, 2),
            (self._thing_is, 5),
            (self._someone_is, 2),
            (self._clock, 3),
            (self._age, 2),
            (self._town, 2),
            (self._dative, 3),
            (self._accusative, 3),
            (self._have, 2),
            (self._date, 3),
            (self._since, 2),
            (self._must, 3),
            (self._told_to, 1),
            (self._named, 1),
        )
        # Actions one is told to do ("Il faut appeler le médecin"): no liking or wanting.
        self._obj_frames = tuple(
            f
            for f in CORE_FRAMES
            if f.kind in ("obj", "loc", "pp", "obj_pp") and f.verb not in _NOT_ACTIONS
        )

    def sample(self, rng: random.Random) -> Sentence | None:
        """One sentence, or None when pyrealb rejects it."""
        builder = rng.choices([b for b, _ in self._builders], [w for _, w in self._builders])[0]
        return builder(rng)

    def _finish(
        self, rng, clause, kind: str, tense: str, subj: Subject, neg_p=0.12, q_p=0.08, adj_p=0.4
    ) -> Sentence | None:
        if rng.random() < neg_p:
            clause.typ({"neg": True})
        question = rng.random() < q_p
        front, end = ([], [])
        if rng.random() < adj_p and not question:
            front, end = _adjuncts(rng, _Choice(tense=tense), subj)
        realised = realise(clause, front=front, end=end, punct="?" if question else ".")
        return self._sentence(realised, kind, tense, subj)

    def _animal_np(self, rng, style: str | None = None) -> tuple[NP, Noun, str]:
        noun = rng.choice(self._animals)
        number = "p" if rng.random() < 0.15 else "s"
        style = style or rng.choice(("def", "def", "poss", "poss", "dem"))
        return noun_phrase(rng, noun, style, number), noun, number

    def _spot(self, rng) -> PP:
        prep, place = rng.choice(_SPOTS)
        return PP(P(prep), NP(D("le"), N(place)))

    def _animal_does(self, rng):
        np, noun, number = self._animal_np(rng)
        lemma = rng.choice(_ANIMAL_VERBS)
        if noun.lemma in _CRIES and rng.random() < 0.3:
            lemma = _CRIES[noun.lemma]
        parts = [V(lemma)]
        if rng.random() < 0.6:
            parts.append(self._spot(rng))
        tense = rng.choice(_TENSES)
        subj = Subject(3, number, noun.g, np, "3_animal")
        return self._finish(rng, S(np, VP(*parts)).t(tense), "animal_does", tense, subj)

    def _baby_does(self, rng):
        np = noun_phrase(rng, Noun("bébé", "m", "bébé"), rng.choice(("def", "poss", "poss")))
        parts = [V(rng.choice(_BABY_VERBS))]
        if rng.random() < 0.3:
            parts.append(self._spot(rng))
        tense = rng.choice(_TENSES)
        subj = Subject(3, "s", "m", np, "3_baby")
        return self._finish(rng, S(np, VP(*parts)).t(tense), "baby_does", tense, subj)

    def _care_animal(self, rng):
        subj = subject(rng)
        np, _, _ = self._animal_np(rng, rng.choice(("def", "poss")))
        tense = rng.choice((*_TENSES, "fp"))
        vp = VP(V(rng.choice(_ANIMAL_CARE)), np)
        if tense == "fp":
            vp = VP(V("aller"), vp.t("b"))
        clause = S(subj.spec(), vp).t("p" if tense == "fp" else tense)
        return self._finish(rng, clause, "care_animal", tense, subj)

    def _thing_is(self, rng):
        field = rng.choice(_THING_FIELDS)
        noun = rng.choice(self._things[field])
        number = "p" if noun.plural_only or rng.random() < 0.25 else "s"
        style = rng.choice(("def", "def", "poss", "poss", "dem"))
        np = noun_phrase(rng, noun, style, number)
        degree = [adverb(rng.choice(_DEGREE))] if rng.random() < 0.35 else []
        tense = rng.choice(("p", "p", "p", "p", "i", "i", "pc", "f"))
        adj = rng.choice(voc.ADJ_THING)
        clause = S(np, VP(V("être"), *degree, A(adj))).t(tense)
        subj = Subject(3, number, noun.g, np, "3_thing")
        return self._finish(rng, clause, "thing_is", tense, subj, neg_p=0.15, adj_p=0.25)

    def _someone_is(self, rng):
        roll = rng.random()
        if roll < 0.6:
            subj = person_subject(rng, "p" if rng.random() < 0.15 else "s", "3s_np")
        elif roll < 0.8:
            np, noun, number = self._animal_np(rng, rng.choice(("def", "poss")))
            subj = Subject(3, number, noun.g, np, "3_animal")
        else:
            subj = subject(rng)
        degree = [adverb(rng.choice(_DEGREE[:5]))] if rng.random() < 0.3 else []
        tense = rng.choice(("p", "p", "p", "pc", "i", "f"))
        adj = rng.choice(voc.ADJ_PERSON + ("malade", "gentil", "grand", "petit", "vieux"))
        clause = S(subj.spec(), VP(V("être"), *degree, A(adj))).t(tense)
        return self._finish(rng, clause, "someone_is", tense, subj)

    def _clock_time(self, rng) -> PP:
        roll = rng.random()
        if roll < 0.12:
            return PP(P("à"), NP(N(rng.choice(("midi", "minuit")))))
        hour = rng.choice(_HOURS)
        time = NP(NO(hour).nat(True), N("heure"))
        if hour > 1:
            time.n("p")
        extra = rng.random()
        if extra < 0.15:
            return PP(P("à"), time, Q("et demie"))
        if extra < 0.22:
            return PP(P("à"), time, Q("et quart"))
        return PP(P("à"), time)

    def _clock(self, rng):
        subj = subject(rng)
        tense = rng.choice(("p", "p", "p", "pc", "i", "f", "fp"))
        roll = rng.random()
        if roll < 0.2:
            # "J'ai rendez-vous à dix heures", "Le bus passe à huit heures".
            if rng.random() < 0.5:
                vp = VP(V("avoir"), NP(N("rendez-vous")), self._clock_time(rng))
            else:
                vehicle = rng.choice(("bus", "train", "taxi", "car", "tramway", "ambulance"))
                subj = Subject(3, "s", "m", NP(D("le"), N(vehicle)), "3_thing")
                vp = VP(V(rng.choice(("passer", "arriver", "partir"))), self._clock_time(rng))
            refl = False
        else:
            lemma, refl = rng.choice(_ROUTINES)
            vp = VP(verb(lemma, transitive=False), self._clock_time(rng))
        if refl and tense == "fp":
            tense = "p"  # pyrealb misplaces the reflexive clitic with an infinitive
        if tense == "fp":
            vp = VP(V("aller"), vp.t("b"))
        clause = S(subj.spec(), vp).t("p" if tense == "fp" else tense)
        if refl:
            clause.typ({"refl": True})
        return self._finish(rng, clause, "clock", tense, subj, q_p=0.1, adj_p=0.3)

    def _age(self, rng):
        roll = rng.random()
        if roll < 0.4:
            subj = subject(rng)
        else:
            subj = person_subject(rng, "s", "3s_np")
        years = rng.choice(range(2, 100))
        age = NP(NO(years).nat(True), N("an")).n("p")
        tense = rng.choice(("p", "p", "p", "p", "f", "i"))
        clause = S(subj.spec(), VP(V("avoir"), age)).t(tense)
        return self._finish(rng, clause, "age", tense, subj, neg_p=0.03, q_p=0.08, adj_p=0.1)

    def _town(self, rng):
        subj = subject(rng) if rng.random() < 0.6 else person_subject(rng, "s", "3s_np")
        town = rng.choice(voc.CITIES)
        place = PP(P("à"), NP(Q(town.replace("Le-", "Le "))))
        lemma, tense = rng.choice(
            (
                ("habiter", "p"),
                ("habiter", "p"),
                ("habiter", "i"),
                ("vivre", "p"),
                ("naître", "pc"),
                ("naître", "pc"),
                ("travailler", "i"),
                ("aller", "pc"),
                ("aller", "f"),
                ("partir", "f"),
                ("rester", "pc"),
                ("déménager", "pc"),
                ("grandir", "pc"),
            )
        )
        clause = S(subj.spec(), VP(verb(lemma, transitive=False), place)).t(tense)
        return self._finish(rng, clause, "town", tense, subj, neg_p=0.05, adj_p=0.2)

    def _object_clitic(self, rng, subj: Subject) -> tuple[int, str, str]:
        """Person, number and gender of an object pronoun different from the subject."""
        while True:
            pe, n = rng.choice(_OBJECT_PERSONS)
            # "je nous", "tu te" are reflexive or odd: another person than the subject's.
            if pe == 3 or pe != subj.pe:
                return pe, n, rng.choice("mf")

    def _dative(self, rng):
        subj = subject(rng) if rng.random() < 0.7 else person_subject(rng, "s", "3s_np")
        lemma, field = rng.choice(_DATIVE_VERBS)
        if field == "BODY_CARE":
            obj = NP(D("un"), N(rng.choice(("coup", "conseil", "baiser", "bisou", "nouvelle"))))
        else:
            noun = rng.choice(self._things[field] if field in self._things else category(field))
            obj = noun_phrase(rng, noun, rng.choice(("indef", "def", "poss")))
        pe, n, g = self._object_clitic(rng, subj)
        tense = rng.choice(("p", "p", "pc", "pc", "f", "i"))
        clause = S(subj.spec(), VP(V(lemma), obj, _pronoun(pe, n, g).c("dat"))).t(tense)
        return self._finish(rng, clause, "dative", tense, subj, neg_p=0.1, adj_p=0.3)

    def _accusative(self, rng):
        subj = subject(rng) if rng.random() < 0.7 else person_subject(rng, "s", "3s_np")
        pe, n, g = self._object_clitic(rng, subj)
        parts = [V(rng.choice(_ACC_VERBS)), _pronoun(pe, n, g).c("acc")]
        if rng.random() < 0.3:
            noun = rng.choice(self._things["PLACES"])
            parts.append(PP(P("à"), NP(D("le"), noun.n())))
        tense = rng.choice(("p", "p", "pc", "pc", "f", "i"))
        clause = S(subj.spec(), VP(*parts)).t(tense)
        return self._finish(rng, clause, "accusative", tense, subj, q_p=0.12, adj_p=0.3)

    def _have(self, rng):
        subj = subject(rng) if rng.random() < 0.6 else person_subject(rng, "s", "3s_np")
        field = rng.choice(("OBJECTS", "CLOTHES", "ROOMS"))
        noun = rng.choice(self._things[field])
        roll = rng.random()
        if roll < 0.25:
            mass = rng.choice(("travail", "temps", "courage", "chance", "patience", "argent"))
            obj = NP(adverb("beaucoup"), P("de"), N(mass))
        elif roll < 0.35:
            obj = NP(D("un"), N("chien" if rng.random() < 0.5 else "chat"))
        else:
            obj = noun_phrase(rng, noun, "indef", adj=rng.choice(_HAVE_ADJ))
        tense = rng.choice(("p", "p", "p", "pc", "i"))
        clause = S(subj.spec(), VP(V("avoir"), obj)).t(tense)
        return self._finish(rng, clause, "have", tense, subj, neg_p=0.05, adj_p=0.3)

    def _date(self, rng):
        subj = subject(rng) if rng.random() < 0.6 else person_subject(rng, "s", "3s_np")
        lemma, tense = rng.choice(_EVENTS)
        month = _tok(rng.choice(_MONTHS), Tag.NOUN)
        roll = rng.random()
        if roll < 0.45:
            when = [_tok("en", Tag.PREP), month]
        elif roll < 0.6:
            when = [_tok("au", Tag.PREP_DET), _tok("mois", Tag.NOUN), _tok("de", Tag.PREP), month]
        elif roll < 0.75:
            when = [_tok("le", Tag.DET), _number(rng.choice(range(2, 32))), month]
        else:
            when = [_tok("en", Tag.PREP), _number(rng.choice(range(1925, 2026)))]
        clause = S(subj.spec(), VP(verb(lemma, transitive=False))).t(tense)
        if lemma == "marier":
            clause.typ({"refl": True})
        return self._sentence(realise(clause, end=when), "date", tense, subj)

    def _since(self, rng):
        subj = subject(rng)
        lemma, rest = rng.choice(_SINCE)
        if lemma == "être" and rest != "à la retraite":
            vp = VP(V("être"), A(rest))
            middle = []
        else:
            vp = VP(V(lemma))
            middle = [_tok(w, Tag.X) for w in rest.split()]
        if rng.random() < 0.7:
            unit, top = rng.choice(_DURATION_UNITS)
            count = rng.choice(range(2, 60 if top == 3 else 12))
            since = [_number(count), _tok(unit if unit == "mois" else unit + "s", Tag.NOUN)]
        else:
            since = [_tok(rng.choice(("lundi", "hier", "janvier", "Noël", "mardi")), Tag.NOUN)]
        clause = S(subj.spec(), vp).t("p")
        realised = realise(clause, end=[*middle, _tok("depuis", Tag.PREP), *since])
        return self._sentence(realised, "since", "p", subj)

    def _must(self, rng):
        frame = rng.choice(self._obj_frames)
        me = Subject(1, "s", rng.choice("mf"), None, "1s")
        inner = verb_phrase(rng, frame, me, _Choice(tense="fp")).t("b")
        clause = S(Pro("je").pe(3), VP(V("falloir"), inner)).t(
            rng.choice(("p", "p", "p", "i", "f"))
        )
        subj = Subject(3, "s", "m", None, "impersonal")
        return self._finish(rng, clause, "must", "p", subj, neg_p=0.1, q_p=0.05, adj_p=0.3)

    def _told_to(self, rng):
        frame = rng.choice(self._obj_frames)
        me = Subject(1, "s", rng.choice("mf"), None, "1s")
        inner = verb_phrase(rng, frame, me, _Choice(tense="fp")).t("b")
        teller = person_subject(rng, "s", "3s_np")
        tense = rng.choice(("pc", "pc", "p"))
        clause = S(teller.spec(), VP(V("dire"), PP(P("de"), inner))).t(tense)
        return self._finish(rng, clause, "told_to", tense, teller, neg_p=0.0, q_p=0.0, adj_p=0.2)

    def _named(self, rng):
        name, g = rng.choice(register_names())
        roll = rng.random()
        if roll < 0.4:
            np, noun, number = self._animal_np(rng, rng.choice(("def", "poss")))
            subj = Subject(3, "s", noun.g, np, "3_animal")
        elif roll < 0.7:
            subj = person_subject(rng, "s", "3s_np")
        else:
            subj = Subject(1, "s", g, None, "1s")
        clause = S(subj.spec(), VP(V("appeler"), NP(N(name)))).t(rng.choice(("p", "p", "i")))
        clause.typ({"refl": True})
        return self._finish(rng, clause, "named", "p", subj, neg_p=0.0, q_p=0.05, adj_p=0.0)

    def _sentence(self, realised, kind: str, tense: str, subj: Subject) -> Sentence | None:
        if realised is None:
            return None
        meta = {"frame": kind, "tense": tense, "subject": subj.kind, "type": "decl"}
        return Sentence(realised.text, realised.tokens, self.source, meta)


def _tok(form: str, tag: str) -> Token:
    return Token(form, tag, form.lower())


def _number(value: int) -> Token:
    """A number in words as one NUM token, as pyrealb tags them ("mille neuf cent dix")."""
    words = str(NO(value).nat(True).realize()).strip()
    return Token(words, Tag.NUM, words)
