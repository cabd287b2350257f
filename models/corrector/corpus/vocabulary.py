"""Curated everyday vocabulary by semantic field (genders come from pyrealb's lexicon)."""

from __future__ import annotations

import logging

_LOGGER = logging.getLogger(__name__)


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


# People a patient talks about. FAMILY take a possessive, ROLES an article.
FAMILY = _words(
    """mère père fille fils frère sœur femme mari enfant petit-fils petite-fille
    grand-mère grand-père oncle tante cousin cousine neveu nièce ami amie voisin voisine
    collègue belle-fille gendre beau-frère belle-sœur copain copine filleul filleule
    parrain marraine compagnon compagne bébé petits-enfants parents grands-parents
    enfants"""
)
ROLES = _words(
    """médecin docteur infirmière infirmier orthophoniste kinésithérapeute pharmacien
    pharmacienne dentiste boulanger boulangère boucher bouchère facteur chauffeur vendeur
    vendeuse coiffeur coiffeuse serveur serveuse professeur patron directeur directrice
    secrétaire plombier électricien garagiste chirurgien cardiologue neurologue
    psychologue voisin gardien gardienne caissière caissier policier pompier maire
    curé jardinier cuisinier cuisinière banquier notaire avocat vétérinaire
    ambulancier kiné aide-soignante éducatrice animateur animatrice"""
)
NAMES_M = _words(
    """Paul Pierre Jean Louis Lucas Thomas Nicolas Antoine Hugo Michel Jacques Philippe
    Alain Bernard André Daniel François Henri Julien Marc Patrick Robert Vincent Éric
    Olivier Laurent Christophe Sébastien Mathieu Yves Gérard Claude Maxime Léo Gabriel
    Raphaël Arthur Jules Karim Mehdi Youssef Ahmed Mamadou Luc Denis Serge Didier"""
)
NAMES_F = _words(
    """Marie Sophie Julie Emma Claire Isabelle Camille Léa Chloé Monique Nathalie
    Catherine Anne Françoise Sylvie Christine Martine Nicole Valérie Sandrine Céline
    Élodie Aurélie Manon Inès Alice Louise Jeanne Lucie Sarah Laura Pauline Hélène
    Brigitte Annie Jacqueline Odile Fatima Amina Yasmine Nadia Leïla Aïcha Agnès Colette"""
)

FOOD_MASS = _words(
    """pain fromage jambon beurre confiture salade soupe potage poulet viande poisson riz
    sucre sel poivre chocolat yaourt compote
    purée miel moutarde huile vinaigre crème farine raisin melon pastèque jambon pâté
    saumon thon porc bœuf veau agneau dinde canard lapin gratin couscous semoule
    mayonnaise ketchup chou brocoli épinard ail persil basilic ragoût taboulé quiche
    omelette tarte gâteau"""
)
FOOD_COUNT = _words(
    """baguette croissant pomme banane orange poire fraise cerise tomate carotte
    courgette aubergine oignon champignon œuf steak saucisse gâteau tarte biscuit
    sandwich pizza crêpe glace citron abricot pêche prune ananas kiwi concombre radis
    poireau avocat mangue clémentine mandarine noix noisette amande brioche
    madeleine éclair croque-monsieur hamburger escalope côtelette sardine crevette
    moule huître artichaut navet betterave poivron haricot lentille petit-pois
    bonbon sucette cornichon olive figue datte framboise myrtille"""
)
MEALS = _words("petit-déjeuner déjeuner dîner goûter repas dessert apéritif entrée plat")

