"""Everyday dialogue: subordinates, questions, negation, object pronouns, modals, small talk.

The sentences a patient wants to say in a conversation rather than in a picture
description: "Je pense qu'elle viendra demain.", "Est-ce que tu viens ce soir ?",
"Je n'ai pas dormi cette nuit.", "Tu peux me donner le sel ?", "J'en veux encore.",
"Je viens de manger.", "Merci beaucoup pour les fleurs.". Clauses are realised by
pyrealb (agreement, conjugation, negation); clauses, question words and hand-tagged
pieces are then joined as tokens, and elision is redone across the joins. pyrealb
raises an object clitic over a modal ("je le veux prendre"), so clitics of an
infinitive are inserted as tokens right before it ("je veux le prendre").
"""

from __future__ import annotations

import logging
import random

from pyrealb import NO, NP, PP, SP, VP, A, D, N, P, Pro, Q, S, V

from models.corrector.corpus import vocabulary as voc
from models.corrector.corpus.frames import CORE_FRAMES, Frame
from models.corrector.corpus.generator import Sentence, _adjuncts, _Choice, field_nouns, verb_phrase
from models.corrector.corpus.phrases import (
    Subject,
    category,
    noun_phrase,
    parse_tagged,
    person_object,
    person_subject,
    register_names,
    subject,
    verb,
)
from models.corrector.corpus.realise import Realised, detokenize, realise, tag_terminals
from models.corrector.corpus.tokens import (
    _ELIDABLE,
    _UNELIDED,
    Tag,
    Token,
    _starts_with_vowel_sound,
)

_LOGGER = logging.getLogger(__name__)

_SIMPLE_KINDS = ("obj", "loc", "pp", "obj_pp", "intr")
# Opinion and report verbs that take "que" + indicative (never negated: that needs
# the subjunctive, "je ne pense pas qu'il vienne").
_OPINION = (
    ("penser", 4),
    ("croire", 3),
    ("espérer", 3),
    ("savoir", 2),
    ("trouver", 1),
    ("dire", 2),
)
# (subordinate tense, main tense) pairs that respect the sequence of tenses.
_WHEN_TENSES = (("p", "p"), ("p", "p"), ("i", "i"), ("pc", "i"), ("pc", "pc"), ("f", "f"))
_IF_TENSES = (("p", "f"), ("p", "p"), ("p", "fp"), ("p", "modal"))
_BECAUSE_TENSES = (("p", "p"), ("pc", "p"), ("pc", "pc"), ("i", "pc"), ("fp", "p"), ("p", "pc"))
_NEG_KINDS = (("pas", 50), ("plus", 20), ("jamais", 14), ("rien", 8), ("personne", 8))
_RIEN_VERBS = ("manger", "boire", "acheter", "dire", "entendre", "voir", "comprendre", "faire")
_RIEN_VERBS += ("trouver", "oublier", "demander", "préparer", "payer", "sentir")
_PERSONNE_VERBS = ("voir", "connaître", "attendre", "appeler", "rencontrer", "entendre")
_PERSONNE_VERBS += ("inviter", "déranger", "croire")
# Verbs taking a person as direct object (me, te, le, la, nous, vous, les).
_ACC_PERSON = ("aider", "appeler", "attendre", "voir", "chercher", "accompagner", "emmener")
_ACC_PERSON += ("rappeler", "remercier", "déranger", "écouter", "raccompagner", "réveiller")
# Verbs taking a dative (me, te, lui, nous, vous, leur) and a thing.
_DATIVE = (
    ("donner", "OBJECTS"),
    ("passer", "OBJECTS"),
    ("apporter", "OBJECTS"),
    ("prêter", "OBJECTS"),
    ("montrer", "OBJECTS"),
    ("rendre", "OBJECTS"),
    ("acheter", "FOOD_COUNT"),
    ("apporter", "DRINK"),
    ("servir", "DRINK"),
    ("offrir", "CLOTHES"),
    ("préparer", "MEALS"),
    ("envoyer", "OBJECTS"),
)
_DATIVE_ONLY = ("téléphoner", "parler", "écrire", "répondre", "sourire")
# Verbs whose direct object may be a thing pronoun (le/la/les) in "je vais le faire".
_ACC_THING = ("prendre", "chercher", "manger", "acheter", "finir", "faire", "ranger", "laver")
_ACC_THING += ("réparer", "trouver", "porter", "garder", "ouvrir", "fermer", "jeter", "lire")
_EN_VERBS = (("vouloir", ""), ("prendre", "inf"), ("acheter", "inf"), ("manger", "inf"))
_EN_VERBS += (("avoir", ""), ("reprendre", "inf"), ("boire", "inf"), ("vouloir", "c"))
_Y_VERBS = ("aller", "retourner", "passer", "rester", "aller", "aller")
_MODALS = (
    ("pouvoir", "p", 4),
    ("pouvoir", "c", 2),
    ("vouloir", "p", 3),
    ("vouloir", "c", 2),
    ("devoir", "p", 3),
    ("devoir", "i", 1),
    ("pouvoir", "i", 1),
    ("pouvoir", "pc", 1),
    ("vouloir", "i", 1),
    ("devoir", "f", 1),
)
_REASON_STATES = ("faim", "soif", "froid", "chaud", "sommeil", "peur")
_WEATHER = (("faire", "beau"), ("faire", "froid"), ("faire", "chaud"), ("faire", "mauvais"))
_RAIN = ("pleuvoir", "neiger")
# Relative clause predicates for people: "le voisin qui habite en face".
_WHERE_LIVE = ("en face", "à côté", "au-dessus", "en dessous", "au coin de la rue", "en bas")
_SPEAKER = Subject(1, "s", "m", None, "1s")


def _q(word: str, tag: str):
    """A quoted pyrealb word with a known tag (tag_terminals keeps the role)."""
    term = Q(word)
    term.role = tag
    return term


def _tok(form: str, tag: str, lemma: str = "", **feats: str) -> Token:
    return Token(form, tag, lemma or form.lower(), dict(feats))


def _bare(realised: Realised | None) -> list[Token] | None:
    """The tokens of a realised clause without the final punctuation."""
    if realised is None:
        return None
    return [t for t in realised.tokens[:-1]]


def _clause_tokens(expr, front=None, end=None) -> list[Token] | None:
    return _bare(realise(expr, front=front, end=end))


def _phrase_tokens(expr) -> list[Token]:
    """Tokens of a phrase (NP, PP) realised alone."""
    return [t for t in tag_terminals(expr.real()) if t.tag != Tag.PUNCT]


def _lower(tokens: list[Token]) -> list[Token]:
    """Lowercases the first word of a part (pyrealb capitalises it) unless it is a name."""
    if not tokens:
        return tokens
    first = tokens[0]
    if first.tag in (Tag.NOUN, Tag.PROPN) and first.form[:1].isupper():
        return tokens
    return [first.with_form(first.form[:1].lower() + first.form[1:]), *tokens[1:]]


def elide(tokens: list[Token]) -> list[Token]:
    """Redoes elision across joined parts: "que il" -> "qu'il", "n' le ai" -> "ne l'ai"."""
    out = list(tokens)
    for i, tok in enumerate(out):
        words = [t for t in out[i + 1 :] if t.tag != Tag.PUNCT]
        if tok.hyphen or not words:
            continue
        nxt = words[0]
        low = tok.form.lower()
        if low == "l'":
            base = "la" if tok.feats.get("g") == "f" else "le"
        else:
            base = _UNELIDED.get(low, low)
        if base == "ce" or (base not in _ELIDABLE and base != "si"):
            continue
        nxt_base = _UNELIDED.get(nxt.form.lower(), nxt.form.lower())
        vowel = _starts_with_vowel_sound(nxt_base, nxt.lemma.lower())
        if base == "si":
            new = "s'" if nxt_base in ("il", "ils") else "si"
        else:
            new = _ELIDABLE[base] if vowel else base
        if new != low:
            new = new[:1].upper() + new[1:] if tok.form[:1].isupper() else new
            out[i] = tok.with_form(new)
    return out


def join(parts: list[list[Token]], punct: str = ".") -> Realised:
    """Joins parts into one sentence: lowercased part starts, elision redone, punctuation."""
    tokens: list[Token] = []
    for part in parts:
        tokens.extend(_lower(part))
    tokens = elide([*tokens, Token(punct, Tag.PUNCT)])
    return Realised(detokenize(tokens), tokens)


