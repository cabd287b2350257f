"""Agrees first-person sentences with the speaker's gender ("je suis allé" / "je suis allée").

Only what agrees with a first-person subject through être (or a verb of the
same kind) changes: "je suis / j'étais / je serai / j'ai été / je me sens /
je reste + participle or adjective", with negations and a few adverbs between
("je ne suis pas encore prêt"), and adjectives joined by "et" ("content et fier").
Written markers "allé(e)", "heureux(se)" and "prêt·e" are resolved too.

Conservative beats clever: a word is changed only when both its forms are in
the Lexique word list and one of them is an adjective or a verb there; an
unknown word stays as written. "j'ai mangé" (avoir), "il est allé" (not first
person), "je suis malade" (no feminine form of its own) never change. After a
reflexive "je me suis", the participle agrees only when nothing that may be
its object follows ("je me suis levée tôt", but "je me suis cassé la jambe").

``Gender.UNSAID`` never invents a gender: the sentence comes back exactly as
written, "(e)" markers included, so the therapist's "allé(e)" still shows
that the form varies.
"""

from __future__ import annotations

import functools
import gzip
import re
from dataclasses import dataclass

from therapy_app.correction.grammar_cues import french_forms
from therapy_app.paths import resources_dir
from therapy_app.phrases.model import Gender

LEXICON = ("lexicon", "fr-phon.tsv.gz")
"""Frequent Lexique forms with their grammatical category (``therapy_app.naming.sound_alikes``)."""

# Feminine forms no suffix rule below finds (or finds wrongly).
_IRREGULAR: dict[str, str] = {
    "beau": "belle", "nouveau": "nouvelle", "vieux": "vieille", "fou": "folle",
    "mou": "molle", "gentil": "gentille", "frais": "fraîche", "blanc": "blanche",
    "franc": "franche", "sec": "sèche", "long": "longue", "doux": "douce",
    "faux": "fausse", "roux": "rousse", "jaloux": "jalouse", "malin": "maligne",
    "favori": "favorite", "gros": "grosse", "bas": "basse", "las": "lasse",
    "gras": "grasse", "épais": "épaisse", "sot": "sotte", "muet": "muette",
    "nul": "nulle", "bon": "bonne", "inquiet": "inquiète", "complet": "complète",
    "discret": "discrète", "secret": "secrète", "prêt": "prête", "content": "contente",
    "heureux": "heureuse", "fier": "fière", "cher": "chère", "bref": "brève",
    "public": "publique", "grec": "grecque", "aigu": "aiguë", "ambigu": "ambiguë",
}  # fmt: skip
_MASCULINE_OF = {feminine: masculine for masculine, feminine in _IRREGULAR.items()}

# (masculine ending, feminine ending), tried in order before the plain "+e".
_SUFFIXES = (
    ("eux", "euse"), ("if", "ive"), ("ier", "ière"), ("er", "ère"), ("et", "ette"),
    ("et", "ète"), ("el", "elle"), ("eil", "eille"), ("ien", "ienne"), ("on", "onne"),
    ("en", "enne"), ("teur", "trice"), ("eur", "euse"), ("eur", "eure"),
)  # fmt: skip

_SUBJECT = frozenset({"je", "j"})
_NEGATION = frozenset({"ne", "n"})
_REFLEXIVE = frozenset({"me", "m"})
_ETRE = frozenset({"suis", "étais", "serai", "serais", "fus", "sois", "fusse"})
_AVOIR = frozenset({"ai", "avais", "aurai", "aurais", "eus", "aie"})
_SENTIR = frozenset({"sens", "sentais", "sentirai", "sentirais", "sente"})  # "je me sens"
_RESTER = frozenset(
    {"reste", "restais", "resterai", "resterais", "deviens", "devenais", "deviendrai"}
)
# Between the verb and the word that agrees: "je ne suis pas encore prêt".
_ADVERBS = frozenset(
    {"pas", "plus", "jamais", "point", "très", "trop", "bien", "si", "tellement", "vraiment",
     "encore", "déjà", "toujours", "assez", "aussi", "vite", "enfin", "peut-être", "presque",
     "complètement", "totalement", "super"}
)  # fmt: skip
_COORDINATION = frozenset({"et", "ou", "mais", "puis"})
# What may follow a reflexive participle that still agrees: nothing that can
# be its direct object ("je me suis lavé les mains" keeps "lavé").
_AFTER_REFLEXIVE = frozenset(
    {"à", "au", "aux", "avec", "chez", "dans", "en", "sur", "sous", "pour", "par", "vers",
     "près", "loin", "depuis", "pendant", "jusqu", "jusque", "devant", "derrière", "contre",
     "après", "avant", "tôt", "tard", "hier", "vite", "bien", "mal", "encore", "aussi",
     "ensuite", "très", "trop", "et", "mais", "puis", "quand", "parce", "car", "comme",
     "ici", "là", "dehors", "aujourd", "maintenant", "seul", "seule"}
)  # fmt: skip
_TIME_AFTER_DETERMINER = frozenset(
    {"matin", "soir", "midi", "nuit", "semaine", "année", "fois", "week-end", "après-midi"}
)
_NEVER_AGREES_REFLEXIVE = frozenset({"fait", "faite", "laissé", "laissée"})
_ATTRIBUTE_CATEGORIES = frozenset({"ADJ", "VER"})