# Places reached with "à" + article.
PLACES = _words(
    """boulangerie pharmacie marché supermarché hôpital poste banque gare mairie église
    école piscine parc jardin cinéma théâtre musée restaurant café bibliothèque plage
    montagne campagne mer magasin boucherie épicerie cabinet cimetière stade
    laboratoire clinique aéroport hôtel bureau travail maison lycée université port
    garage zoo concert match mariage marché mosquée synagogue temple salon
    boulodrome gymnase centre kiosque banque station arrêt quai pressing
    cordonnerie fleuriste librairie papeterie quincaillerie laverie brasserie
    crèche collège hospice village ville"""
)
# Shops named after the person ("chez le coiffeur").
CHEZ = _words(
    """médecin dentiste coiffeur boulanger boucher pharmacien docteur kiné
    orthophoniste notaire garagiste fleuriste opticien vétérinaire cardiologue"""
)
ROOMS = _words(
    """cuisine chambre salon garage jardin cave grenier couloir entrée bureau placard
    tiroir armoire voiture sac poche frigo réfrigérateur boîte valise salle buffet
    commode panier cartable coffre"""
)
CLOTHES = _words(
    """pantalon chemise pull veste manteau robe jupe chaussure chaussette chapeau
    écharpe gant montre ceinture pyjama blouson imperméable bonnet cravate sandale
    pantoufle collier bague casquette short maillot gilet tablier costume foulard
    bracelet boucle-d'oreille chemisier débardeur parka"""
)
BODY = _words(
    """tête dos ventre bras jambe pied main genou épaule cou gorge dent œil oreille nez
    bouche cœur poitrine hanche cheville poignet doigt coude estomac peau front
    hanche mollet talon orteil lèvre langue joue menton nuque poumon rein foie"""
)
OBJECTS = _words(
    """clé téléphone portable lunettes livre journal lettre stylo crayon papier cahier
    sac valise parapluie portefeuille porte-monnaie argent carte billet ticket verre
    tasse assiette bol couteau fourchette cuillère casserole poêle bouteille chaise
    table lit fauteuil canapé lampe télévision radio ordinateur tablette photo
    tableau miroir serviette savon brosse peigne dentifrice médicament pilule
    comprimé ordonnance pansement thermomètre canne fenêtre porte rideau couverture
    oreiller drap horloge réveil calendrier agenda cadeau fleur plante vase bougie
    jouet ballon vélo voiture balai aspirateur poubelle linge four micro-ondes
    cafetière bouilloire robinet douche baignoire lavabo télécommande chargeur
    enveloppe timbre colis facture chéquier carnet magazine dictionnaire
    bouquet panier chariot radiateur chauffage ventilateur climatiseur ampoule
    interrupteur prise câble écran clavier souris imprimante appareil
    déambulateur béquille fauteuil-roulant sonnette interphone boîte-aux-lettres
    ciseaux aiguille fil bouton tapis coussin nappe torchon éponge seau tiroir
    étagère bibliothèque armoire matelas couette radio journal mouchoir télé
    ciseaux clés pull"""
)
# Pets and farm animals: patients talk about their dog as often as about their son.
ANIMALS = _words(
    """chien chat chaton chiot oiseau poisson lapin cheval perruche canari hamster
    tortue poule vache cochon mouton chèvre âne canard"""
)
CITIES = _words(
    """Paris Marseille Lyon Toulouse Nice Nantes Strasbourg Montpellier Bordeaux Lille
    Rennes Reims Toulon Grenoble Dijon Angers Nîmes Brest Limoges Tours Amiens Metz
    Perpignan Orléans Rouen Caen Nancy Avignon Poitiers Pau Bayonne Lourdes Vichy
    Annecy Chartres Besançon Clermont-Ferrand Saint-Étienne Le-Havre Cannes Calais"""
)
# Nouns pyrealb lacks, added to its lexicon as (gender, inflection table); "nI" is
# invariable. Without them these everyday words never reached the corpus.
EXTRA_LEXICON = {
    "pull": ("m", "n3"),
    "steak": ("m", "n3"),
    "copine": ("f", "n17"),
    "portable": ("m", "n3"),
    "week-end": ("m", "n3"),
    "petit-déjeuner": ("m", "n3"),
    "kiné": ("m", "n3"),
    "micro-ondes": ("m", "nI"),
    "ketchup": ("m", "n3"),
    "taboulé": ("m", "n3"),
    "short": ("m", "n3"),
    "parka": ("f", "n17"),
    "pressing": ("m", "n3"),
    "aide-soignante": ("f", "n17"),
    "scrabble": ("m", "n3"),
    "petits-enfants": ("m", "nI"),
    "grands-parents": ("m", "nI"),
    "hamburger": ("m", "n3"),
    "déambulateur": ("m", "n3"),
}
# Pluralia tantum and nouns patients use in the plural: word -> singular lemma.
PLURAL_ONLY = {
    "lunettes": "lunette",
    "vacances": "vacance",
    "ciseaux": "ciseau",
    "toilettes": "toilette",
    "échecs": "échec",
    "dames": "dame",
    "petits-enfants": "petits-enfants",
    "grands-parents": "grands-parents",
    "parents": "parent",
    "enfants": "enfant",
    "clés": "clé",
}
TRANSPORT = _words("bus train métro tramway taxi avion bateau car ambulance navette")
VEHICLES_EN = _words("voiture bus train métro tramway taxi avion bateau vélo car")
TOPICS = _words(
    """famille travail vacances santé match film voyage week-end politique temps météo
    projet problème rendez-vous anniversaire fête livre maladie traitement opération
    accident retraite jardin émission concert mariage enfance passé avenir quartier
    village régime exercice séance rééducation examen résultat prix loyer facture
    voisin repas recette chanson spectacle élection grève"""
)
ACTIVITIES_JOUER = _words(
    "carte pétanque football tennis échecs dames belote loto scrabble domino golf rugby"
)
# (verb, article, noun) chunks for "faire" and friends: the light-verb idioms patients use.
FAIRE_CHUNKS = (
    ("le", "course", "p"),
    ("le", "cuisine", "s"),
    ("le", "ménage", "s"),
    ("le", "vaisselle", "s"),
    ("un", "promenade", "s"),
    ("un", "sieste", "s"),
    ("du", "sport", "s"),
    ("du", "vélo", "s"),
    ("du", "gymnastique", "s"),
    ("du", "jardinage", "s"),
    ("le", "lessive", "s"),
    ("un", "gâteau", "s"),
    ("un", "exercice", "p"),
    ("le", "lit", "s"),
    ("un", "pause", "s"),
    ("un", "erreur", "s"),
    ("un", "prise", "s"),
    ("un", "radio", "s"),
    ("un", "piqûre", "s"),
    ("du", "bricolage", "s"),
    ("du", "yoga", "s"),
    ("du", "natation", "s"),
    ("un", "effort", "s"),
    ("le", "toilette", "s"),
    ("un", "tour", "s"),
    ("un", "bêtise", "s"),
    ("du", "tricot", "s"),
    ("du", "piano", "s"),
)