def _comma() -> list[Token]:
    return [Token(",", Tag.PUNCT)]


def insert_clitic(tokens: list[Token], clitic: Token, before_infinitive: bool) -> list[Token]:
    """Puts an object clitic before its verb: the infinitive, or the first finite verb."""
    verbal = (Tag.VERB, Tag.AUX, Tag.AUX_FUT, Tag.MODAL, Tag.COP)
    for i, tok in enumerate(tokens):
        if before_infinitive and tok.tag == Tag.VERB and tok.feats.get("vform") == "inf":
            return [*tokens[:i], clitic, *tokens[i:]]
        if not before_infinitive and tok.tag in verbal:
            return [*tokens[:i], clitic, *tokens[i:]]
    raise ValueError("no verb for the clitic")


def _clitic(pe: int, n: str, g: str, case: str) -> Token:
    """An object clitic token: case "acc" (me, te, le/la, nous, vous, les) or "dat"."""
    if pe == 1:
        form = "me" if n == "s" else "nous"
    elif pe == 2:
        form = "te" if n == "s" else "vous"
    elif case == "dat":
        form = "lui" if n == "s" else "leur"
    else:
        form = ("la" if g == "f" else "le") if n == "s" else "les"
    return _tok(form, Tag.CLO, form, g=g, n=n, pe=str(pe))


def _other_person(rng: random.Random, subj: Subject) -> tuple[int, str, str]:
    """An object person different from the subject's ("je me" would be reflexive)."""
    while True:
        pe, n = rng.choice(((1, "s"), (1, "s"), (2, "s"), (3, "s"), (3, "s"), (2, "p"), (3, "p")))
        if pe == 3 or pe != subj.pe:
            return pe, n, rng.choice("mf")


def _clock(rng: random.Random):
    if rng.random() < 0.1:
        return PP(P("à"), NP(N(rng.choice(("midi", "minuit")))))
    hour = rng.choice(range(1, 12))
    time = NP(NO(hour).nat(True), N("heure"))
    if hour > 1:
        time.n("p")
    if rng.random() < 0.2:
        return PP(P("à"), time, _q("et demie", Tag.X))
    return PP(P("à"), time)


