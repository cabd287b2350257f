"""Requests, needs, pain, feelings, weather and hand-written everyday patient utterances."""

from __future__ import annotations

import logging
import random

from pyrealb import NP, PP, VP, A, D, N, P, Pro, S, V

from models.corrector.corpus import vocabulary as voc
from models.corrector.corpus.frames import CORE_FRAMES, Frame
from models.corrector.corpus.generator import (
    Sentence,
    _adjuncts,
    _Choice,
    field_nouns,
    prepend,
    verb_phrase,
)
from models.corrector.corpus.phrases import (
    Subject,
    adverb,
    category,
    noun_phrase,
    parse_tagged,
    subject,
)
from models.corrector.corpus.realise import Realised, detokenize, realise
from models.corrector.corpus.tokens import Tag, Token

_LOGGER = logging.getLogger(__name__)

_ME = Subject(1, "s", "m", None, "1s")
_PLEASE = "s'il/X vous/X plaît/X"
_PLEASE_TU = "s'il/X te/X plaît/X"
_STATES = (
    "faim",
    "soif",
    "froid",
    "chaud",
    "sommeil",
    "peur",
    "mal",
    "raison",
    "tort",
    "envie",
    "honte",
    "besoin",
)
_WEATHER_ADJ = ("beau", "chaud", "froid", "doux", "gris", "mauvais", "frais", "lourd", "bon")