# Adjectives for people (with "être") and for things (inside noun phrases).
ADJ_PERSON = _words(
    """fatigué content heureux triste malade inquiet énervé calme prêt seul occupé perdu
    fier déçu surpris stressé épuisé guéri blessé enrhumé nerveux tranquille gentil
    sérieux jaloux amoureux timide patient courageux fort faible mince motivé
    satisfait rassuré désolé pressé libre absent présent marié retraité fâché
    étonné ravi gêné pâle souriant bavard drôle poli sage malheureux angoissé
    découragé content énervé soulagé reposé endormi réveillé affamé assoiffé
    essoufflé courbaturé fiévreux constipé vacciné opéré hospitalisé confus
    distrait prudent généreux curieux attentif impatient"""
)
ADJ_THING = _words(
    """rouge bleu vert jaune noir blanc gris rose neuf nouveau vieux petit grand gros beau
    joli propre sale cassé lourd léger chaud froid bon mauvais délicieux frais cher
    long court large confortable pratique vide plein ouvert fermé mouillé sec doux
    dur facile difficile simple moderne ancien violet orange marron"""
)
# Adjectives French places before the noun (the rest follow it).
PRENOMINAL = frozenset(
    _words("petit grand gros beau joli bon mauvais vieux jeune nouveau long vrai premier dernier")
)

# Hand-tagged time adverbials: "word/TAG" with D=DET, N=NOUN, A=ADJ, P=PREP,
# Adv=ADV, NUM=NUM. Grouped by the tenses they go with.
TIME_PAST = (
    "hier/Adv",
    "hier/Adv soir/N",
    "hier/Adv matin/N",
    "ce/D matin/N",
    "avant-hier/Adv",
    "la/D semaine/N dernière/A",
    "le/D mois/N dernier/A",
    "l'/D année/N dernière/A",
    "lundi/N dernier/A",
    "mardi/N dernier/A",
    "samedi/N dernier/A",
    "dimanche/N dernier/A",
    "il/X y/X a/X deux/NUM jours/N",
    "il/X y/X a/X une/D semaine/N",
    "tout/Adv à/P l'/D heure/N",
    "cette/D nuit/N",
    "ce/D week-end/N",
    "à/P Noël/N",
    "pendant/P les/D vacances/N",
    "hier/Adv après-midi/N",
    "à/P midi/N",
    "dimanche/N",
    "samedi/N",
)
TIME_FUTURE = (
    "demain/Adv",
    "demain/Adv matin/N",
    "après-demain/Adv",
    "ce/D soir/N",
    "cet/D après-midi/N",
    "lundi/N prochain/A",
    "jeudi/N prochain/A",
    "vendredi/N prochain/A",
    "la/D semaine/N prochaine/A",
    "le/D mois/N prochain/A",
    "dans/P deux/NUM jours/N",
    "dans/P une/D heure/N",
    "bientôt/Adv",
    "plus/Adv tard/Adv",
    "tout/Adv à/P l'/D heure/N",
    "ce/D week-end/N",
    "cet/D été/N",
    "à/P Pâques/N",
    "dimanche/N",
    "samedi/N",
    "lundi/N",
    "mercredi/N",
    "demain/Adv soir/N",
    "à/P midi/N",
    "cette/D nuit/N",
)
TIME_PRESENT = (
    "aujourd'hui/Adv",
    "maintenant/Adv",
    "tous/A les/D jours/N",
    "le/D matin/N",
    "le/D soir/N",
    "le/D dimanche/N",
    "souvent/Adv",
    "toujours/Adv",
    "parfois/Adv",
    "chaque/D semaine/N",
    "en/P ce/D moment/N",
    "ce/D matin/N",
    "d'/P habitude/N",
    "le/D mercredi/N",
    "la/D nuit/N",
    "le/D week-end/N",
    "tous/A les/D matins/N",
    "tous/A les/D soirs/N",
    "tous/A les/D dimanches/N",
    "à/P midi/N",
    "l'/D après-midi/N",
    "dimanche/N",
    "samedi/N",
)
TIME_IMPERFECT = (
    "avant/Adv",
    "autrefois/Adv",
    "tous/A les/D étés/N",
    "le/D dimanche/N",
    "à/P l'/D époque/N",
    "chaque/D année/N",
    "souvent/Adv",
    "hier/Adv soir/N",
    "quand/CONJ j'/CLS étais/COP jeune/A",
    "pendant/P les/D vacances/N",
)
