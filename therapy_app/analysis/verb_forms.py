"""A curated lexicon of frequent French verb forms, for the verbs-per-utterance heuristic.

This is NOT a part-of-speech tagger. The set below is generated from hand-picked
lists of frequent verbs (everyday vocabulary used in aphasia therapy material)
with regular conjugation rules for the present, imperfect, future and
conditional indicative, participles and infinitives, plus the irregular verbs
written out from their principal parts. ``metrics.verb_count`` combines it with
context rules (determiner before the token, auxiliary before a participle, the
"-er" infinitive ending). A tagger such as spaCy's ``fr_core_news_md`` would be
more accurate but weighs hundreds of MB and pulls in a large dependency tree
that the runtime cannot carry; revisit if a small offline tagger appears.

Forms that are mostly nouns or prepositions in everyday speech are removed
(``_AMBIGUOUS``) rather than guessed: the metric under-counts rather than
over-counts.
"""

from __future__ import annotations

# First group (-er), regular or with only spelling changes handled below.
_ER_VERBS = (
    "aimer parler manger donner regarder marcher travailler penser trouver passer rester "
    "jouer chercher demander porter laver fermer écouter arriver entrer tomber monter "
    "rentrer retourner préparer cuisiner habiter aider montrer raconter chanter danser "
    "nager commencer changer bouger ranger partager voyager corriger juger plonger "
    "utiliser oublier continuer sembler laisser tourner garder toucher coucher réveiller "
    "brosser habiller doucher cacher pleurer rêver fumer gagner quitter visiter inviter "
    "dessiner compter expliquer appeler acheter lever essayer payer nettoyer envoyer "
    "étudier crier remercier marier copier plier prier vérifier apprécier trier "
    "respirer répéter préférer espérer téléphoner rencontrer allumer "
    "goûter déjeuner dîner souper promener reposer sauter lancer tirer pousser "
    "arrêter commander coûter décider dépenser durer emmener apporter amener "
    "oublier présenter raconter refuser regretter remplacer réparer réserver retrouver "
    "saluer sonner tenter tricoter trouver user voler"
).split()

# Second group (-ir with -iss-).
_IR_ISS_VERBS = (
    "finir choisir réussir grandir remplir réfléchir guérir obéir rougir maigrir "
    "grossir punir bâtir agir saisir nourrir applaudir avertir fournir ralentir "
    "vieillir rajeunir atterrir rétablir"
).split()

# Third group in -re conjugated like "attendre".
_RE_VERBS = "attendre entendre répondre perdre rendre vendre descendre défendre tendre".split()