# Hand-written frequent utterances, tagged word by word ("+" joins with a hyphen).
HANDWRITTEN = (
    "bonjour/INTJ ,/PUNCT comment/QW allez/VERB:aller+ vous/CLS_INV ?/PUNCT",
    "je/CLS ne/NEG_NE sais/VERB:savoir pas/NEG ./PUNCT",
    "je/CLS ne/NEG_NE comprends/VERB:comprendre pas/NEG ./PUNCT",
    "je/CLS ne/NEG_NE trouve/VERB:trouver pas/NEG le/DET mot/N ./PUNCT",
    "je/CLS ne/NEG_NE trouve/VERB:trouver pas/NEG mes/DET mots/N ./PUNCT",
    "je/CLS cherche/VERB:chercher mes/DET mots/N ./PUNCT",
    "c'/DEM est/COP:être difficile/A de/PREP parler/VERB:parler ./PUNCT",
    "vous/CLS pouvez/MODAL:pouvoir répéter/VERB:répéter ,/PUNCT s'il/X vous/X plaît/X ?/PUNCT",
    "pouvez/MODAL:pouvoir+ vous/CLS_INV parler/VERB:parler plus/ADV lentement/ADV ?/PUNCT",
    "j'/CLS ai/AUX:avoir eu/VERB:avoir un/DET accident/N vasculaire/A cérébral/A ./PUNCT",
    "j'/CLS ai/AUX:avoir fait/VERB:faire un/DET AVC/N l'/DET année/N dernière/A ./PUNCT",
    "je/CLS fais/VERB:faire de/PART la/DET rééducation/N avec/PREP l'/DET orthophoniste/N ./PUNCT",
    "je/CLS vais/VERB:aller mieux/ADV aujourd'hui/ADV ./PUNCT",
    "ça/DEM va/VERB:aller bien/ADV ,/PUNCT merci/INTJ ./PUNCT",
    "ça/DEM ne/NEG_NE va/VERB:aller pas/NEG très/ADV bien/ADV ./PUNCT",
    "merci/INTJ beaucoup/ADV ./PUNCT",
    "à/PREP demain/ADV ./PUNCT",
    "au/PREP_DET revoir/N ,/PUNCT à/PREP bientôt/ADV ./PUNCT",
    "quelle/QW heure/N est/COP:être+ il/CLS_INV ?/PUNCT",
    "quel/QW jour/N sommes/COP:être+ nous/CLS_INV ?/PUNCT",
    "j'/CLS ai/VERB:avoir rendez-vous/N chez/PREP le/DET médecin/N ./PUNCT",
    "j'/CLS ai/VERB:avoir rendez-vous/N à/PREP l'/DET hôpital/N demain/ADV ./PUNCT",
    "je/CLS voudrais/MODAL:vouloir aller/VERB:aller aux/PREP_DET toilettes/N ./PUNCT",
    "je/CLS suis/COP:être fatigué/A aujourd'hui/ADV ./PUNCT",
    "je/CLS suis/COP:être content/A de/PREP vous/PRON voir/VERB:voir ./PUNCT",
    "ma/DET fille/N vient/VERB:venir me/CLO voir/VERB:voir dimanche/N ./PUNCT",
    "mon/DET mari/N m'/CLO aide/VERB:aider beaucoup/ADV ./PUNCT",
    "je/CLS n'/NEG_NE arrive/VERB:arriver pas/NEG à/PREP dire/VERB:dire le/DET mot/N ./PUNCT",
    "j'/CLS ai/AUX:avoir oublié/VERB:oublier le/DET nom/N ./PUNCT",
    "je/CLS le/CLO sais/VERB:savoir mais/CONJ je/CLS ne/NEG_NE peux/MODAL:pouvoir pas/NEG "
    "le/CLO dire/VERB:dire ./PUNCT",
    "attendez/VERB:attendre ,/PUNCT je/CLS réfléchis/VERB:réfléchir ./PUNCT",
    "je/CLS veux/MODAL:vouloir rentrer/VERB:rentrer à/PREP la/DET maison/N ./PUNCT",
    "je/CLS voudrais/MODAL:vouloir un/DET verre/N d'/PREP eau/N ,/PUNCT "
    "s'il/X vous/X plaît/X ./PUNCT",
    "il/CLS fait/VERB:faire beau/A aujourd'hui/ADV ./PUNCT",
    "qu'est-ce/QW qu'/QW on/CLS mange/VERB:manger ce/DET soir/N ?/PUNCT",
    "où/QW sont/COP:être mes/DET lunettes/N ?/PUNCT",
    "où/QW est/COP:être la/DET salle/N de/PREP bains/N ?/PUNCT",
    "j'/CLS ai/VERB:avoir mal/N à/PREP la/DET tête/N depuis/PREP ce/DET matin/N ./PUNCT",
    "je/CLS n'/NEG_NE ai/AUX:avoir pas/NEG bien/ADV dormi/VERB:dormir cette/DET nuit/N ./PUNCT",
    "je/CLS dois/MODAL:devoir prendre/VERB:prendre mes/DET médicaments/N ./PUNCT",
    "j'/CLS ai/AUX:avoir pris/VERB:prendre mes/DET médicaments/N ce/DET matin/N ./PUNCT",
    "c'/DEM est/COP:être l'/DET heure/N du/PREP_DET repas/N ./PUNCT",
    "je/CLS n'/NEG_NE ai/VERB:avoir pas/NEG faim/N ./PUNCT",
    "je/CLS voudrais/MODAL:vouloir parler/VERB:parler à/PREP ma/DET fille/N ./PUNCT",
    "vous/CLS pouvez/MODAL:pouvoir appeler/VERB:appeler mon/DET fils/N ?/PUNCT",
    "il/CLS y/CLO a/VERB:avoir un/DET problème/N ./PUNCT",
    "ce/DEM n'/NEG_NE est/COP:être pas/NEG grave/A ./PUNCT",
    "je/CLS suis/COP:être désolé/A ./PUNCT",
    "je/CLS suis/COP:être désolée/A ./PUNCT",
    "d'/PREP accord/N ,/PUNCT on/CLS y/CLO va/VERB:aller ./PUNCT",
    "je/CLS ne/NEG_NE me/CLO souviens/VERB:souvenir pas/NEG ./PUNCT",
    "je/CLS me/CLO souviens/VERB:souvenir de/PREP mon/DET enfance/N ./PUNCT",
    "aidez/VERB:aider+ moi/PRON ,/PUNCT s'il/X vous/X plaît/X ./PUNCT",
    "je/CLS veux/MODAL:vouloir sortir/VERB:sortir un/DET peu/ADV ./PUNCT",
    "on/CLS peut/MODAL:pouvoir aller/VERB:aller se/CLO promener/VERB:promener ?/PUNCT",
    "le/DET repas/N était/COP:être très/ADV bon/A ./PUNCT",
    "je/CLS n'/NEG_NE aime/VERB:aimer pas/NEG la/DET soupe/N ./PUNCT",
    "je/CLS suis/COP:être né/A à/PREP Lyon/N ./PUNCT",
    "j'/CLS habite/VERB:habiter à/PREP Paris/N depuis/PREP trente/NUM ans/N ./PUNCT",
    "j'/CLS ai/VERB:avoir deux/NUM enfants/N et/CONJ trois/NUM petits-enfants/N ./PUNCT",
    "avant/ADV ,/PUNCT je/CLS travaillais/VERB:travailler à/PREP la/DET poste/N ./PUNCT",
    "je/CLS suis/COP:être à/PREP la/DET retraite/N ./PUNCT",
    "je/CLS regarde/VERB:regarder la/DET télévision/N le/DET soir/N ./PUNCT",
    "il/CLS est/COP:être quelle/QW heure/N ?/PUNCT",
    "je/CLS voudrais/MODAL:vouloir un/DET café/N avec/PREP du/PART sucre/N ./PUNCT",
    "tu/CLS peux/MODAL:pouvoir fermer/VERB:fermer la/DET porte/N ?/PUNCT",
    "vous/CLS avez/VERB:avoir l'/DET heure/N ?/PUNCT",
    "je/CLS n'/NEG_NE entends/VERB:entendre pas/NEG bien/ADV ./PUNCT",
    "parlez/VERB:parler plus/ADV fort/ADV ,/PUNCT s'il/X vous/X plaît/X ./PUNCT",
    "bonne/A journée/N ./PUNCT",
    "bonne/A nuit/N ,/PUNCT à/PREP demain/ADV ./PUNCT",
    "joyeux/A anniversaire/N ./PUNCT",
)