_WORD = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*")
# "allé(e)", "heureux(se)", "fier(ère)", "prêt·e" (inclusive writing's middle dot).
_MARKER = re.compile(r"([^\W\d_]+)(?:\(([^\W\d_]{1,5})\)|[·•‧]([^\W\d_]{1,5})\b)")
_BOUNDARY = re.compile(r"[.,;:!?()\[\]«»\"…—–]")


@dataclass(frozen=True)
class _Token:
    start: int
    end: int
    lower: str


@functools.cache
def _categories() -> dict[str, str]:
    """Lexique's category of each frequent form ("allé" -> "VER")."""
    path = resources_dir().joinpath(*LEXICON)
    found: dict[str, str] = {}
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        for line in handle:
            if not line.startswith("#"):
                text, _phon, category, _frequency = line.rstrip("\n").split("\t")
                found[text] = category
    return found


def _is_attribute(word: str) -> bool:
    return _categories().get(word) in _ATTRIBUTE_CATEGORIES


def _feminine_candidates(word: str) -> list[str]:
    if word in _IRREGULAR:
        return [_IRREGULAR[word]]
    found = [word[: -len(m)] + f for m, f in _SUFFIXES if word.endswith(m) and len(word) > len(m)]
    return [*found, word + "e"]


def feminine(word: str) -> str | None:
    """The feminine of a masculine adjective or participle (lowercase), or None.

    None for a word whose feminine is itself ("malade"), a feminine form
    ("allée"), or a word this module does not know well enough.
    """
    if not word or word.endswith("e") or word not in french_forms():
        return None
    forms = french_forms()
    for candidate in _feminine_candidates(word):
        if candidate in forms and (
            _is_attribute(word)
            or _is_attribute(candidate)
            # A rare participle in -é: "hospitalisé" -> "hospitalisée".
            or (word.endswith("é") and word not in _categories())
        ):
            return candidate
        if candidate in forms:
            return None  # the first existing form is the feminine: not an attribute
    return None


def masculine(word: str) -> str | None:
    """The masculine of a feminine adjective or participle (lowercase), or None."""
    if word in _MASCULINE_OF:
        return _MASCULINE_OF[word]
    if not word.endswith("e") or word.endswith("é"):
        return None
    forms, categories = french_forms(), _categories()
    candidates = [word[: -len(f)] + m for m, f in _SUFFIXES if word.endswith(f)]
    for candidate in [*candidates, word[:-1]]:
        if candidate not in forms or feminine(candidate) != word:
            continue
        if (
            _is_attribute(candidate)
            or (_is_attribute(word) and candidate in categories)
            or (word.endswith("ée") and candidate not in categories)
        ):
            return candidate
    return None


def _with_case(word: str, model: str) -> str:
    if model.isupper() and len(model) > 1:
        return word.upper()
    if model[:1].isupper():
        return word[:1].upper() + word[1:]
    return word


def _resolve_markers(text: str, gender: Gender) -> str:
    def resolve(match: re.Match[str]) -> str:
        stem = match.group(1)
        ending = (match.group(2) or match.group(3)).lower()
        if gender is Gender.MASCULINE:
            return stem
        found = feminine(stem.lower())
        if found is not None and found.endswith(ending):
            return _with_case(found, stem)
        if ending == "e":
            return stem + ("E" if stem.isupper() and len(stem) > 1 else "e")
        return match.group(0)  # "heureux(zz)": left as the author wrote it

    return _MARKER.sub(resolve, text)


def _tokens(text: str) -> list[_Token]:
    flat = text.replace("’", "'")
    return [_Token(m.start(), m.end(), m.group(0).lower()) for m in _WORD.finditer(flat)]


