"""Curated French closed-class (function) words, elided forms and fillers for the metrics.

Source: compiled by hand for this project from the closed grammatical classes
described in reference grammars of French (e.g. Riegel, Pellat & Rioul,
*Grammaire méthodique du français*: articles and other determiners,
prepositions, conjunctions, pronouns) plus every simple form of the
auxiliaries *être* and *avoir* and the negation particles. It is not extracted
from a tagged lexicon. Deliberate choices, so that the ratio stays comparable
between sessions:

* cardinal numbers are NOT function words (they carry content in therapy
  exercises: "trois pommes");
* ambiguous content/function words are left out ("personne", "point",
  "autre", "même"); "plus" is in (negation "ne ... plus" and degree adverb);
* auxiliary forms are in even when used as full verbs ("il a un chien"): the
  ratio measures grammatical morphology, which Broca's aphasia reduces, and a
  tagger-free tokeniser cannot tell the uses apart;
* tokens are lower case, NFC, with the straight apostrophe ``'``; elided forms
  keep their apostrophe ("l'", "qu'") because the tokeniser splits them off.

Change the lists only with a note in the changelog: stored ratios were computed
with the list of their time.
"""

from __future__ import annotations

ARTICLES: frozenset[str] = frozenset("le la les l' un une des du de d' au aux".split())

DETERMINERS: frozenset[str] = frozenset(
    # possessive
    "mon ma mes ton ta tes son sa ses notre nos votre vos leur leurs "
    # demonstrative
    "ce cet cette ces "
    # interrogative / exclamative
    "quel quelle quels quelles "
    # indefinite and quantifying
    "chaque plusieurs quelque quelques aucun aucune nul nulle tout toute tous toutes "
    "certains certaines".split()
)

PREPOSITIONS: frozenset[str] = frozenset(
    "à de d' en dans par pour sur sous avec sans chez vers entre contre depuis "
    "pendant avant après devant derrière parmi selon malgré envers jusque jusqu' "
    "dès hors outre via près auprès durant".split()
)

CONJUNCTIONS: frozenset[str] = frozenset(
    # coordinating
    "et ou mais donc or ni car "
    # subordinating (the "que" of "parce que" is counted on its own)
    "que qu' quand comme si s' lorsque lorsqu' puisque puisqu' quoique quoiqu' parce".split()
)

PRONOUNS: frozenset[str] = frozenset(
    # personal subject and object clitics
    "je j' tu il elle on nous vous ils elles me m' te t' se s' le la les lui leur y en "
    # tonic
    "moi toi soi eux "
    # demonstrative
    "ce c' ça cela ceci celui celle ceux celles celui-ci celle-ci ceux-ci celles-ci "
    "celui-là celle-là ceux-là celles-là "
    # relative and interrogative
    "qui que qu' quoi dont où lequel laquelle lesquels lesquelles auquel auxquels "
    "auxquelles duquel desquels desquelles "
    # indefinite
    "rien quelqu'un quelqu'une chacun chacune "
    # possessive
    "mien mienne miens miennes tien tienne tiens tiennes sien sienne siens siennes "
    "nôtre nôtres vôtre vôtres".split()
)

ETRE_FORMS: frozenset[str] = frozenset(
    "être suis es est sommes êtes sont étais était étions étiez étaient "
    "serai seras sera serons serez seront serais serait serions seriez seraient "
    "sois soit soyons soyez soient fus fut fûmes fûtes furent fût été étant".split()
)

AVOIR_FORMS: frozenset[str] = frozenset(
    "avoir ai as a avons avez ont avais avait avions aviez avaient "
    "aurai auras aura aurons aurez auront aurais aurait aurions auriez auraient "
    "aie aies ait ayons ayez aient eus eut eûmes eûtes eurent eût eu eue eues ayant".split()
)

AUXILIARY_FORMS: frozenset[str] = ETRE_FORMS | AVOIR_FORMS

NEGATION_PARTICLES: frozenset[str] = frozenset("ne n' pas plus jamais rien guère".split())

CLOSED_CLASS_WORDS: frozenset[str] = (
    ARTICLES
    | DETERMINERS
    | PREPOSITIONS
    | CONJUNCTIONS
    | PRONOUNS
    | AUXILIARY_FORMS
    | NEGATION_PARTICLES
)
"""Every token counted as a function word by ``metrics.function_word_ratio``."""

ELIDED_PREFIXES: frozenset[str] = frozenset(
    "l' j' d' m' t' s' n' c' ç' qu' jusqu' lorsqu' puisqu' quoiqu'".split()
)
"""Elided forms split off the next word: "l'homme" -> "l'", "homme"."""

ELISION_EXCEPTIONS: frozenset[str] = frozenset(
    "aujourd'hui quelqu'un quelqu'une presqu'île prud'homme prud'hommes "
    "c'est-à-dire entr'ouvert".split()
)
"""Single words written with an apostrophe: never split."""

HYPHEN_CLITICS: frozenset[str] = frozenset(
    "je tu il elle on nous vous ils elles ce moi toi le la les lui leur y en t".split()
)
"""Pronouns attached by a hyphen after a verb ("dit-il", "donne-moi", "a-t-on");
the euphonic "t" is dropped when the token is split."""

FILLERS: frozenset[str] = frozenset("euh heu euhm hum hmm hm mm mmh mhm bah pff".split())
"""Hesitation sounds: not words, excluded from every count (elongated spellings
such as "euuuh" are matched by pattern in ``metrics``)."""