class DialogueGenerator:
    """Conversation sentences: subordinates, questions, negation, clitics, modals, small talk."""

    source = "pyrealb-dialogue"

    def __init__(self) -> None:
        register_names()
        frames = [f for f in CORE_FRAMES if f.kind in _SIMPLE_KINDS]
        self._frames = tuple(frames)
        self._weights = tuple(f.weight for f in frames)
        self._obj_frames = tuple(f for f in frames if f.kind == "obj" and f.slot != "PERSON")
        food = ("FOOD_MASS", "FOOD_COUNT", "DRINK", "MEALS")
        self._food_frames = tuple(f for f in self._obj_frames if f.slot in food)
        self._builders = (
            # subordinates
            (self._opinion, 5, "subordinate"),
            (self._when, 4, "subordinate"),
            (self._because, 4, "subordinate"),
            (self._if, 3, "subordinate"),
            (self._relative, 4, "subordinate"),
            # questions
            (self._yes_no, 6, "question"),
            (self._offer, 2, "question"),
            (self._where, 3, "question"),
            (self._wh_clause, 5, "question"),
            (self._who, 2, "question"),
            (self._how_much, 2, "question"),
            # negation
            (self._negation, 8, "negation"),
            # object pronouns
            (self._clitic_compound, 4, "clitic"),
            (self._clitic_infinitive, 6, "clitic"),
            (self._en_y, 4, "clitic"),
            # modals
            (self._modal, 6, "modal"),
            (self._near_future, 3, "modal"),
            (self._just_did, 3, "modal"),
            (self._must, 2, "modal"),
            # everyday dialogue
            (self._greeting, 2, "dialogue"),
            (self._thanks, 2, "dialogue"),
            (self._phone, 3, "dialogue"),
            (self._appointment, 3, "dialogue"),
            (self._health, 3, "dialogue"),
            (self._meal, 2, "dialogue"),
            (self._weather, 2, "dialogue"),
            (self._family, 3, "dialogue"),
            (self._feeling, 3, "dialogue"),
        )

    def sample(self, rng: random.Random) -> Sentence | None:
        """One sentence, or None when pyrealb rejects it."""
        builder, _, phenomenon = rng.choices(self._builders, [w for _, w, _ in self._builders])[0]
        try:
            result = builder(rng)
        except (KeyError, IndexError, ValueError) as err:
            _LOGGER.debug("%s failed: %s", builder.__name__, err)
            return None
        if result is None:
            return None
        realised, tense = result
        if realised is None:
            return None
        meta = {
            "frame": "dialogue" + builder.__name__,
            "phenomenon": phenomenon,
            "type": "question" if realised.text.endswith("?") else "decl",
            "tense": tense,
        }
        return Sentence(realised.text, realised.tokens, self.source, meta)

    # --- clause helpers ---------------------------------------------------------

    def _frame(self, rng: random.Random) -> Frame:
        return rng.choices(self._frames, self._weights)[0]

    def _vp(self, rng, subj: Subject, infinitive: bool = False, neg: bool = False) -> VP:
        """A frame VP; in an infinitive context objects stay nouns (no clitic climbing)."""
        choice = _Choice(tense="fp" if infinitive else "p", neg=neg)
        vp = verb_phrase(rng, self._frame(rng), subj, choice)
        return vp.t("b") if infinitive else vp

    def _clause(self, rng, subj: Subject, tense: str, neg=None, modal=None) -> S:
        """A frame clause in a tense: p, pc, i, f, fp, or "modal" (verb, tense)."""
        if tense == "modal":
            verb_lemma, mtense = modal or rng.choice([(v, t) for v, t, _ in _MODALS])
            clause = S(subj.spec(), VP(V(verb_lemma).t(mtense), self._vp(rng, subj, True, neg)))
        elif tense == "fp":
            clause = S(subj.spec(), VP(V("aller"), self._vp(rng, subj, True, neg))).t("p")
        else:
            clause = S(subj.spec(), self._vp(rng, subj, False, bool(neg))).t(tense)
        if neg:
            clause.typ({"neg": neg})
        return clause

    def _state_clause(self, rng, subj: Subject, tense: str) -> S:
        """A state: être + adjective, avoir faim/mal à..., or the weather."""
        roll = rng.random()
        if roll < 0.45:
            return S(subj.spec(), VP(V("être"), A(rng.choice(voc.ADJ_PERSON)))).t(tense)
        if roll < 0.65:
            return S(subj.spec(), VP(V("avoir"), NP(N(rng.choice(_REASON_STATES))))).t(tense)
        if roll < 0.8:
            body = rng.choice(category("BODY"))
            vp = VP(V("avoir"), NP(N("mal")), PP(P("à"), noun_phrase(rng, body, "def")))
            return S(subj.spec(), vp).t(tense)
        return self._weather_clause(rng, tense)

    def _weather_clause(self, rng, tense: str) -> S:
        it = Pro("je").pe(3)
        if rng.random() < 0.5:
            lemma, adj = rng.choice(_WEATHER)
            vp = VP(V(lemma), A(adj))
        else:
            vp = VP(V(rng.choice(_RAIN)))
        if tense == "fp":
            return S(it, VP(V("aller"), vp.t("b"))).t("p")
        return S(it, vp).t(tense)

    def _time(self, rng, tense: str, subj: Subject, neg: bool = False, p: float = 0.5):
        """(front, end) time adverbials that match the tense; front only half the time."""
        if rng.random() >= p:
            return [], []
        return _adjuncts(
            rng, _Choice(tense=tense if tense in ("p", "pc", "i", "f") else "f", neg=neg), subj
        )

    # --- subordinates ------------------------------------------------------------

    def _opinion(self, rng):
        main = subject(rng) if rng.random() < 0.3 else _SPEAKER
        if rng.random() < 0.15:
            main = person_subject(rng, "s", "3s_np")
        lemma = rng.choices([v for v, _ in _OPINION], [w for _, w in _OPINION])[0]
        other = subject(rng)
        tense = rng.choice(("p", "p", "pc", "f", "fp", "modal"))
        if lemma == "espérer" and tense == "pc":
            tense = "f"
        neg = True if rng.random() < 0.15 else None
        modal = (rng.choice(("pouvoir", "vouloir", "devoir")), "p")
        inner = self._clause(rng, other, tense, neg, modal)
        if lemma == "trouver":
            inner = S(other.spec(), VP(V("être"), A(rng.choice(voc.ADJ_PERSON)))).t("p")
        que = Pro("que")
        que.role = Tag.CONJ
        main_tense = "pc" if lemma == "dire" and rng.random() < 0.5 else "p"
        if main_tense == "pc" and tense in ("f", "fp"):
            tense = "p"
            inner = self._clause(rng, other, "pc")
        clause = S(main.spec(), VP(V(lemma), SP(que, inner))).t(main_tense)
        front, end = self._time(rng, tense, other, bool(neg), 0.3)
        tokens = _clause_tokens(clause, end=end)
        return (None if tokens is None else join([tokens])), "que+" + tense

    def _when(self, rng):
        sub_tense, main_tense = rng.choice(_WHEN_TENSES)
        subj = subject(rng)
        if rng.random() < 0.5:
            sub = self._state_clause(rng, subj, sub_tense)
        else:
            sub = self._clause(rng, subj, sub_tense)
        main_subj = subj if rng.random() < 0.5 else subject(rng)
        main = self._clause(rng, main_subj, main_tense, True if rng.random() < 0.12 else None)
        sub_t, main_t = _clause_tokens(sub), _clause_tokens(main)
        if sub_t is None or main_t is None:
            return None
        quand = [_tok("quand", Tag.CONJ)]
        if rng.random() < 0.6:
            return join([quand, sub_t, _comma(), main_t]), "quand+" + sub_tense
        return join([main_t, quand, sub_t]), "quand+" + sub_tense

    def _because(self, rng):
        main_tense, sub_tense = rng.choice(_BECAUSE_TENSES)
        subj = subject(rng)
        neg = True if rng.random() < 0.35 else None
        main = self._clause(rng, subj, main_tense, neg)
        reason_subj = subj if rng.random() < 0.6 else subject(rng)
        if rng.random() < 0.6:
            sub = self._state_clause(rng, reason_subj, sub_tense if sub_tense != "fp" else "p")
        else:
            sub = self._clause(rng, reason_subj, sub_tense)
        main_t, sub_t = _clause_tokens(main), _clause_tokens(sub)
        if main_t is None or sub_t is None:
            return None
        because = [_tok("parce", Tag.CONJ), _tok("que", Tag.CONJ)]
        return join([main_t, because, sub_t]), "parce_que+" + main_tense

    def _if(self, rng):
        _, main_tense = rng.choice(_IF_TENSES)
        subj = subject(rng)
        if rng.random() < 0.4:
            sub = self._state_clause(rng, subj, "p")
        elif rng.random() < 0.3:
            # "Si tu veux", "Si vous voulez bien", "Si j'ai le temps".
            roll = rng.random()
            if roll < 0.5:
                sub = S(subj.spec(), VP(V("vouloir")))
            else:
                sub = S(subj.spec(), VP(V("avoir"), NP(D("le"), N("temps"))))
        else:
            sub = self._clause(rng, subj, "p")
        main_subj = subject(rng)
        if main_tense == "modal":
            modal = (rng.choice(("pouvoir", "devoir", "vouloir")), "p")
            main = self._clause(rng, main_subj, "modal", modal=modal)
        else:
            main = self._clause(rng, main_subj, main_tense)
        sub_t, main_t = _clause_tokens(sub), _clause_tokens(main)
        if sub_t is None or main_t is None:
            return None
        si = [_tok("si", Tag.CONJ)]
        if rng.random() < 0.7:
            return join([si, sub_t, _comma(), main_t]), "si+" + main_tense
        return join([main_t, si, sub_t]), "si+" + main_tense

    def _relative(self, rng):
        roll = rng.random()
        if roll < 0.55:
            # "Le voisin qui habite en face est malade." / "Je connais une dame qui ..."
            person = person_subject(rng, "p" if rng.random() < 0.15 else "s", "3s_np")
            rel_subj = Subject(3, person.n, person.g, None, "3s")
            if rng.random() < 0.35:
                place = rng.choice(_WHERE_LIVE)
                rel_vp = VP(V("habiter"), _q(place, Tag.ADV))
                rel_tense = "p"
            else:
                rel_tense = rng.choice(("p", "p", "pc", "i"))
                rel_vp = self._vp(rng, rel_subj)
            qui = Pro("qui")
            qui.role = Tag.PRON
            rel = SP(qui, rel_vp.t(rel_tense))
            if person.np is None:
                return None
            person.np.add(rel)
            tense = rng.choice(("p", "p", "pc", "f"))
            if rng.random() < 0.5:
                adj = rng.choice(voc.ADJ_PERSON)
                clause = S(person.np, VP(V("être"), A(adj))).t(tense)
            else:
                clause = S(person.np, VP(verb(rng.choice(("venir", "partir", "arriver")), False)))
                clause.t(tense)
            return join([_clause_tokens(clause) or []]), "qui"
        if roll < 0.75:
            # "Je connais quelqu'un qui ...": the relative on an object.
            subj = subject(rng)
            noun = rng.choice(category("FAMILY") + category("ROLES"))
            obj_np = noun_phrase(rng, noun, rng.choice(("indef", "def")))
            rel_subj = Subject(3, "s", noun.g, None, "3s")
            qui = Pro("qui")
            qui.role = Tag.PRON
            obj_np.add(SP(qui, self._vp(rng, rel_subj).t(rng.choice(("p", "i", "pc")))))
            lemma = rng.choice(("connaître", "voir", "appeler", "chercher", "attendre", "aimer"))
            clause = S(subj.spec(), VP(V(lemma), obj_np)).t(rng.choice(("p", "pc")))
            return join([_clause_tokens(clause) or []]), "qui"
        # "Le gâteau que tu fais est délicieux": object relative, simple tenses only
        # (pyrealb does not agree a participle with "que").
        frame = rng.choice(self._obj_frames)
        noun = rng.choice(field_nouns(frame.slot))
        number = "p" if noun.plural_only or rng.random() < 0.2 else "s"
        np = noun_phrase(rng, noun, rng.choice(("def", "def", "dem")), number)
        rel_subj = subject(rng)
        que = Pro("que")
        que.role = Tag.PRON
        np.add(SP(que, S(rel_subj.spec(), VP(V(frame.verb))).t(rng.choice(("p", "i", "f")))))
        adj = rng.choice(voc.ADJ_THING)
        clause = S(np, VP(V("être"), A(adj))).t(rng.choice(("p", "p", "i")))
        return join([_clause_tokens(clause) or []]), "que_rel"

    # --- questions -----------------------------------------------------------------

    def _question_subject(self, rng) -> Subject:
        roll = rng.random()
        if roll < 0.4:
            return Subject(2, "s", rng.choice("mf"), None, "2s")
        if roll < 0.65:
            return Subject(2, "p", rng.choice("mf"), None, "2p")
        if roll < 0.75:
            return Subject(3, "s", "m", None, "on")
        return subject(rng)

    def _yes_no(self, rng):
        subj = self._question_subject(rng)
        tense = rng.choice(("p", "p", "p", "pc", "fp", "f", "modal"))
        modal = (rng.choice(("pouvoir", "vouloir", "devoir")), "p")
        neg = True if rng.random() < 0.08 else None
        clause = self._clause(rng, subj, tense, neg, modal)
        front, end = self._time(rng, tense, subj, p=0.4)
        roll = rng.random()
        if roll < 0.25 and subj.np is None and subj.kind not in ("1s", "on") and not neg:
            clause.typ({"int": "yon"})
            return join([_clause_tokens(clause, end=end) or []], "?"), "yon-inv"
        tokens = _clause_tokens(clause, end=end)
        if tokens is None:
            return None
        if roll < 0.6:
            return join([parse_tagged("est-ce/QW que/QW"), tokens], "?"), "yon-estce"
        return join([tokens], "?"), "yon-into"

    def _offer(self, rng):
        """ "Tu veux du café ?", "Vous voulez un morceau de gâteau ?", "Voulez-vous du thé ?"."""
        subj = self._question_subject(rng)
        if subj.np is not None or subj.pe == 1:
            subj = Subject(2, "s", "m", None, "2s")
        slot = rng.choice(("DRINK", "DRINK", "FOOD_MASS", "FOOD_COUNT"))
        noun = rng.choice(field_nouns(slot))
        if slot == "FOOD_COUNT":
            obj = noun_phrase(rng, noun, "indef")
        else:
            part = P("de")
            part.role = Tag.PART
            obj = NP(part, D("le"), noun.n())
        more = [_q("encore", Tag.ADV)] if rng.random() < 0.25 else []
        lemma, tense = rng.choice((("vouloir", "p"), ("vouloir", "p"), ("vouloir", "c")))
        clause = S(subj.spec(), VP(V(lemma).t(tense), *more, obj))
        inverted = rng.random() < 0.25
        if inverted:
            clause.typ({"int": "yon"})
        tokens = _clause_tokens(clause)
        if tokens is None:
            return None
        if not inverted and rng.random() < 0.2:
            return join([parse_tagged("est-ce/QW que/QW"), tokens], "?"), "offer"
        return join([tokens], "?"), "offer"

    def _where(self, rng):
        roll = rng.random()
        if roll < 0.45:
            # "Où sont mes lunettes ?", "Où est le médecin ?"
            if rng.random() < 0.7:
                noun = rng.choice(category("OBJECTS") + category("CLOTHES"))
                number = "p" if noun.plural_only or rng.random() < 0.15 else "s"
                np = noun_phrase(rng, noun, rng.choice(("poss", "poss", "def")), number)
            else:
                person = person_subject(rng, "s", "3s_np")
                np, number = person.np, person.n
            np_t = _phrase_tokens(np)
            be = _tok("sont" if number == "p" else "est", Tag.COP, "être", vform="fin")
            return join([[_tok("où", Tag.QW)], [be], np_t], "?"), "wh-ou"
        subj = self._question_subject(rng)
        tense = rng.choice(("p", "pc", "fp"))
        if roll < 0.75:
            # "Où est-ce que tu vas ?", "Où est-ce que vous avez mis mes clés ?"
            if rng.random() < 0.5:
                vp = VP(verb(rng.choice(("aller", "habiter", "travailler", "partir")), False))
            else:
                noun = rng.choice(category("OBJECTS"))
                number = "p" if noun.plural_only else "s"
                vp = VP(
                    V(rng.choice(("mettre", "ranger", "trouver", "acheter", "laisser"))),
                    noun_phrase(rng, noun, "poss", number),
                )
                tense = "pc"
            if tense == "fp":
                clause = S(subj.spec(), VP(V("aller"), vp.t("b"))).t("p")
            else:
                clause = S(subj.spec(), vp).t(tense)
            tokens = _clause_tokens(clause)
            if tokens is None:
                return None
            return join([parse_tagged("où/QW est-ce/QW que/QW"), tokens], "?"), "wh-ou"
        # Colloquial "Tu vas où ?".
        vp = VP(verb(rng.choice(("aller", "habiter", "partir")), False))
        clause = S(subj.spec(), vp).t(tense if tense != "fp" else "p")
        tokens = _clause_tokens(clause)
        if tokens is None:
            return None
        return join([tokens, [_tok("où", Tag.QW)]], "?"), "wh-ou"

    def _wh_clause(self, rng):
        """Quand / pourquoi / comment / qu'est-ce que / à quelle heure + clause."""
        subj = self._question_subject(rng)
        kind = rng.choice(("quand", "quand", "pourquoi", "quoi", "quoi", "heure", "comment"))
        tense = rng.choice(("p", "p", "fp", "pc", "f"))
        if kind == "quoi":
            frame = rng.choice(self._obj_frames)
            vp = VP(V(rng.choice((frame.verb, "faire", "faire", "vouloir"))))
            if tense == "fp":
                clause = S(subj.spec(), VP(V("aller"), vp.t("b"))).t("p")
            else:
                clause = S(subj.spec(), vp).t(tense)
            head = "qu'est-ce/QW que/QW"
        elif kind == "comment":
            # "Comment va ta mère ?", "Comment ça va ?", "Comment tu t'appelles ?"
            roll = rng.random()
            if roll < 0.5:
                person = person_subject(rng, "s", "3s_np")
                go = _tok("va", Tag.VERB, "aller", vform="fin")
                return join([[_tok("comment", Tag.QW)], [go], _phrase_tokens(person.np)], "?"), kind
            if roll < 0.7:
                clause = S(subj.spec(), VP(V("appeler"))).typ({"refl": True})
                tokens = _clause_tokens(clause)
                return (
                    None if tokens is None else join([tokens, [_tok("comment", Tag.QW)]], "?")
                ), kind
            clause = self._clause(rng, subj, "pc" if tense == "f" else tense)
            head = "comment/QW est-ce/QW que/QW"
        else:
            neg = True if kind == "pourquoi" and rng.random() < 0.3 else None
            clause = self._clause(rng, subj, tense, neg)
            head = {
                "quand": "quand/QW est-ce/QW que/QW",
                "pourquoi": rng.choice(("pourquoi/QW est-ce/QW que/QW", "pourquoi/QW")),
                "heure": "à/P quelle/QW heure/N est-ce/QW que/QW",
            }[kind]
        tokens = _clause_tokens(clause)
        if tokens is None:
            return None
        if kind in ("quand", "heure") and rng.random() < 0.3:
            # Colloquial order: "On mange à quelle heure ?", "Tu pars quand ?"
            tail = [w for w in parse_tagged(head) if w.form not in ("est-ce", "que")]
            return join([tokens, tail], "?"), "wh-" + kind
        return join([parse_tagged(head), tokens], "?"), "wh-" + kind

    def _who(self, rng):
        """ "Qui a appelé ?", "Qui est venu ?", "Qui veut du café ?"."""
        tense = rng.choice(("pc", "pc", "p", "fp", "f"))
        qui = _q("qui", Tag.QW)
        roll = rng.random()
        if roll < 0.4:
            lemma = rng.choice(("appeler", "téléphoner", "sonner", "venir", "passer", "gagner"))
            vp = VP(verb(lemma, False))
        else:
            vp = self._vp(rng, Subject(3, "s", "m", None, "3s"), tense == "fp")
        if tense == "fp":
            clause = S(qui, VP(V("aller"), vp)).t("p")
        else:
            clause = S(qui, vp).t(tense)
        tokens = _clause_tokens(clause)
        return (None if tokens is None else join([tokens], "?")), "wh-qui"

    def _how_much(self, rng):
        """ "Combien ça coûte ?", "Ça coûte combien ?", "Combien coûtent les tomates ?"."""
        roll = rng.random()
        howmuch = _tok("combien", Tag.QW)
        ca = _tok("ça", Tag.DEM, "ça")
        if roll < 0.35:
            cost = _tok("coûte", Tag.VERB, "coûter", vform="fin")
            if rng.random() < 0.5:
                return join([[howmuch, ca, cost]], "?"), "wh-combien"
            return join([[ca, cost, howmuch]], "?"), "wh-combien"
        if roll < 0.7:
            noun = rng.choice(category("FOOD_COUNT") + category("OBJECTS") + category("CLOTHES"))
            number = "p" if noun.plural_only or rng.random() < 0.4 else "s"
            np = noun_phrase(rng, noun, rng.choice(("def", "dem")), number)
            form = "coûtent" if number == "p" else "coûte"
            cost = _tok(form, Tag.VERB, "coûter", vform="fin")
            return join([[howmuch, cost], _phrase_tokens(np)], "?"), "wh-combien"
        # "Combien de temps est-ce que ça dure ?", "Tu as combien de petits-enfants ?"
        subj = self._question_subject(rng)
        noun = rng.choice(category("FAMILY") + category("ANIMALS"))
        part = P("de")
        part.role = Tag.PREP
        tokens = _clause_tokens(
            S(subj.spec(), VP(V("avoir"), _q("combien", Tag.QW), PP(part, NP(noun.n()).n("p"))))
        )
        return (None if tokens is None else join([tokens], "?")), "wh-combien"

    # --- negation --------------------------------------------------------------------

    def _negation(self, rng):
        subj = subject(rng)
        kind = rng.choices([k for k, _ in _NEG_KINDS], [w for _, w in _NEG_KINDS])[0]
        tense = rng.choice(("p", "p", "p", "pc", "pc", "i", "f", "fp", "modal"))
        if kind == "rien":
            vp = VP(V(rng.choice(_RIEN_VERBS)))
            clause = self._wrap(subj, vp, tense, rng).typ({"neg": "rien"})
        elif kind == "personne":
            vp = VP(V(rng.choice(_PERSONNE_VERBS)), _q("personne", Tag.NEG))
            if rng.random() < 0.25:
                # "Personne n'est venu.", "Personne ne m'appelle."
                lemma = rng.choice(("venir", "appeler", "téléphoner", "passer", "répondre"))
                vp = VP(verb(lemma, False))
                subj = Subject(3, "s", "m", NP(_q("personne", Tag.NEG)), "personne")
                tense = rng.choice(("p", "pc", "pc"))
            clause = self._wrap(subj, vp, tense, rng).typ({"neg": ""})
        else:
            neg = True if kind == "pas" else kind
            clause = self._clause(rng, subj, tense, neg)
        front, end = self._time(rng, tense, subj, True, 0.4)
        tokens = _clause_tokens(clause, front=front, end=end)
        return (None if tokens is None else join([tokens])), "neg-" + kind

    def _wrap(self, subj: Subject, vp: VP, tense: str, rng) -> S:
        if tense == "modal":
            lemma, mtense = rng.choice([(v, t) for v, t, _ in _MODALS])
            return S(subj.spec(), VP(V(lemma).t(mtense), vp.t("b")))
        if tense == "fp":
            return S(subj.spec(), VP(V("aller"), vp.t("b"))).t("p")
        return S(subj.spec(), vp).t(tense)

    # --- object pronouns ---------------------------------------------------------------

    def _clitic_compound(self, rng):
        """ "Je l'ai vu hier.", "Ils nous ont invités.", "Je lui ai téléphoné.": pyrealb clitics."""
        subj = subject(rng)
        tense = rng.choice(("pc", "pc", "p", "i", "f"))
        roll = rng.random()
        human = False
        if roll < 0.4:
            person = person_object(rng)
            human = True
            if rng.random() < 0.5:
                pe, n, g = _other_person(rng, subj)
                obj = Pro("moi").pe(pe).n(n).g(g).c("acc")
                human = pe == 3
            else:
                obj = person.pro()
            vp = VP(V(rng.choice(_ACC_PERSON)), obj)
        elif roll < 0.65:
            frame = rng.choice(self._obj_frames)
            noun = rng.choice(field_nouns(frame.slot))
            number = "p" if noun.plural_only or rng.random() < 0.3 else "s"
            vp = VP(V(frame.verb), noun_phrase(rng, noun, "def", number).pro())
        else:
            pe, n, g = _other_person(rng, subj)
            lemma = rng.choice(_DATIVE_ONLY)
            vp = VP(V(lemma), Pro("moi").pe(pe).n(n).g(g).c("dat"))
        neg = rng.random() < 0.2
        clause = S(subj.spec(), vp).t(tense)
        if neg:
            clause.typ({"neg": True})
        front, end = self._time(rng, tense, subj, neg, 0.5)
        tokens = _clause_tokens(clause, front=front, end=end)
        if tokens is None:
            return None
        if human:
            tokens = [
                t.with_form(t.form, human="1")
                if t.tag == Tag.CLO and t.form.lower() in ("l'", "le", "la", "les")
                else t
                for t in tokens
            ]
        return join([tokens]), "clo-" + tense

    def _clitic_infinitive(self, rng):
        """ "Tu peux me donner le sel ?", "Je vais l'appeler demain.", "Je dois lui parler."."""
        question = rng.random() < 0.35
        subj = self._question_subject(rng) if question else subject(rng)
        pe, n, g = _other_person(rng, subj)
        roll = rng.random()
        if roll < 0.4:
            lemma, field = rng.choice(_DATIVE)
            noun = rng.choice(field_nouns(field))
            obj = noun_phrase(rng, noun, rng.choice(("def", "indef", "poss")))
            vp = VP(V(lemma), obj)
            clitic = _clitic(pe, n, g, "dat")
        elif roll < 0.6:
            vp = VP(V(rng.choice(_DATIVE_ONLY)))
            clitic = _clitic(pe, n, g, "dat")
        elif roll < 0.85:
            vp = VP(V(rng.choice(_ACC_PERSON)))
            clitic = _clitic(pe, n, g, "acc")
            if pe == 3:
                clitic.feats["human"] = "1"
        else:
            vp = VP(V(rng.choice(_ACC_THING)))
            clitic = _clitic(3, rng.choice("sssp"), rng.choice("mf"), "acc")
        head = rng.choice(
            (
                ("pouvoir", "p"),
                ("pouvoir", "p"),
                ("pouvoir", "c"),
                ("vouloir", "p"),
                ("devoir", "p"),
                ("aller", "p"),
                ("aller", "p"),
                ("venir", "p"),
            )
        )
        if question and head[0] in ("devoir", "venir"):
            head = ("pouvoir", "p")
        clause = S(subj.spec(), VP(V(head[0]).t(head[1]), vp.t("b")))
        neg = not question and rng.random() < 0.15
        if neg:
            clause.typ({"neg": True})
        tense = "fp" if head[0] == "aller" else "p"
        front, end = self._time(rng, tense, subj, neg, 0.4)
        tokens = _clause_tokens(clause, front=[] if question else front, end=end)
        if tokens is None:
            return None
        tokens = insert_clitic(tokens, clitic, before_infinitive=True)
        if question:
            if rng.random() < 0.3:
                return join([parse_tagged("est-ce/QW que/QW"), tokens], "?"), "clo-inf"
            return join([tokens], "?"), "clo-inf"
        return join([tokens]), "clo-inf"

    def _en_y(self, rng):
        """ "J'en veux encore.", "Je vais y aller demain.", "J'y suis allée hier."."""
        subj = subject(rng)
        roll = rng.random()
        neg = None
        if roll < 0.5:
            lemma, how = rng.choice(_EN_VERBS)
            clitic = _tok("en", Tag.CLO, "en")
            rest = []
            extra = rng.random()
            if extra < 0.35:
                rest = [_q("encore", Tag.ADV)]
            elif extra < 0.6:
                rest = [NO(rng.choice((2, 2, 3, 4, 6))).nat(True)]
            elif extra < 0.75:
                rest = [_q("un peu", Tag.ADV)]
            else:
                neg = rng.choice((True, "plus"))
            if lemma == "avoir" and not neg:
                rest = [NO(rng.choice((2, 3, 4))).nat(True)]
            if how == "inf":
                head = rng.choice((("vouloir", "p"), ("aller", "p"), ("pouvoir", "p")))
                vp = VP(V(head[0]).t(head[1]), VP(V(lemma), *rest).t("b"))
                clause = S(subj.spec(), vp)
                tense = "fp" if head[0] == "aller" else "p"
                infinitive = True
            else:
                tense = how or rng.choice(("p", "p", "pc"))
                clause = S(subj.spec(), VP(V(lemma), *rest)).t(tense)
                infinitive = False
        else:
            lemma = rng.choice(_Y_VERBS)
            clitic = _tok("y", Tag.CLO, "y")
            tense = rng.choice(("p", "pc", "fp", "fp", "f", "modal"))
            if lemma == "aller" and tense == "f":
                tense = "fp"  # "j'y irai" is fine but pyrealb writes "j'irai y"
            vp = VP(verb(lemma, False))
            infinitive = tense in ("fp", "modal")
            if tense == "modal":
                clause = S(
                    subj.spec(), VP(V(rng.choice(("vouloir", "devoir", "pouvoir"))), vp.t("b"))
                )
            elif tense == "fp":
                clause = S(subj.spec(), VP(V("aller"), vp.t("b")))
            else:
                clause = S(subj.spec(), vp).t(tense)
            if rng.random() < 0.15:
                neg = True
        if neg:
            clause.typ({"neg": neg})
        front, end = self._time(rng, tense if tense != "modal" else "p", subj, bool(neg), 0.4)
        tokens = _clause_tokens(clause, front=front, end=end)
        if tokens is None:
            return None
        tokens = insert_clitic(tokens, clitic, before_infinitive=infinitive)
        return join([tokens]), "clo-" + clitic.form

    # --- modals ------------------------------------------------------------------------

    def _modal(self, rng):
        subj = subject(rng)
        lemma, mtense, _ = rng.choices(_MODALS, [w for _, _, w in _MODALS])[0]
        neg = rng.choice((True, "plus")) if rng.random() < 0.2 else None
        clause = self._clause(rng, subj, "modal", neg, (lemma, mtense))
        question = subj.pe == 2 and rng.random() < 0.3
        front, end = self._time(rng, "p", subj, bool(neg), 0.35)
        tokens = _clause_tokens(clause, front=[] if question else front, end=end)
        return (None if tokens is None else join([tokens], "?" if question else ".")), lemma

    def _near_future(self, rng):
        subj = subject(rng)
        neg = True if rng.random() < 0.15 else None
        clause = self._clause(rng, subj, "fp", neg)
        front, end = self._time(rng, "f", subj, bool(neg), 0.6)
        tokens = _clause_tokens(clause, front=front, end=end)
        return (None if tokens is None else join([tokens])), "fp"

    def _just_did(self, rng):
        """ "Je viens de manger.", "Ma fille vient d'appeler.", "On venait de partir."."""
        subj = subject(rng)
        de = P("de")
        if rng.random() < 0.35:
            lemma = rng.choice(("appeler", "arriver", "partir", "rentrer", "manger", "sortir"))
            inner = VP(verb(lemma, False)).t("b")
        else:
            inner = self._vp(rng, subj, True)
        clause = S(subj.spec(), VP(V("venir"), PP(de, inner))).t(rng.choice(("p", "p", "p", "i")))
        tokens = _clause_tokens(clause)
        return (None if tokens is None else join([tokens])), "venir_de"

    def _must(self, rng):
        """ "Il faut partir.", "Il ne faut pas oublier les clés.", "Il faudra appeler"."""
        inner = self._vp(rng, _SPEAKER, True)
        clause = S(Pro("je").pe(3), VP(V("falloir"), inner)).t(rng.choice(("p", "p", "f", "i")))
        if rng.random() < 0.25:
            clause.typ({"neg": True})
        tokens = _clause_tokens(clause)
        return (None if tokens is None else join([tokens])), "falloir"

    # --- everyday dialogue ---------------------------------------------------------------

    def _address(self, rng) -> list[Token]:
        roll = rng.random()
        if roll < 0.3:
            name, _ = rng.choice(register_names())
            return [_tok(name, Tag.NOUN, name)]
        if roll < 0.6:
            return [_tok(rng.choice(("docteur", "madame", "monsieur", "maman", "papa")), Tag.NOUN)]
        return []

    def _greeting(self, rng):
        hello = rng.choice(("bonjour", "bonjour", "bonsoir", "salut"))
        address = self._address(rng)
        roll = rng.random()
        if roll < 0.35:
            how = rng.choice(
                (
                    "comment/QW ça/DEM va/VERB ?/PUNCT",
                    "comment/QW allez/VERB vous/CLS_INV ?/PUNCT",
                    "ça/DEM va/VERB ?/PUNCT",
                    "tu/CLS vas/VERB bien/ADV ?/PUNCT",
                    "vous/CLS allez/VERB bien/ADV ?/PUNCT",
                )
            )
            tokens = [_tok(hello, Tag.INTJ), *address, *_comma(), *parse_tagged(how)]
            for t in tokens:
                if t.tag == Tag.VERB:
                    t.lemma = "aller"
                    t.feats["vform"] = "fin"
                    t.hyphen = t.form == "allez" and "comment" in how
            return join([tokens[:-1]], "?"), "greeting"
        if roll < 0.6:
            adj = rng.choice(("content", "heureux", "ravi"))
            subj = Subject(1, "s", rng.choice("mf"), None, "1s")
            # te/vous only: "de le voir" would be contracted to "du voir" by `render`.
            pe, n, g = 2, rng.choice("sp"), rng.choice("mf")
            see = VP(V("voir")).t("b")
            clause = S(subj.spec(), VP(V("être"), A(adj), PP(P("de"), see)))
            tokens = _clause_tokens(clause)
            if tokens is None:
                return None
            clitic = _clitic(pe, n, g, "acc")
            clitic.feats["human"] = "1"
            tokens = insert_clitic(tokens, clitic, before_infinitive=True)
            return join([[_tok(hello, Tag.INTJ), *address], _comma(), tokens]), "greeting"
        bye = rng.choice(
            (
                "au/PREP_DET revoir/N ,/PUNCT à/P demain/Adv",
                "à/P la/D semaine/N prochaine/A",
                "à/P lundi/N prochain/A",
                "à/P tout/Adv à/P l'/D heure/N",
                "bonne/A journée/N à/P vous/PRON",
                "bonne/A soirée/N et/CONJ à/P demain/Adv",
                "passez/VERB une/D bonne/A journée/N",
                "au/PREP_DET revoir/N et/CONJ merci/INTJ beaucoup/Adv",
            )
        )
        tokens = parse_tagged(bye)
        for t in tokens:
            if t.tag == Tag.VERB:
                t.lemma, t.feats["vform"] = "passer", "fin"
        return join([tokens, _comma(), address] if address else [tokens]), "goodbye"

    def _thanks(self, rng):
        merci = [_tok("merci", Tag.INTJ)]
        if rng.random() < 0.5:
            merci.append(_tok(rng.choice(("beaucoup", "bien")), Tag.ADV))
        roll = rng.random()
        if roll < 0.55:
            things = ("fleur", "cadeau", "repas", "visite", "aide", "carte", "gâteau", "lettre")
            things += ("chocolat", "livre", "photo", "message", "invitation", "café", "conseil")
            noun = rng.choice(things)
            style = rng.choice(("def", "def", "poss"))
            number = "p" if noun in ("fleur", "chocolat", "photo", "conseil") else "s"
            owner = rng.choice((2, 2))
            np = noun_phrase(
                rng, _noun(noun), style, number, owner_pe=owner, owner_n=rng.choice("sp")
            )
            tokens = [*merci, _tok("pour", Tag.PREP), *_phrase_tokens(np)]
            return join([tokens]), "thanks"
        if roll < 0.8:
            # "Merci d'être venue.", "Merci de m'avoir appelé."
            g, n = rng.choice("mf"), rng.choice("ssp")
            if rng.random() < 0.5:
                part = V("venir").t("pp").g(g).n(n).realize().strip()
                tokens = [
                    *merci,
                    _tok("de", Tag.PREP),
                    _tok("être", Tag.AUX, "être", vform="inf"),
                    _tok(part, Tag.VERB, "venir", vform="pp", g=g, n=n),
                ]
            else:
                lemma = rng.choice(("appeler", "aider", "attendre", "écouter", "prévenir"))
                part = V(lemma).t("pp").realize().strip()
                tokens = [
                    *merci,
                    _tok("de", Tag.PREP),
                    _tok("me", Tag.CLO, "me"),
                    _tok("avoir", Tag.AUX, "avoir", vform="inf"),
                    _tok(part, Tag.VERB, lemma, vform="pp"),
                ]
            return join([tokens]), "thanks"
        for_all = [_tok("pour", Tag.PREP), _tok("tout", Tag.PRON)]
        subj = Subject(1, "s", "m", None, "1s")
        pe = rng.choice((2, 2, 3))
        n = rng.choice("sp") if pe == 2 else "s"
        clitic = Pro("moi").pe(pe).n(n).g(rng.choice("mf")).c("acc")
        tokens = _clause_tokens(S(subj.spec(), VP(V("remercier"), clitic)))
        if tokens is None:
            return None
        return join([tokens, for_all] if rng.random() < 0.5 else [tokens]), "thanks"

    def _phone(self, rng):
        roll = rng.random()
        if roll < 0.3:
            # "Je voudrais parler à ma fille.", "Est-ce que je peux parler au médecin ?"
            person = person_object(rng)
            talk = VP(V("parler"), PP(P("à"), person)).t("b")
            if rng.random() < 0.5:
                tokens = _clause_tokens(S(Pro("je").pe(1), VP(V("vouloir").t("c"), talk)))
                return (None if tokens is None else join([tokens])), "phone"
            tokens = _clause_tokens(S(Pro("je").pe(1), VP(V("pouvoir"), talk)))
            if tokens is None:
                return None
            return join([parse_tagged("est-ce/QW que/QW"), tokens], "?"), "phone"
        if roll < 0.55:
            # "Je te rappelle demain.", "Tu peux me rappeler ce soir ?"
            subj = subject(rng)
            pe, n, g = _other_person(rng, subj)
            lemma = rng.choice(("rappeler", "appeler", "rappeler"))
            tense = rng.choice(("p", "fp", "f", "pc"))
            vp = VP(V(lemma), Pro("moi").pe(pe).n(n).g(g).c("acc"))
            clause = S(subj.spec(), vp).t(tense if tense != "fp" else "p")
            if tense == "fp":
                clause = S(subj.spec(), VP(V("aller"), VP(V(lemma)).t("b")))
                tokens = _clause_tokens(clause, end=self._time(rng, "f", subj, p=1.0)[1])
                if tokens is None:
                    return None
                clitic = _clitic(pe, n, g, "acc")
                clitic.feats["human"] = "1"
                tokens = insert_clitic(tokens, clitic, before_infinitive=True)
            else:
                tokens = _clause_tokens(clause, end=self._time(rng, tense, subj, p=0.8)[1])
                if tokens is None:
                    return None
            return join([tokens]), "phone"
        lines = (
            "allô/INTJ ,/PUNCT c'/DEM est/COP qui/QW ?/PUNCT",
            "qui/QW est/COP à/P l'/D appareil/N ?/PUNCT",
            "c'/DEM est/COP de/P la/D part/N de/P qui/QW ?/PUNCT",
            "le/D téléphone/N sonne/VERB ./PUNCT",
            "je/CLS n'/NEG_NE entends/VERB rien/NEG ./PUNCT",
            "la/D ligne/N est/COP occupée/A ./PUNCT",
            "je/CLS n'/NEG_NE ai/VERB plus/NEG de/PART batterie/N ./PUNCT",
            "tu/CLS m'/CLO entends/VERB ?/PUNCT",
            "vous/CLS m'/CLO entendez/VERB bien/ADV ?/PUNCT",
            "je/CLS vous/CLO appelle/VERB pour/P prendre/VERB rendez-vous/N ./PUNCT",
            "je/CLS vous/CLO passe/VERB ma/D fille/N ./PUNCT",
            "il/CLS y/CLO a/VERB un/D message/N pour/P vous/PRON ./PUNCT",
        )
        if roll < 0.75:
            tokens = _hand(rng.choice(lines))
            return join([tokens[:-1]], tokens[-1].form), "phone"
        # "Allô, c'est Marie ?", "Allô, c'est ta fille."
        person = person_subject(rng, "s", "3s_np")
        tokens = [
            _tok("allô", Tag.INTJ),
            *_comma(),
            _tok("c'", Tag.DEM, "ce"),
            _tok("est", Tag.COP, "être", vform="fin"),
            *_phrase_tokens(person.np),
        ]
        return join([tokens], rng.choice(("?", "."))), "phone"

    def _appointment(self, rng):
        subj = subject(rng) if rng.random() < 0.35 else _SPEAKER
        roll = rng.random()
        role = rng.choice(category("ROLES")[:14] + category("ROLES"))
        tense = rng.choice(("p", "p", "f", "pc"))
        if roll < 0.35:
            who = PP(P("avec"), noun_phrase(rng, role, "def"))
            if rng.random() < 0.4:
                who = PP(P("chez"), noun_phrase(rng, rng.choice(field_nouns("CHEZ")), "def"))
            vp = VP(V("avoir"), NP(N("rendez-vous")), who)
            end = _phrase_tokens(_clock(rng)) if rng.random() < 0.5 else []
            if not end:
                end = self._time(rng, "f" if tense == "pc" else tense, subj, p=1.0)[1]
            tokens = _clause_tokens(S(subj.spec(), vp).t("p" if tense == "pc" else tense), end=end)
            return (None if tokens is None else join([tokens])), "appointment"
        if roll < 0.6:
            # "Mon rendez-vous est à dix heures.", "Le rendez-vous chez le dentiste est annulé."
            np = NP(D("mon").pe(1) if rng.random() < 0.6 else D("le"), N("rendez-vous"))
            if rng.random() < 0.5:
                np.add(PP(P("chez"), noun_phrase(rng, rng.choice(field_nouns("CHEZ")), "def")))
                vp = VP(V("être"), A(rng.choice(("annulé", "reporté", "confirmé", "avancé"))))
                tokens = _clause_tokens(S(np, vp).t(rng.choice(("p", "p", "pc"))))
            else:
                tokens = _clause_tokens(S(np, VP(V("être"), _clock(rng))).t("p"))
            return (None if tokens is None else join([tokens])), "appointment"
        if roll < 0.8:
            # "Je voudrais prendre rendez-vous avec le dentiste."
            take = VP(
                V("prendre"), NP(N("rendez-vous")), PP(P("avec"), noun_phrase(rng, role, "def"))
            ).t("b")
            head = rng.choice((("vouloir", "c"), ("devoir", "p"), ("falloir", "p")))
            who = Pro("je").pe(3) if head[0] == "falloir" else subj.spec()
            tokens = _clause_tokens(S(who, VP(V(head[0]).t(head[1]), take)))
            return (None if tokens is None else join([tokens])), "appointment"
        # "Le médecin passe à onze heures.", "L'infirmière vient demain matin."
        np = noun_phrase(rng, role, "def")
        lemma = rng.choice(("passer", "venir", "arriver"))
        end = _phrase_tokens(_clock(rng))
        tense = rng.choice(("p", "f"))
        tokens = _clause_tokens(S(np, VP(verb(lemma, False))).t(tense), end=end)
        return (None if tokens is None else join([tokens])), "appointment"

    def _health(self, rng):
        subj = _SPEAKER if rng.random() < 0.6 else subject(rng)
        roll = rng.random()
        since = self._since(rng)
        if roll < 0.4:
            body = rng.choice(category("BODY"))
            vp = VP(V("avoir"), NP(N("mal")), PP(P("à"), noun_phrase(rng, body, "def")))
            tokens = _clause_tokens(S(subj.spec(), vp).t("p"), end=since)
            return (None if tokens is None else join([tokens])), "health"
        if roll < 0.6:
            lemma = rng.choice(("dormir", "manger", "marcher", "respirer", "entendre", "voir"))
            adv = rng.choice(("mal", "mal", "bien", "beaucoup", "peu"))
            vp = VP(V(lemma), _q(adv, Tag.ADV))
            neg = rng.random() < 0.25
            clause = S(subj.spec(), vp).t("p")
            if neg:
                clause = S(subj.spec(), VP(V(lemma), _q("bien", Tag.ADV))).t("p").typ({"neg": True})
            tokens = _clause_tokens(clause, end=since)
            return (None if tokens is None else join([tokens])), "health"
        if roll < 0.8:
            # "Je me sens mieux aujourd'hui.", "Elle se sent fatiguée."
            how = rng.random()
            if how < 0.5:
                vp = VP(V("sentir"), _q(rng.choice(("mieux", "bien", "mal")), Tag.ADV))
            else:
                adj = A(rng.choice(("fatigué", "faible", "seul", "perdu", "malade")))
                vp = VP(V("sentir"), adj.g(subj.g).n(subj.n))
            clause = S(subj.spec(), vp).typ({"refl": True}).t("p")
            end = self._time(rng, "p", subj, p=0.5)[1]
            tokens = _clause_tokens(clause, end=end)
            return (None if tokens is None else join([tokens])), "health"
        # "J'ai de la fièvre depuis hier.", "Il a de la tension."
        noun = rng.choice(("fièvre", "tension", "toux", "diarrhée"))
        part = P("de")
        part.role = Tag.PART
        vp = VP(V("avoir"), NP(part, D("le"), N(noun)))
        tokens = _clause_tokens(S(subj.spec(), vp).t("p"), end=since)
        return (None if tokens is None else join([tokens])), "health"

    def _since(self, rng) -> list[Token]:
        if rng.random() < 0.4:
            return []
        roll = rng.random()
        if roll < 0.5:
            when = rng.choice(
                (
                    "hier/Adv",
                    "ce/D matin/N",
                    "hier/Adv soir/N",
                    "lundi/N",
                    "la/D semaine/N dernière/A",
                    "cette/D nuit/N",
                )
            )
            return [_tok("depuis", Tag.PREP), *parse_tagged(when)]
        count = rng.choice(range(2, 11))
        unit = rng.choice(("jours", "jours", "semaines", "mois", "heures"))
        words = str(NO(count).nat(True).realize()).strip()
        return [
            _tok("depuis", Tag.PREP),
            Token(words, Tag.NUM, words),
            _tok(unit, Tag.NOUN, unit.rstrip("s")),
        ]

    def _meal(self, rng):
        roll = rng.random()
        if roll < 0.3:
            meal = rng.choice(category("MEALS"))
            np = noun_phrase(rng, meal, "def")
            adj = rng.choice(("prêt", "servi", "délicieux", "froid", "bon", "chaud"))
            deg = (
                [_q(rng.choice(("très", "trop", "vraiment")), Tag.ADV)]
                if rng.random() < 0.3
                else []
            )
            tokens = _clause_tokens(S(np, VP(V("être"), *deg, A(adj))).t(rng.choice("ppi")))
            return (None if tokens is None else join([tokens])), "meal"
        if roll < 0.55:
            subj = subject(rng)
            neg = rng.choice(("plus", True, None, None))
            state = rng.choice(("faim", "soif"))
            clause = S(subj.spec(), VP(V("avoir"), NP(N(state))))
            if neg:
                clause.typ({"neg": neg})
            tokens = _clause_tokens(clause)
            return (None if tokens is None else join([tokens])), "meal"
        if roll < 0.75:
            # "Est-ce qu'il reste du pain ?", "Il n'y a plus de lait."
            noun = rng.choice(field_nouns(rng.choice(("FOOD_MASS", "DRINK"))))
            part = P("de")
            part.role = Tag.PART
            if rng.random() < 0.5:
                clause = S(Pro("je").pe(3), VP(V("rester"), NP(part, D("le"), noun.n())))
                tokens = _clause_tokens(clause)
                if tokens is None:
                    return None
                return join([parse_tagged("est-ce/QW que/QW"), tokens], "?"), "meal"
            tokens = [
                _tok("il", Tag.CLS, "il"),
                _tok("n'", Tag.NEG_NE, "ne"),
                _tok("y", Tag.CLO, "y"),
                _tok("a", Tag.VERB, "avoir", vform="fin"),
                _tok("plus", Tag.NEG),
                _tok("de", Tag.PART, "de"),
                *_phrase_tokens(NP(noun.n())),
            ]
            return join([tokens]), "meal"
        subj = subject(rng)
        frame = rng.choice(self._food_frames)
        tense = rng.choice(("p", "pc", "fp"))
        vp = verb_phrase(rng, frame, subj, _Choice(tense="fp" if tense == "fp" else "p"))
        clause = self._wrap(subj, vp, tense, rng)
        end = parse_tagged(rng.choice(("à/P midi/N", "ce/D soir/N", "ensemble/Adv")))
        tokens = _clause_tokens(clause, end=end if rng.random() < 0.3 else None)
        return (None if tokens is None else join([tokens])), "meal"

    def _weather(self, rng):
        tense = rng.choice(("p", "fp", "fp", "pc", "f", "i"))
        clause = self._weather_clause(rng, tense)
        if rng.random() < 0.15:
            clause.typ({"neg": True})
        front, end = self._time(rng, tense, _SPEAKER, False, 0.6)
        tokens = _clause_tokens(clause, front=front, end=end)
        return (None if tokens is None else join([tokens])), "weather"

    def _family(self, rng):
        """ "Ma fille vient me voir dimanche.", "Mes petits-enfants me manquent."."""
        person = person_subject(rng, "p" if rng.random() < 0.2 else "s", "3s_np")
        roll = rng.random()
        if roll < 0.5:
            lemma = rng.choice(("voir", "chercher", "aider", "voir", "rendre visite"))
            tense = rng.choice(("p", "p", "f", "pc", "fp"))
            if lemma == "rendre visite":
                inner = VP(V("rendre"), NP(N("visite"))).t("b")
                clitic = _clitic(1, "s", "m", "dat")
            else:
                inner = VP(V(lemma)).t("b")
                clitic = _clitic(1, "s", "m", "acc")
            if tense == "fp":
                clause = S(person.np, VP(V("aller"), VP(verb("venir", False), inner).t("b")))
                tense_time = "f"
            else:
                clause = S(person.np, VP(verb("venir", False), inner)).t(tense)
                tense_time = "f" if tense == "p" else tense
            end = self._time(rng, tense_time, person, p=0.7)[1]
            tokens = _clause_tokens(clause, end=end)
            if tokens is None:
                return None
            return join([insert_clitic(tokens, clitic, before_infinitive=True)]), "family"
        if roll < 0.7:
            lemma = rng.choice(("manquer", "manquer", "téléphoner", "écrire", "sourire"))
            pe = rng.choice((1, 1, 2))
            vp = VP(V(lemma), Pro("moi").pe(pe).n("s").c("dat"))
            tense = rng.choice(("p", "p", "pc"))
            if lemma == "manquer":
                tense = "p"
            tokens = _clause_tokens(S(person.np, vp).t(tense))
            return (None if tokens is None else join([tokens])), "family"
        clause = self._clause(rng, person, rng.choice(("p", "pc", "fp", "f")))
        end = self._time(rng, "p", person, p=0.4)[1]
        tokens = _clause_tokens(clause, end=end)
        return (None if tokens is None else join([tokens])), "family"

    def _feeling(self, rng):
        subj = subject(rng) if rng.random() < 0.4 else _SPEAKER
        roll = rng.random()
        if roll < 0.35:
            # "Je suis contente de rentrer à la maison.", "J'ai peur de tomber."
            if rng.random() < 0.5:
                head = VP(
                    V("être"),
                    A(rng.choice(("content", "heureux", "fier", "triste", "désolé", "pressé"))),
                )
            else:
                head = VP(V("avoir"), NP(N(rng.choice(("peur", "envie", "hâte", "besoin")))))
            inner = self._vp(rng, subj, True)
            head.add(PP(P("de"), inner))
            clause = S(subj.spec(), head).t("p")
            tokens = _clause_tokens(clause)
            return (None if tokens is None else join([tokens])), "feeling"
        if roll < 0.6:
            # "Je m'inquiète pour ma fille.", "Je suis fier de mon fils."
            person = person_object(rng)
            if rng.random() < 0.5:
                clause = S(subj.spec(), VP(V("inquiéter"), PP(P("pour"), person))).typ(
                    {"refl": True}
                )
            else:
                adj = rng.choice(("fier", "content", "jaloux", "amoureux"))
                prep = "de" if adj != "jaloux" else "de"
                clause = S(subj.spec(), VP(V("être"), A(adj), PP(P(prep), person)))
            tokens = _clause_tokens(clause.t("p"))
            return (None if tokens is None else join([tokens])), "feeling"
        if roll < 0.8:
            # "Ça me fait plaisir.", "Ça m'énerve.", "Ça me fait peur."
            pe = rng.choice((1, 1, 2))
            lemma = rng.choice(
                (
                    "faire plaisir",
                    "faire peur",
                    "énerver",
                    "fatiguer",
                    "rassurer",
                    "faire rire",
                    "inquiéter",
                )
            )
            parts = lemma.split()
            if len(parts) > 1:
                vp = VP(V(parts[0]), NP(N(parts[1])), Pro("moi").pe(pe).c("dat"))
            else:
                vp = VP(V(parts[0]), Pro("moi").pe(pe).c("acc"))
            tokens = _clause_tokens(S(Pro("ça"), vp).t(rng.choice(("p", "p", "pc"))))
            return (None if tokens is None else join([tokens])), "feeling"
        clause = S(subj.spec(), VP(V("être"), A(rng.choice(voc.ADJ_PERSON)))).t("p")
        because = self._state_clause(rng, subject(rng), "pc" if rng.random() < 0.3 else "p")
        a, b = _clause_tokens(clause), _clause_tokens(because)
        if a is None or b is None:
            return None
        return join([a, [_tok("parce", Tag.CONJ), _tok("que", Tag.CONJ)], b]), "feeling"


def _noun(word: str):
    from models.corrector.corpus.phrases import resolve_noun

    noun = resolve_noun(word)
    if noun is None:
        raise ValueError(word)
    return noun


def _hand(line: str) -> list[Token]:
    """Hand-tagged words as in `parse_tagged`, with verb forms marked finite/infinitive."""
    tokens = []
    for tok in parse_tagged(line):
        if tok.tag in (Tag.VERB, Tag.COP):
            lemma = {
                "est": "être",
                "sonne": "sonner",
                "entends": "entendre",
                "entendez": "entendre",
                "appelle": "appeler",
                "passe": "passer",
                "a": "avoir",
                "ai": "avoir",
                "prendre": "prendre",
            }.get(tok.form, tok.form)
            vform = "inf" if tok.form == lemma else "fin"
            tok = Token(tok.form, tok.tag, lemma, {"vform": vform})
        tokens.append(tok)
    return tokens
