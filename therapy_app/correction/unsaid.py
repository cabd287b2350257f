"""Meaning a correction adds that the patient did not say: a tense, a demonstrative, an order.

Agrammatic speech leaves tense unmarked ("moi regarder télé"). With no cue the
model still has to pick one, and it often picked a past, a future or an
imperfect ("J'ai regardé la télé", "Je vais regarder"), a demonstrative ("cette
télé") or an order ("Faites des courses") where the plain present statement was
meant. These candidates are not wrong French, they say more than the patient
did; the corrector orders them after the ones that do not (``unsaid_penalty``).
A cue in the input (a participle, an auxiliary, "hier", "demain", "vous") lifts
the check for that kind.
"""

from __future__ import annotations

from therapy_app.correction.grammar_cues import french_forms
from therapy_app.correction.preserve import fold, words

# Words that place an utterance in time, or auxiliaries and conjugated forms the
# patient said: any of them and the tense of a candidate is the patient's.
_TIME_CUES = frozenset(
    "hier demain avant après autrefois bientôt déjà dernier dernière derniers dernières "
    "prochain prochaine prochains prochaines passé passée tard tout heure jadis enfance "
    "ans an plus jamais futur".split()
)
_AUXILIARIES = frozenset(
    "ai as a avons avez ont eu avais avait avions aviez avaient aurai auras aura aurons "
    "aurez auront suis es est sommes êtes sont été étais était étions étiez étaient serai "
    "seras sera serons serez seront vais vas va allons allez vont allé allée allés "
    "allées allais allait irai ira iront fut".split()
)
_AVOIR = frozenset({"ai", "as", "a", "avons", "avez", "ont"})
_ETRE = frozenset({"suis", "es", "est", "sommes", "êtes", "sont"})
_ALLER = frozenset({"vais", "vas", "va", "allons", "allez", "vont"})
_VENIR = frozenset({"viens", "vient", "venons", "venez", "viennent"})
_SUBJECTS = frozenset(
    {"je", "j", "tu", "il", "elle", "on", "nous", "vous", "ils", "elles", "c", "ça"}
)
# Between an auxiliary and its participle: "je n'ai pas vu", "il a déjà mangé".
_ADVERBS = frozenset({"pas", "jamais", "plus", "déjà", "bien", "encore", "rien", "tout", "trop"})
# Verbs conjugated with être in the passé composé (and their participles' stems).
_ETRE_PARTICIPLES = (
    "allé", "venu", "parti", "sorti", "arrivé", "tombé", "resté", "monté", "descendu",
    "entré", "rentré", "retourné", "né", "mort", "devenu", "revenu", "passé",
)  # fmt: skip
_IRREGULAR_PARTICIPLES = frozenset(
    "fait dit pris mis vu eu bu lu su pu dû été fini écrit ouvert offert mort né reçu "
    "perdu vendu attendu entendu répondu rendu conduit compris appris dormi servi choisi "
    "tenu voulu connu couru plu fallu vécu venu parti sorti ri suivi".split()
)
# Said, these mark a past; "fait" and "dit" are presents too ("il fait froid").
_SAID_PARTICIPLES = _IRREGULAR_PARTICIPLES - {"fait", "dit"}
# Present forms that end like an imperfect or a future ("il fait", "je sais").
_PRESENT_LOOKALIKES = frozenset(
    "fais fait sais sait vais plais plaît plait connais connaît connait parais paraît "
    "nais naît tais tait mais jamais vrai".split()
)
_POLITE_CONDITIONALS = frozenset(
    {"voudrais", "voudrait", "voudrions", "voudriez", "voudraient", "pourrais", "pourrait"}
)
_DEMONSTRATIVES = frozenset({"cet", "cette", "ces"})
# "ce soir", "cette nuit": time words the patient's bare "soir" or "nuit" restores.
_TIME_NOUNS = frozenset(
    "matin soir midi nuit semaine année an mois week-end weekend après-midi fois hiver "
    "été printemps automne jour".split()
)
# Words that may follow a pronoun "ce": "ce que", "ce n'est", "ce sont".
_PRONOUN_CE = frozenset({"que", "qu", "qui", "dont", "n", "ne", "sont", "soit", "sera", "serait"})
_INFINITIVE_ENDINGS = ("er", "ir", "re", "oir")


def _is_participle(word: str) -> bool:
    return word in _IRREGULAR_PARTICIPLES or (
        len(word) >= 4 and word.endswith(("é", "ée", "és", "ées", "i", "ie", "is", "u", "ue"))
    )


def _tense_cue(said: list[str]) -> bool:
    """The patient marked a time: an auxiliary, a participle, a time word, a conjugated past."""
    for i, word in enumerate(said):
        if word in _TIME_CUES or word in _AUXILIARIES:
            return True
        if word == "aller" and i + 1 < len(said) and said[i + 1].endswith(_INFINITIVE_ENDINGS):
            return True  # "moi aller manger": the patient's own futur proche
        if _said_participle(word):
            return True  # "tombé", "mangé": a bare participle is a past
        if word in _SAID_PARTICIPLES:
            return True
        if len(word) >= 4 and word.endswith(("ais", "ait", "aient", "rai", "ront")):
            return True  # a conjugated imperfect or future
    return False