# Irregular verbs: infinitive, six present forms, imperfect stem, future stem,
# participles, extra forms (subjunctive, imperative...). être/avoir live in
# closed_class.AUXILIARY_FORMS.
_IRREGULAR: tuple[tuple[str, str, str, str, str, str], ...] = (
    (
        "aller",
        "vais vas va allons allez vont",
        "all",
        "ir",
        "allé allée allés allées allant",
        "aille ailles aillent",
    ),
    (
        "faire",
        "fais fais fait faisons faites font",
        "fais",
        "fer",
        "fait faite faits faisant",
        "fasse fasses fassent fassions fassiez",
    ),
    ("dire", "dis dis dit disons dites disent", "dis", "dir", "dit dite dits disant", ""),
    (
        "pouvoir",
        "peux peux peut pouvons pouvez peuvent",
        "pouv",
        "pourr",
        "pu pouvant",
        "puisse puisses puissent",
    ),
    (
        "vouloir",
        "veux veux veut voulons voulez veulent",
        "voul",
        "voudr",
        "voulu voulue voulus voulues voulant",
        "veuille veuillez veuillent",
    ),
    (
        "savoir",
        "sais sais sait savons savez savent",
        "sav",
        "saur",
        "su sue sus sues sachant",
        "sache saches sachent sachez sachons",
    ),
    (
        "venir",
        "viens viens vient venons venez viennent",
        "ven",
        "viendr",
        "venu venue venus venues venant",
        "vienne viennes",
    ),
    (
        "devenir",
        "deviens deviens devient devenons devenez deviennent",
        "deven",
        "deviendr",
        "devenu devenue devenus devenues",
        "",
    ),
    (
        "revenir",
        "reviens reviens revient revenons revenez reviennent",
        "reven",
        "reviendr",
        "revenu revenue revenus revenues",
        "",
    ),
    (
        "tenir",
        "tiens tiens tient tenons tenez tiennent",
        "ten",
        "tiendr",
        "tenu tenue tenus tenues tenant",
        "",
    ),
    (
        "voir",
        "vois vois voit voyons voyez voient",
        "voy",
        "verr",
        "vu vue vus vues voyant",
        "voie voies",
    ),
    (
        "prendre",
        "prends prends prend prenons prenez prennent",
        "pren",
        "prendr",
        "pris prise prises prenant",
        "prenne prennes",
    ),
    (
        "comprendre",
        "comprends comprends comprend comprenons comprenez comprennent",
        "compren",
        "comprendr",
        "compris comprise comprises comprenant",
        "comprenne",
    ),
    (
        "apprendre",
        "apprends apprends apprend apprenons apprenez apprennent",
        "appren",
        "apprendr",
        "appris apprise apprises apprenant",
        "apprenne",
    ),
    (
        "mettre",
        "mets mets met mettons mettez mettent",
        "mett",
        "mettr",
        "mis mise mises mettant",
        "mette mettes",
    ),
    (
        "devoir",
        "dois dois doit devons devez doivent",
        "dev",
        "devr",
        "dû due dus dues",
        "doive doives",
    ),
    ("falloir", "faut", "fall", "faudr", "fallu", "faille"),
    (
        "partir",
        "pars pars partons partez partent",
        "part",
        "partir",
        "parti partie partis parties partant",
        "parte",
    ),
    (
        "sortir",
        "sors sors sortons sortez sortent",
        "sort",
        "sortir",
        "sorti sortie sortis sorties sortant",
        "sorte",
    ),
    ("dormir", "dors dors dort dormons dormez dorment", "dorm", "dormir", "dormi dormant", "dorme"),
    ("sentir", "sent sentons sentez sentent", "sent", "sentir", "senti sentie sentant", ""),
    (
        "servir",
        "sers sers sert servons servez servent",
        "serv",
        "servir",
        "servi servie servis servies servant",
        "",
    ),
    ("boire", "boit buvons buvez boivent", "buv", "boir", "bu bue bus bues buvant", "boive"),
    ("lire", "lis lis lisons lisez lisent", "lis", "lir", "lu lue lus lues lisant", "lise"),
    (
        "écrire",
        "écris écris écrit écrivons écrivez écrivent",
        "écriv",
        "écrir",
        "écrit écrite écrits écrites écrivant",
        "écrive",
    ),
    (
        "croire",
        "crois crois croit croyons croyez croient",
        "croy",
        "croir",
        "cru crue crus crues croyant",
        "croie",
    ),
    (
        "connaître",
        "connais connais connaît connaissons connaissez connaissent",
        "connaiss",
        "connaîtr",
        "connu connue connus connues connaissant",
        "connaisse",
    ),
    (
        "reconnaître",
        "reconnais reconnais reconnaît reconnaissons reconnaissez reconnaissent",
        "reconnaiss",
        "reconnaîtr",
        "reconnu reconnue reconnus reconnues",
        "",
    ),
    ("vivre", "vivons vivez vivent", "viv", "vivr", "vécu vécue vécus vivant", "vive"),
    (
        "ouvrir",
        "ouvre ouvres ouvrons ouvrez ouvrent",
        "ouvr",
        "ouvrir",
        "ouvert ouverte ouverts ouvertes ouvrant",
        "",
    ),
    (
        "offrir",
        "offre offres offrons offrez offrent",
        "offr",
        "offrir",
        "offert offerte offerts offertes offrant",
        "",
    ),
    (
        "mourir",
        "meurs meurs meurt mourons mourez meurent",
        "mour",
        "mourr",
        "morte mourant",
        "meure",
    ),
    ("courir", "courons courez courent", "cour", "courr", "couru courant", "coure"),
    (
        "recevoir",
        "reçois reçois reçoit recevons recevez reçoivent",
        "recev",
        "recevr",
        "reçu reçue reçus reçues recevant",
        "reçoive",
    ),
    (
        "asseoir",
        "assieds assied asseyons asseyez asseyent",
        "assey",
        "assiér",
        "assis assise assises asseyant",
        "asseye",
    ),
    ("plaire", "plais plaît plaisons plaisez plaisent", "plais", "plair", "plu plaisant", "plaise"),
    ("pleuvoir", "pleut", "pleuv", "pleuvr", "pleuvant", ""),
    (
        "conduire",
        "conduis conduis conduit conduisons conduisez conduisent",
        "conduis",
        "conduir",
        "conduite conduits conduites conduisant",
        "conduise",
    ),
    (
        "éteindre",
        "éteins éteins éteint éteignons éteignez éteignent",
        "éteign",
        "éteindr",
        "éteinte éteints éteintes éteignant",
        "éteigne",
    ),
    (
        "suivre",
        "suit suivons suivez suivent",
        "suiv",
        "suivr",
        "suivi suivie suivis suivant",
        "suive",
    ),
)

