"""Does a correction keep what the patient said? Restoring words is allowed, dropping them is not.

Broca's agrammatism drops function words and leaves verbs unconjugated; a faithful
correction adds words, conjugates verbs, turns a tonic pronoun into a clitic and
repairs deformed words. It does not delete what the patient said. A rewrite that
loses a said word ("il y a trop de monde" -> "il y a trop monde", "toutes les vingt
minutes" -> "aux minutes") is a model error, and the patient would be asked to
repeat a sentence that says something else.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from difflib import SequenceMatcher

from therapy_app.correction.normalize import normalize_text

# Said but never expected in the correction: hesitations.
FILLERS = frozenset({"euh", "heu", "hum", "bah", "ben", "hein"})

# Function words: a correction may swap one for another ("un table" -> "une table",
# "les fleurs est" -> "sont", "sa fait" -> "ça fait"), but not drop one without a
# replacement ("trop de monde" -> "trop monde").
FUNCTION_WORDS = frozenset(
    "le la les l un une des du de d au aux à a en et est sont ont on ou où y ce c ça sa "
    "son ses mon ma mes ton ta tes notre nos votre vos leur leurs je j tu il elle ils "
    "elles nous vous me m te t se s ne n que qu qui pour par sur dans avec chez".split()
)
# Subject pronouns that a correction may drop: left dislocation ("ma voisine elle est
# gentille" -> "ma voisine est gentille") is spoken French, not a said content word.
OPTIONAL = frozenset({"il", "elle", "ils", "elles", "on", "ça"})

# What a said word may legitimately become. Tonic pronouns turn into clitics
# ("moi mal dos" -> "j'ai mal au dos"), "pas" gains "ne", and the most frequent
# irregular verbs change stem when conjugated ("aller" -> "vais", "irai"). Any two
# forms of one group match each other ("allez" said, "vais" written).
_GROUPS: tuple[tuple[str, ...], ...] = (
    ("moi", "je", "j", "me", "m"),
    ("toi", "tu", "te", "t"),
    ("lui", "il", "le", "la", "l", "y"),
    ("eux", "ils", "les"),
    ("pas", "ne", "n", "non", "jamais", "rien", "plus", "personne"),
    ("aller", "vais", "vas", "va", "allons", "allez", "vont", "irai", "iras", "ira", "irons",
     "irez", "iront", "allé", "allée", "allés", "allées", "aille", "aillent", "irais",
     "irait", "allait", "allais"),
    ("être", "suis", "es", "est", "sommes", "êtes", "sont", "serai", "sera", "seront",
     "étais", "était", "étaient", "été", "sois", "soit", "serais", "serait"),
    ("avoir", "ai", "as", "a", "avons", "avez", "ont", "aurai", "aura", "auront", "avais",
     "avait", "avaient", "eu", "aie", "ait", "aurais", "aurait"),
    ("faire", "fais", "fait", "faisons", "faites", "font", "ferai", "fera", "feront",
     "faisais", "faisait", "fasse"),
    ("pouvoir", "peux", "peut", "pouvons", "pouvez", "peuvent", "pourrai", "pourra", "pu",
     "pouvais", "pouvait", "puisse", "pourrais", "pourrait"),
    ("vouloir", "veux", "veut", "voulons", "voulez", "veulent", "voudrai", "voudra",
     "voulu", "voulais", "voulait", "voudrais", "voudrait", "veuille"),
    ("savoir", "sais", "sait", "savons", "savez", "savent", "saurai", "saura", "su",
     "savais", "savait", "sache"),
    ("devoir", "dois", "doit", "devons", "devez", "doivent", "devrai", "devra", "dû",
     "devais", "devait", "devrais", "devrait"),
    ("voir", "vois", "voit", "voyons", "voyez", "voient", "verrai", "verra", "vu", "vue",
     "voyais", "voyait"),
    ("venir", "viens", "vient", "venons", "venez", "viennent", "viendrai", "viendra",
     "viendront", "venu", "venue", "venus", "venues", "venais", "venait", "vienne"),
    ("tenir", "tiens", "tient", "tenons", "tenez", "tiennent", "tiendra", "tenu"),
    ("lire", "lis", "lit", "lisons", "lisez", "lisent", "lirai", "lira", "lu", "lisait"),
    ("dire", "dis", "dit", "disons", "dites", "disent", "dirai", "dira", "disait"),
    ("prendre", "prends", "prend", "prenons", "prenez", "prennent", "prendrai", "prendra",
     "pris", "prise", "prenais", "prenait"),
    ("mettre", "mets", "met", "mettons", "mettez", "mettent", "mettrai", "mettra", "mis",
     "mise", "mettait"),
    ("falloir", "faut", "faudra", "fallu", "fallait", "faudrait"),
    ("boire", "bois", "boit", "buvons", "buvez", "boivent", "bu", "buvais", "buvait"),
    ("naître", "né", "née", "nés", "nées", "nais", "naît"),
    ("mourir", "meurs", "meurt", "mort", "morte", "mourra"),
)  # fmt: skip
_GROUP_OF: dict[str, set[int]] = {}
for _index, _group in enumerate(_GROUPS):
    for _form in _group:
        _GROUP_OF.setdefault(_form, set()).add(_index)


@dataclass(frozen=True)
class Preservation:
    """How a correction treats the words said.

    Attributes:
        kept: True when every said word (fillers and immediate repeats aside) has
            a counterpart in the correction.
        lost: the said words without one, in order.
    """

    kept: bool
    lost: tuple[str, ...]


def fold(word: str) -> str:
    """Lowercase without accents: "Évier" and "evier" match, "boulanzerie" stays itself."""
    decomposed = unicodedata.normalize("NFD", word.lower())
    return "".join(c for c in decomposed if unicodedata.category(c) != "Mn")


def words(text: str) -> list[str]:
    """Words of a text, elisions and hyphens split ("j'ai" -> "j", "ai"; "as-tu")."""
    return normalize_text(text).replace("'", " ").replace("-", " ").split()


def _said(source: str) -> list[str]:
    """Said words that must survive: no fillers, a repeated start ("mon chien mon chien") once."""
    out: list[str] = []
    for word in words(source):
        if word in FILLERS:
            continue
        out.append(word)
        for n in (1, 2, 3):
            if len(out) >= 2 * n and out[-n:] == out[-2 * n : -n]:
                del out[-n:]
                break
    return out


def _similar(said: str, written: str) -> bool:
    """Same word, a conjugation or agreement of it, or a repaired deformation of it."""
    a, b = fold(said), fold(written)
    if a == b:
        return True
    if min(len(a), len(b)) >= 3 and a[:3] == b[:3]:
        return True  # manger/mange/mangé, petit/petite, boulanger/boulangère
    # A deformed word (boulanzerie, chapo) is still most of the word it was meant to be.
    return len(a) >= 4 and SequenceMatcher(None, a, b).ratio() >= 0.7


def same_word(said: str, written: str) -> bool:
    """A form of the same word: conjugated, agreed, repaired, or a clitic for a tonic pronoun.

    Both words as :func:`words` splits them ("j'ai" is "j" and "ai").
    """
    if _similar(said, written):
        return True
    return bool(_GROUP_OF.get(said, set()) & _GROUP_OF.get(written, set()))


def _matches_function(said: str, written: str) -> bool:
    """One function word swapped for another (agreement, contraction, spelling)."""
    return said in FUNCTION_WORDS and written in FUNCTION_WORDS


def preservation(source: str, correction: str) -> Preservation:
    """Check that each said word has its own counterpart in ``correction``.

    Each written word serves one said word at most, so "il y a trop de monde" ->
    "il y a trop monde" loses "de": each other function word is already taken.
    """
    written = words(correction)
    said = _said(source)
    free = set(range(len(written)))
    pending = list(range(len(said)))
    # Exact forms first, then conjugations and repairs, then function-word swaps,
    # so that a swap never takes a word that another said word needs as it is.
    for accept in (str.__eq__, same_word, _matches_function):
        still = []
        for k in pending:
            match = next((i for i in sorted(free) if accept(said[k], written[i])), None)
            if match is None:
                still.append(k)
            else:
                free.discard(match)
        pending = still
    lost = tuple(said[k] for k in pending if said[k] not in OPTIONAL)
    return Preservation(not lost, lost)