def _said_participle(word: str) -> bool:
    """ "regardé" (of "regarder"), not "télé" or "journée": an -er verb's participle."""
    for ending in ("ées", "és", "ée", "é"):
        if len(word) >= 4 and word.endswith(ending):
            return word[: -len(ending)] + "er" in french_forms()
    return False


def _tense_added(written: list[str], said: set[str]) -> bool:
    """A past, a future, an imperfect or a recent past ("vient de") in the candidate."""
    for i, word in enumerate(written):
        after = [w for w in written[i + 1 : i + 4] if w not in _ADVERBS and w not in {"ne", "n"}]
        nxt = after[0] if after else ""
        if word in _AVOIR and _is_participle(nxt):
            return True
        if word in _ETRE and (nxt.startswith(_ETRE_PARTICIPLES) or _reflexive(written, i)):
            if _is_participle(nxt):
                return True
        if word in _ALLER and nxt.endswith(_INFINITIVE_ENDINGS):
            return True
        if word in _VENIR and nxt in {"de", "d"} and not said & {"de", "d"}:
            return True
        if _conjugated_past_or_future(word):
            return True  # "mon voisin venait", "les enfants joueront"
        if _after_subject(written, i) and len(word) >= 3 and word not in _PRESENT_LOOKALIKES:
            if word.endswith(("ais", "ait", "aient")) and word not in _POLITE_CONDITIONALS:
                return True  # an imperfect, or a conditional that is not a polite request
            # Futures; 1st and 2nd plural left out: "vous entrez" ends like "vous serez".
            if word.endswith(("rai", "ras", "ra", "ront")):
                return True
    return False


_IRREGULAR_TENSES = frozenset(
    "était étaient avait avaient faisait faisaient allait allaient sera seront aura auront "
    "ira iront fera feront viendra viendront pourra pourront voudra devra verra faudra "
    "pleuvra fallait".split()
)


def _conjugated_past_or_future(word: str) -> bool:
    """A third-person imperfect or future whatever its subject ("venait", "joueront")."""
    if word in _IRREGULAR_TENSES:
        return True
    forms = french_forms()
    for ending in ("aient", "ait"):
        if len(word) > len(ending) + 2 and word.endswith(ending):
            stem = word[: -len(ending)]
            stems = (stem, stem[:-2]) if stem.endswith("ss") else (stem,)
            return any(st + inf in forms for st in stems for inf in ("er", "ir", "re"))
    for ending in ("ront", "ra"):
        if len(word) > len(ending) + 3 and word.endswith(ending):
            stem = word[: -len(ending) + 1]  # "jouer" from "jouera", "dormir" from "dormira"
            return stem in forms or stem + "e" in forms
    return False


# Between a subject and its verb: "je ne", "il me", "on l'", "j'y".
_BETWEEN = frozenset({"ne", "n", "me", "m", "te", "t", "se", "s", "l", "lui", "leur", "y", "en"})


def _after_subject(written: list[str], i: int) -> bool:
    """``written[i]`` is a verb's place: right after a subject and its clitics."""
    j = i - 1
    while j >= 0 and written[j] in _BETWEEN:
        j -= 1
    return j >= 0 and written[j] in _SUBJECTS


def _reflexive(written: list[str], i: int) -> bool:
    return i > 0 and written[i - 1] in {"me", "m", "te", "t", "se", "s", "nous", "vous"}


def _demonstrative_added(written: list[str]) -> bool:
    for i, word in enumerate(written):
        nxt = written[i + 1] if i + 1 < len(written) else ""
        if word in _DEMONSTRATIVES and nxt not in _TIME_NOUNS:
            return True
        if word == "ce" and nxt and nxt not in _PRONOUN_CE and nxt not in _TIME_NOUNS:
            return True
    return False


def _order_added(written: list[str]) -> bool:
    """The candidate opens with a verb and no subject: "Faites des courses", "Allons-y"."""
    first = next((w for w in written if w not in {"ne", "n"}), "")
    if first in {"faites", "dites", "sois", "soyez", "soyons", "aie", "ayez", "va", "viens"}:
        return True
    if first in _COURTESY:
        return False
    return len(first) >= 4 and first.endswith(("ez", "ons")) and first not in {"bons", "maisons"}


# Formulas a patient says as they are: "Excusez-moi", "Entrez", "Asseyez-vous".
_COURTESY = frozenset({"excusez", "entrez", "asseyez"})


def added_meaning(source: str, candidate: str) -> tuple[str, ...]:
    """The kinds of meaning ``candidate`` adds to ``source``: "tense", "demonstrative", "order".

    Args:
        source: what the patient said (as transcribed).
        candidate: one of the corrector's rewrites.

    Returns:
        Each kind once, in that order; empty when the candidate says no more than
        the patient did, or when the patient's words carry the cue themselves.
    """
    said = words(source)
    written = words(candidate)
    folded_said = {fold(w) for w in said}
    out: list[str] = []
    if not _tense_cue(said) and _tense_added(written, set(said)):
        out.append("tense")
    if not folded_said & {"ce", "cet", "cette", "ces", "ca"} and _demonstrative_added(written):
        out.append("demonstrative")
    if not folded_said & {"vous", "nous"} and _order_added(written):
        out.append("order")
    return tuple(out)