def parse_handwritten(line: str) -> Sentence:
    """Parses one HANDWRITTEN line into a sentence (text rebuilt from its tokens)."""
    tokens: list[Token] = []
    codes = {"N": Tag.NOUN, "A": Tag.ADJ}
    for item in line.split():
        hyphen = item.endswith("+")
        item = item.rstrip("+")
        form, tag = item.rsplit("/", 1)
        lemma = form.lower()
        if ":" in tag:
            tag, lemma = tag.split(":", 1)
        tag = codes.get(tag, tag)
        feats = {}
        if tag in (Tag.VERB, Tag.MODAL, Tag.COP, Tag.AUX):
            feats["vform"] = "inf" if form == lemma else "fin"
        tokens.append(
            Token(
                form,
                getattr(Tag, tag, tag),
                lemma if tag != Tag.NOUN or not form[0].isupper() else form,
                feats,
                hyphen,
            )
        )
    return Sentence(detokenize(tokens), tokens, "handwritten", {"frame": "handwritten"})


class UtteranceGenerator:
    """Requests ("Je voudrais…", "Pouvez-vous…"), needs, pain, feelings and weather."""

    source = "pyrealb-requests"

    def __init__(self) -> None:
        self._handwritten = tuple(parse_handwritten(line) for line in HANDWRITTEN)
        self._obj_frames = tuple(f for f in CORE_FRAMES if f.kind in ("obj", "loc", "pp", "obj_pp"))
        self._builders = (
            (self._want_thing, 3),
            (self._want_action, 4),
            (self._can_you, 4),
            (self._may_i, 2),
            (self._pain, 3),
            (self._state, 3),
            (self._feeling, 4),
            (self._weather, 2),
            (self._handwritten_one, 1),
            (self._need_action, 2),
        )

    def sample(self, rng: random.Random) -> Sentence | None:
        """One utterance, or None when pyrealb rejects it."""
        builder = rng.choices([b for b, _ in self._builders], [w for _, w in self._builders])[0]
        return builder(rng)

    def _done(self, realised: Realised | None, kind: str) -> Sentence | None:
        if realised is None:
            return None
        return Sentence(realised.text, realised.tokens, self.source, {"frame": kind})

    def _want_thing(self, rng):
        slot = rng.choice(("FOOD_COUNT", "DRINK", "OBJECTS", "FOOD_MASS", "CLOTHES"))
        noun = rng.choice(field_nouns(slot))
        style = "part" if slot in ("FOOD_MASS", "DRINK") and rng.random() < 0.5 else "indef"
        if style == "part":
            part = P("de")
            part.role = Tag.PART
            obj = NP(part, D("le"), noun.n())
        else:
            obj = noun_phrase(rng, noun, "indef")
        verb = rng.choice(("vouloir", "vouloir", "aimer", "prendre"))
        vp = (
            VP(V(verb).t("c"), obj)
            if verb != "prendre"
            else VP(V("vouloir").t("c"), VP(V("prendre"), obj).t("b"))
        )
        end = parse_tagged(_PLEASE) if rng.random() < 0.3 else None
        return self._done(realise(S(Pro("je").pe(1), vp), end=end), "want_thing")

    def _action(self, rng, subj: Subject) -> VP:
        frame: Frame = rng.choice(self._obj_frames)
        # tense "fp" marks an infinitive context: no clitic object (pyrealb would climb it).
        return verb_phrase(rng, frame, subj, _Choice(tense="fp")).t("b")

    def _want_action(self, rng):
        subj = subject(rng) if rng.random() < 0.3 else _ME
        verb, tense = rng.choice(
            (
                ("vouloir", "c"),
                ("vouloir", "p"),
                ("aimer", "c"),
                ("préférer", "p"),
                ("devoir", "p"),
                ("pouvoir", "p"),
            )
        )
        clause = S(subj.spec(), VP(V(verb).t(tense), self._action(rng, subj)))
        if rng.random() < 0.12:
            clause.typ({"neg": True})
        return self._done(realise(clause), "want_action")

    def _can_you(self, rng):
        plural = rng.random() < 0.6
        subj = Subject(2, "p" if plural else "s", rng.choice("mf"), None, "2p" if plural else "2s")
        tense = rng.choice(("p", "c"))
        clause = S(subj.spec(), VP(V("pouvoir").t(tense), self._action(rng, _ME)))
        style = rng.random()
        if style < 0.5:
            clause.typ({"int": "yon"})
            realised = realise(clause, punct="?")
        elif style < 0.75:
            realised = realise(clause, punct="?")
        else:
            realised = realise(clause, punct="?")
            if realised is not None:
                realised = prepend(realised, parse_tagged("est-ce/QW que/QW"))
        if realised is not None and rng.random() < 0.25:
            please = parse_tagged(_PLEASE if plural else _PLEASE_TU)
            tokens = [*realised.tokens[:-1], Token(",", Tag.PUNCT), *please, realised.tokens[-1]]
            realised = Realised(detokenize(tokens), tokens)
        return self._done(realised, "can_you")

    def _may_i(self, rng):
        clause = S(Pro("je").pe(1), VP(V("pouvoir"), self._action(rng, _ME)))
        realised = realise(clause, punct="?")
        if realised is not None:
            realised = prepend(realised, parse_tagged("est-ce/QW que/QW"))
        return self._done(realised, "may_i")

    def _need_action(self, rng):
        subj = subject(rng) if rng.random() < 0.3 else _ME
        vp = VP(
            V("avoir"), NP(N(rng.choice(("besoin", "envie")))), PP(P("de"), self._action(rng, subj))
        )
        clause = S(subj.spec(), vp).t(rng.choice(("p", "p", "i")))
        if rng.random() < 0.15:
            clause.typ({"neg": True})
        return self._done(realise(clause), "need_action")

    def _pain(self, rng):
        subj = subject(rng) if rng.random() < 0.4 else _ME
        body = rng.choice(category("BODY"))
        number = (
            "p"
            if body.lemma in ("dent", "pied", "jambe", "œil", "oreille") and rng.random() < 0.4
            else "s"
        )
        vp = VP(V("avoir"), NP(N("mal")), PP(P("à"), noun_phrase(rng, body, "def", number)))
        if rng.random() < 0.15:
            vp = VP(
                V("avoir"),
                NP(adverb("très"), N("mal")),
                PP(P("à"), noun_phrase(rng, body, "def", number)),
            )
        tense = rng.choice(("p", "p", "p", "pc", "i"))
        clause = S(subj.spec(), vp).t(tense)
        if rng.random() < 0.1:
            clause.typ({"neg": True})
        front, end = _adjuncts(rng, _Choice(tense=tense), subj)
        question = rng.random() < 0.15 and subj.pe == 2
        return self._done(
            realise(
                clause, front=[] if question else front, end=end, punct="?" if question else "."
            ),
            "pain",
        )

    def _state(self, rng):
        subj = subject(rng) if rng.random() < 0.4 else _ME
        state = rng.choice(_STATES[:7])
        mod = (
            [adverb(rng.choice(("très", "un peu")))]
            if rng.random() < 0.2 and state != "mal"
            else []
        )
        clause = S(subj.spec(), VP(V("avoir"), NP(*mod, N(state)))).t(
            rng.choice(("p", "p", "pc", "i"))
        )
        if rng.random() < 0.15:
            clause.typ({"neg": True})
        question = rng.random() < 0.12
        return self._done(realise(clause, punct="?" if question else "."), "state")

    def _feeling(self, rng):
        subj = subject(rng) if rng.random() < 0.5 else _ME
        adj = rng.choice(voc.ADJ_PERSON)
        mod = (
            [adverb(rng.choice(("très", "un peu", "trop", "vraiment", "assez")))]
            if rng.random() < 0.3
            else []
        )
        tense = rng.choice(("p", "p", "p", "pc", "i", "f"))
        clause = S(subj.spec(), VP(V("être"), *mod, A(adj))).t(tense)
        if rng.random() < 0.15:
            clause.typ({"neg": True})
        front, end = _adjuncts(rng, _Choice(tense=tense), subj)
        question = rng.random() < 0.1
        return self._done(
            realise(
                clause, front=[] if question else front, end=end, punct="?" if question else "."
            ),
            "feeling",
        )

    def _weather(self, rng):
        it = Pro("je").pe(3)
        tense = rng.choice(("p", "p", "pc", "i", "f"))
        roll = rng.random()
        if roll < 0.5:
            clause = S(it, VP(V("faire"), A(rng.choice(_WEATHER_ADJ)))).t(tense)
        elif roll < 0.8:
            clause = S(it, VP(V(rng.choice(("pleuvoir", "neiger", "geler"))))).t(tense)
        else:
            noun = rng.choice(("vent", "soleil", "brouillard", "orage", "nuage"))
            part = P("de")
            part.role = Tag.PART
            clause = S(it, VP(V("avoir"), NP(part, D("le"), N(noun))))
            realised = realise(clause)
            if realised is None:
                return None
            tokens = [realised.tokens[0], Token("y", Tag.CLO, "y"), *realised.tokens[1:]]
            return self._done(Realised(detokenize(tokens), tokens), "weather")
        if rng.random() < 0.12:
            clause.typ({"neg": True})
        front, end = _adjuncts(rng, _Choice(tense=tense), _ME)
        return self._done(realise(clause, front=front, end=end), "weather")

    def _handwritten_one(self, rng):
        return rng.choice(self._handwritten)