class _Agreement:
    """One pass over a sentence's words, collecting the replacements."""

    def __init__(self, text: str, gender: Gender) -> None:
        self.text = text
        self.gender = gender
        self.tokens = _tokens(text)
        self.changes: dict[int, str] = {}  # token index -> new word

    def word(self, index: int) -> str:
        return self.tokens[index].lower if index < len(self.tokens) else ""

    def joined(self, left: int, right: int) -> bool:
        """True when no punctuation separates tokens ``left`` and ``right``."""
        if right >= len(self.tokens):
            return False
        gap = self.text[self.tokens[left].end : self.tokens[right].start]
        return _BOUNDARY.search(gap) is None

    def convert(self, word: str) -> str | None:
        if self.gender is Gender.FEMININE:
            return feminine(word)
        return masculine(word)

    def attribute_start(self, subject: int) -> tuple[int, bool] | None:
        """Where the agreeing word of the clause opened by "je" at ``subject`` is."""
        i = subject + 1
        if self.word(i) in _NEGATION:
            i += 1
        reflexive = self.word(i) in _REFLEXIVE
        if reflexive:
            i += 1
        verb = self.word(i)
        if verb in _ETRE or (reflexive and verb in _SENTIR) or (not reflexive and verb in _RESTER):
            i += 1
        elif verb in _AVOIR and not reflexive:
            i += 1
            while self.word(i) in _ADVERBS:
                i += 1
            if self.word(i) != "été":
                return None
            i += 1
        else:
            return None
        # "je me sens" and "je me suis levée" agree; the object check is for "me suis" only.
        return i, reflexive and verb in _ETRE

    def skip_adverbs(self, i: int) -> int:
        while True:
            if self.word(i) in _ADVERBS:
                i += 1
            elif self.word(i) == "un" and self.word(i + 1) == "peu":
                i += 2
            else:
                return i

    def object_may_follow(self, i: int) -> bool:
        """For "je me suis <participle>": True when the next words may be its object."""
        if not self.joined(i, i + 1):
            return False  # end of sentence or punctuation
        after = self.word(i + 1)
        if after in ("ce", "cette", "cet"):
            return self.word(i + 2) not in _TIME_AFTER_DETERMINER
        return after not in _AFTER_REFLEXIVE

    def agree_at(self, i: int) -> bool:
        """Agree token ``i``; True when it is an attribute (changed or invariable)."""
        word = self.word(i)
        new = self.convert(word)
        if new is not None:
            self.changes[i] = new
            return True
        return _is_attribute(word)

    def clause(self, subject: int) -> None:
        start = self.attribute_start(subject)
        if start is None:
            return
        i, reflexive = start
        i = self.skip_adverbs(i)
        if i >= len(self.tokens) or not all(self.joined(k, k + 1) for k in range(subject, i)):
            return
        tout = None
        if self.word(i) in ("tout", "toute") and self.joined(i, i + 1):
            tout, i = i, i + 1  # "tout seul" / "toute seule"
        if reflexive and (self.word(i) in _NEVER_AGREES_REFLEXIVE or self.object_may_follow(i)):
            return
        if not self.agree_at(i):
            return
        if tout is not None and i in self.changes:
            # "toute" before a feminine word starting with a consonant ("toute seule").
            consonant = self.changes[i][:1] not in "aeiouyhéèêàâîôû"
            wanted = "toute" if self.gender is Gender.FEMININE and consonant else "tout"
            if wanted != self.word(tout):
                self.changes[tout] = wanted
        # "je suis content et fier": the next attributes after "et" agree too.
        while self.word(i + 1) in _COORDINATION and self.joined(i, i + 1):
            nxt = self.skip_adverbs(i + 2)
            if nxt >= len(self.tokens) or not self.joined(i + 1, nxt):
                return
            if reflexive and (
                self.word(nxt) in _NEVER_AGREES_REFLEXIVE or self.object_may_follow(nxt)
            ):
                return
            if self.convert(self.word(nxt)) is None and not _is_attribute(self.word(nxt)):
                return
            self.agree_at(nxt)
            i = nxt

    def result(self) -> str:
        for index, token in enumerate(self.tokens):
            if token.lower in _SUBJECT:
                self.clause(index)
        out = self.text
        for index in sorted(self.changes, reverse=True):
            token = self.tokens[index]
            new = _with_case(self.changes[index], out[token.start : token.end])
            out = out[: token.start] + new + out[token.end :]
        return out


def agree(text: str, gender: Gender) -> str:
    """First-person sentence agreed with the speaker's gender ("Je suis allé(e)…").

    Args:
        text: a sentence (a proposal, a phrase-book sentence, a script line).
        gender: the speaker's gender; ``Gender.UNSAID`` returns ``text`` as it is.

    Returns:
        The sentence with its first-person attributes in ``gender`` and its
        "(e)" markers resolved; everything else exactly as written.
    """
    gender = Gender(gender)
    if gender is Gender.UNSAID or not text:
        return text
    resolved = _resolve_markers(text, gender)
    return _Agreement(resolved, gender).result()
