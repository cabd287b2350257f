"""Verb frames: which verbs take which complements from which semantic field."""

from __future__ import annotations

import functools
import logging
from dataclasses import dataclass

from models.corrector.corpus.lexicon import lemmas, verb_patterns

_LOGGER = logging.getLogger(__name__)


@dataclass(frozen=True)
class Frame:
    """A verb with its complement pattern.

    Attributes:
        verb: infinitive.
        kind: complement pattern: intr (none), obj (direct object), loc (place with
            à / chez / dans / en), pp (preposition + NP), obj_pp (object then
            preposition + NP), refl (pronominal, no object), refl_obj (pronominal
            with a direct object: "se laver les mains").
        slot: semantic field of the (first) complement: a `vocabulary` name, PERSON,
            PLACE_ANY, BROAD (any frequent noun) or "" when none.
        prep: preposition of a pp complement.
        slot2: semantic field of the second complement (obj_pp).
        prep2: preposition of the second complement.
        styles: determiner styles to draw from (def, indef, poss, dem, num, part).
        weight: relative sampling weight.
    """

    verb: str
    kind: str
    slot: str = ""
    prep: str = ""
    slot2: str = ""
    prep2: str = ""
    styles: tuple[str, ...] = ("def", "indef")
    weight: float = 1.0


_FOOD_STYLES = ("part", "part", "indef", "def", "num")
_OWN = ("poss", "poss", "def")
_ANY = ("def", "indef", "poss", "dem")