# Stem-changing present forms of -er verbs that the regular rule misses.
_ER_EXTRA = (
    "appelle appelles appellent appellerai appellera appellerons appellerez appelleront "
    "achète achètes achètent achèterai achètera lève lèves lèvent lèverai lèvera "
    "essaie essaies essaient essaierai essaiera paie paies paient paierai paiera "
    "nettoie nettoies nettoient nettoierai nettoiera enverrai enverras enverra enverrons "
    "enverrez enverront enverrais enverrait envoie envoies envoient "
    "répète répètes répètent préfère préfères préfèrent espère espères espèrent "
    "promène promènes promènent emmène emmènes emmènent amène amènes amènent"
).split()

# Generated forms that are far more often something else in everyday speech.
# "entre" is a preposition, "devant" a preposition, "part"/"sort"/"lit"/"bois"/
# "cours"/"sens"/"mort" nouns, "puis" an adverb, "vis" a noun, "suis" is an
# auxiliary form counted in closed_class.
_AMBIGUOUS = frozenset(
    "entre devant part sort lit bois cours court sens mort puis vis suis".split()
)

_PRESENT_ER = ("e", "es", "ons", "ez", "ent")
_IMPERFECT = ("ais", "ait", "ions", "iez", "aient")
_FUTURE = ("ai", "as", "a", "ons", "ez", "ont")
_CONDITIONAL = _IMPERFECT


def _er_forms(infinitive: str) -> set[str]:
    stem = infinitive[:-2]
    forms = {infinitive, stem + "é", stem + "ée", stem + "és", stem + "ées"}

    def soft(ending: str) -> str:
        # "mangeons", "commençais": keep the soft g/c before a and o.
        if ending[:1] in ("a", "o"):
            if stem.endswith("g"):
                return stem + "e" + ending
            if stem.endswith("c"):
                return stem[:-1] + "ç" + ending
        return stem + ending

    forms.update(soft(e) for e in _PRESENT_ER)
    forms.update(soft(e) for e in _IMPERFECT)
    forms.add(soft("ant"))
    forms.update(infinitive + e for e in _FUTURE)
    forms.update(infinitive + e for e in _CONDITIONAL)
    return forms


def _ir_iss_forms(infinitive: str) -> set[str]:
    stem = infinitive[:-2]
    forms = {infinitive, stem + "i", stem + "ie", stem + "is", stem + "ies", stem + "it"}
    forms.update(stem + "iss" + e for e in ("ons", "ez", "ent", "ant", "e", "es"))
    forms.update(stem + "iss" + e for e in _IMPERFECT)
    forms.update(infinitive + e for e in _FUTURE + _CONDITIONAL)
    return forms


def _re_forms(infinitive: str) -> set[str]:
    stem = infinitive[:-2]
    forms = {infinitive, stem + "s", stem, stem + "ons", stem + "ez", stem + "ent"}
    forms.update({stem + "u", stem + "ue", stem + "us", stem + "ues", stem + "ant"})
    forms.update(stem + e for e in _IMPERFECT)
    forms.update(infinitive[:-1] + e for e in _FUTURE + _CONDITIONAL)
    return forms


def _irregular_forms() -> set[str]:
    forms: set[str] = set()
    for infinitive, present, imperfect, future, participles, extra in _IRREGULAR:
        forms.add(infinitive)
        forms.update(present.split())
        forms.update(imperfect + e for e in _IMPERFECT)
        forms.update(future + e for e in _FUTURE + _CONDITIONAL)
        forms.update(participles.split())
        forms.update(extra.split())
    return forms


def _build() -> frozenset[str]:
    forms: set[str] = set(_ER_EXTRA)
    for verb in _ER_VERBS:
        forms |= _er_forms(verb)
    for verb in _IR_ISS_VERBS:
        forms |= _ir_iss_forms(verb)
    for verb in _RE_VERBS:
        forms |= _re_forms(verb)
    forms |= _irregular_forms()
    return frozenset(forms - _AMBIGUOUS)


VERB_FORMS: frozenset[str] = _build()
"""Lower-case inflected forms recognised as verbs (être/avoir excluded)."""

PARTICIPLE_ENDINGS: tuple[str, ...] = ("é", "ée", "és", "ées")
"""Endings of regular past participles, recognised after an auxiliary."""

NON_VERB_ER: frozenset[str] = frozenset(
    "mer hier hiver fer cher fier amer super premier dernier entier léger étranger "
    "danger berger verger boulanger passager usager horloger potager oranger "
    "plancher rocher clocher archer boucher cancer laser poster hamburger "
    "éther revolver reporter leader manager joker poker bunker thriller master "
    "cuiller ver".split()
)
"""Words ending in "-er" that are not infinitives (nouns, adjectives, loans)."""