CORE_FRAMES: tuple[Frame, ...] = (
    # Meals and drinks.
    Frame("manger", "obj", "FOOD_MASS", styles=_FOOD_STYLES, weight=4),
    Frame("manger", "obj", "FOOD_COUNT", styles=("indef", "def", "num", "dem"), weight=3),
    Frame("boire", "obj", "DRINK", styles=("part", "part", "indef"), weight=3),
    Frame("prendre", "obj", "FOOD_COUNT", styles=("indef", "def", "num"), weight=2),
    Frame("prendre", "obj", "DRINK", styles=("part", "indef"), weight=1),
    Frame("acheter", "obj", "FOOD_COUNT", styles=("indef", "num", "def"), weight=2),
    Frame("acheter", "obj", "FOOD_MASS", styles=("part", "part", "def"), weight=2),
    Frame("acheter", "obj", "OBJECTS", styles=("indef", "def", "num"), weight=2),
    Frame("acheter", "obj", "CLOTHES", styles=("indef", "def", "num"), weight=1),
    Frame("préparer", "obj", "MEALS", styles=("def", "poss"), weight=2),
    Frame("préparer", "obj", "FOOD_COUNT", styles=("indef", "def"), weight=1),
    Frame("cuisiner", "obj", "FOOD_MASS", styles=("part", "def"), weight=1),
    Frame("aimer", "obj", "FOOD_MASS", styles=("def",), weight=2),
    Frame("préférer", "obj", "FOOD_MASS", styles=("def",), weight=1),
    Frame("détester", "obj", "FOOD_MASS", styles=("def",), weight=1),
    Frame("goûter", "obj", "FOOD_COUNT", styles=("def", "dem"), weight=1),
    Frame("finir", "obj", "MEALS", styles=("poss", "def"), weight=1),
    Frame("servir", "obj", "FOOD_MASS", styles=("part", "def"), weight=1),
    Frame("couper", "obj", "FOOD_COUNT", styles=("def", "dem"), weight=1),
    # Things at home.
    Frame("chercher", "obj", "OBJECTS", styles=_OWN, weight=4),
    Frame("trouver", "obj", "OBJECTS", styles=_OWN, weight=2),
    Frame("perdre", "obj", "OBJECTS", styles=_OWN, weight=2),
    Frame("oublier", "obj", "OBJECTS", styles=_OWN, weight=2),
    Frame("prendre", "obj", "OBJECTS", styles=_ANY, weight=2),
    Frame("ranger", "obj", "OBJECTS", styles=_OWN, weight=1),
    Frame("nettoyer", "obj", "OBJECTS", styles=_ANY, weight=1),
    Frame("réparer", "obj", "OBJECTS", styles=_ANY, weight=1),
    Frame("casser", "obj", "OBJECTS", styles=_ANY, weight=1),
    Frame("ouvrir", "obj", "OBJECTS", styles=("def", "dem"), weight=1),
    Frame("fermer", "obj", "OBJECTS", styles=("def", "dem"), weight=1),
    Frame("utiliser", "obj", "OBJECTS", styles=_ANY, weight=1),
    Frame("regarder", "obj", "OBJECTS", styles=("def", "dem"), weight=1),
    Frame("apporter", "obj", "OBJECTS", styles=_ANY, weight=1),
    Frame("vouloir", "obj", "OBJECTS", styles=("indef", "def"), weight=1),
    Frame("mettre", "obj", "CLOTHES", styles=_OWN, weight=2),
    Frame("enlever", "obj", "CLOTHES", styles=_OWN, weight=1),
    Frame("laver", "obj", "CLOTHES", styles=_OWN, weight=1),
    Frame("porter", "obj", "CLOTHES", styles=("indef", "poss", "def"), weight=1),
    Frame("mettre", "obj_pp", "OBJECTS", "", "ROOMS", "dans", styles=("def", "poss"), weight=2),
    Frame("laisser", "obj_pp", "OBJECTS", "", "ROOMS", "dans", styles=("def", "poss"), weight=1),
    Frame("donner", "obj_pp", "OBJECTS", "", "PERSON", "à", styles=_ANY, weight=2),
    Frame("apporter", "obj_pp", "OBJECTS", "", "PERSON", "à", styles=_ANY, weight=1),
    Frame("montrer", "obj_pp", "OBJECTS", "", "PERSON", "à", styles=_ANY, weight=1),
    Frame("prêter", "obj_pp", "OBJECTS", "", "PERSON", "à", styles=_ANY, weight=1),
    Frame("offrir", "obj_pp", "OBJECTS", "", "PERSON", "à", styles=("indef",), weight=1),
    Frame("acheter", "obj_pp", "OBJECTS", "", "PERSON", "pour", styles=("indef",), weight=1),
    Frame("écrire", "obj_pp", "LETTER", "", "PERSON", "à", styles=("indef",), weight=1),
    # People.
    Frame("appeler", "obj", "PERSON", weight=3),
    Frame("voir", "obj", "PERSON", weight=3),
    Frame("attendre", "obj", "PERSON", weight=2),
    Frame("aider", "obj", "PERSON", weight=1),
    Frame("rencontrer", "obj", "PERSON", weight=1),
    Frame("embrasser", "obj", "PERSON", weight=1),
    Frame("remercier", "obj", "PERSON", weight=1),
    Frame("inviter", "obj", "PERSON", weight=1),
    Frame("chercher", "obj", "PERSON", weight=1),
    Frame("écouter", "obj", "PERSON", weight=1),
    Frame("aimer", "obj", "PERSON", weight=1),
    Frame("téléphoner", "pp", "PERSON", "à", weight=3),
    Frame("parler", "pp", "PERSON", "à", weight=2),
    Frame("parler", "pp", "PERSON", "avec", weight=2),
    Frame("écrire", "pp", "PERSON", "à", weight=1),
    Frame("penser", "pp", "PERSON", "à", weight=1),
    Frame("répondre", "pp", "PERSON", "à", weight=1),
    Frame("sortir", "pp", "PERSON", "avec", weight=1),
    Frame("manger", "pp", "PERSON", "avec", weight=1),
    Frame("jouer", "pp", "PERSON", "avec", weight=1),
    Frame("dîner", "pp", "PERSON", "chez", weight=1),
    # Talk and thought.
    Frame("parler", "pp", "TOPICS", "de", styles=("def", "poss"), weight=2),
    Frame("penser", "pp", "TOPICS", "à", styles=("def", "poss"), weight=1),
    Frame("rêver", "pp", "TOPICS", "de", styles=("def", "poss"), weight=1),
    Frame("oublier", "obj", "TOPICS", styles=("def", "poss"), weight=1),
    Frame("raconter", "obj", "TOPICS", styles=("def", "poss"), weight=1),
    Frame("regarder", "obj", "SHOWS", styles=("def", "indef"), weight=2),
    Frame("lire", "obj", "READING", styles=("def", "indef", "poss"), weight=2),
    Frame("écouter", "obj", "SOUNDS", styles=("def", "indef"), weight=1),
    # Places and moving.
    Frame("aller", "loc", "PLACES", weight=8),
    Frame("aller", "loc", "CHEZ", weight=3),
    Frame("rentrer", "loc", "HOME", weight=2),
    Frame("retourner", "loc", "PLACES", weight=1),
    Frame("passer", "loc", "PLACES", weight=1),
    Frame("arriver", "loc", "PLACES", weight=1),
    Frame("rester", "loc", "HOME", weight=2),
    Frame("travailler", "loc", "PLACES", weight=1),
    Frame("manger", "loc", "PLACES", weight=1),
    Frame("attendre", "loc", "PLACES", weight=1),
    Frame("venir", "pp", "PLACES", "de", styles=("def",), weight=1),
    Frame("sortir", "pp", "PLACES", "de", styles=("def",), weight=1),
    Frame("partir", "pp", "PLACES", "de", styles=("def",), weight=1),
    Frame("prendre", "obj", "TRANSPORT", styles=("def",), weight=3),
    Frame("rater", "obj", "TRANSPORT", styles=("def",), weight=1),
    Frame("attendre", "obj", "TRANSPORT", styles=("def",), weight=1),
    Frame("aller", "pp", "VEHICLES_EN", "en", styles=("none",), weight=1),
    Frame("voyager", "pp", "VEHICLES_EN", "en", styles=("none",), weight=1),
    Frame("conduire", "obj", "CAR", styles=("poss", "def"), weight=1),
    Frame("monter", "pp", "ROOMS_UP", "dans", styles=("def", "poss"), weight=1),
    Frame("entrer", "pp", "ROOMS", "dans", styles=("def",), weight=1),
    # Health.
    Frame("prendre", "obj", "MEDICINE", styles=("poss", "def"), weight=3),
    Frame("oublier", "obj", "MEDICINE", styles=("poss",), weight=1),
    Frame("soigner", "obj", "BODY", styles=("poss",), weight=1),
    Frame("bouger", "obj", "BODY", styles=("def",), weight=1),
    Frame("lever", "obj", "BODY", styles=("def",), weight=1),
    Frame("masser", "obj", "BODY", styles=("poss",), weight=1),
    Frame("soigner", "obj", "PERSON", weight=1),
    # Activities.
    Frame("jouer", "pp", "ACTIVITIES_JOUER", "à", styles=("def",), weight=2),
    Frame("regarder", "obj", "PLACES_VIEW", styles=("def",), weight=1),
    Frame("visiter", "obj", "PLACES", styles=("def",), weight=1),
    Frame("arroser", "obj", "GARDEN", styles=("def", "poss"), weight=1),
    # Intransitives.
    Frame("dormir", "intr", weight=3),
    Frame("marcher", "intr", weight=2),
    Frame("travailler", "intr", weight=1),
    Frame("partir", "intr", weight=2),
    Frame("arriver", "intr", weight=2),
    Frame("venir", "intr", weight=2),
    Frame("sortir", "intr", weight=2),
    Frame("rentrer", "intr", weight=1),
    Frame("tomber", "intr", weight=2),
    Frame("pleurer", "intr", weight=1),
    Frame("rire", "intr", weight=1),
    Frame("tousser", "intr", weight=1),
    Frame("attendre", "intr", weight=1),
    Frame("comprendre", "intr", weight=2),
    Frame("manger", "intr", weight=1),
    Frame("cuisiner", "intr", weight=1),
    Frame("lire", "intr", weight=1),
    Frame("nager", "intr", weight=1),
    Frame("chanter", "intr", weight=1),
    Frame("danser", "intr", weight=1),
    Frame("courir", "intr", weight=1),
    Frame("souffrir", "intr", weight=1),
    Frame("guérir", "intr", weight=1),
    Frame("parler", "intr", weight=1),
    # Pronominal verbs.
    Frame("lever", "refl", weight=2),
    Frame("coucher", "refl", weight=2),
    Frame("reposer", "refl", weight=2),
    Frame("promener", "refl", weight=2),
    Frame("asseoir", "refl", weight=1),
    Frame("habiller", "refl", weight=1),
    Frame("laver", "refl", weight=1),
    Frame("dépêcher", "refl", weight=1),
    Frame("tromper", "refl", weight=1),
    Frame("réveiller", "refl", weight=1),
    Frame("inquiéter", "refl", weight=1),
    Frame("ennuyer", "refl", weight=1),
    Frame("amuser", "refl", weight=1),
    Frame("perdre", "refl", weight=1),
    Frame("laver", "refl_obj", "BODY", styles=("def",), weight=1),
    Frame("brosser", "refl_obj", "TEETH", styles=("def",), weight=1),
    Frame("casser", "refl_obj", "BODY", styles=("def",), weight=1),
    Frame("couper", "refl_obj", "FINGER", styles=("def",), weight=1),
)

# Extra noun fields used by frames but small enough to live here.
EXTRA_FIELDS = {
    "DRINK": "eau lait café thé jus vin bière tisane chocolat limonade sirop soda cidre",
    "LETTER": "lettre carte message mot courriel",
    "SHOWS": "film télévision match émission feuilleton série journal documentaire",
    "READING": "journal livre magazine lettre roman recette ordonnance notice message",
    "SOUNDS": "radio musique chanson disque concert message",
    "HOME": "maison",
    "CAR": "voiture camionnette moto",
    "ROOMS_UP": "voiture bus train taxi ascenseur",
    "MEDICINE": "médicament comprimé pilule sirop traitement goutte vitamine",
    "PLACES_VIEW": "mer paysage ciel jardin rue coucher",
    "GARDEN": "fleur plante jardin salade tomate pelouse",
    "TEETH": "dent",
    "FINGER": "doigt main pied",
}


@functools.cache
def broad_verbs(pattern: str, min_freq: float) -> tuple[str, ...]:
    """Frequent Lexique verbs whose pyrealb pattern list includes `pattern`."""
    return tuple(
        e.lemma
        for e in lemmas("V", min_freq)
        if pattern in verb_patterns(e.lemma) and e.lemma not in ("être", "avoir")
    )
