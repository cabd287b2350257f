"""Plain signs that an utterance is not grammatical French, so it is not kept as it is.

The corrector keeps the patient's words unchanged when its model finds them
nearly as likely as its best rewrite (``keep_margin``). On almost-correct input
("les enfants est partis", "j'ai oublié mon parapuie") the model hesitates and
the unchanged words won, although its second choice was the right sentence.
These cues are deliberately few and precise: each one is an error no correct
sentence of the hand-written dev sets shows, so a correct sentence is still
kept (the cue only stops the keep; the unchanged input stays offered).
"""

from __future__ import annotations

import functools
import gzip
import re
from dataclasses import dataclass

from therapy_app import paths
from therapy_app.correction.input_check import FILLERS, is_known, known_words

# Every word form of Lexique 3.83 (``python -m models.corrector.forms``).
FORMS = ("lexicon", "fr-forms.txt.gz")

# A subject clitic directly followed by an infinitive or a bare past participle
# ("il manger", "je tombé") is never French. Object pronouns (nous, vous, le…)
# are left out: "pour nous aider" is correct.
_SUBJECT_CLITICS = frozenset({"je", "j", "tu", "il", "elle", "on", "ils", "elles"})
# Words in -er/-é that may follow a subject clitic in a correct sentence.
_NOT_VERBS = frozenset(
    {"hier", "cher", "fier", "premier", "dernier", "léger", "entier", "mer", "amer", "hiver",
     "fer", "ver", "super", "été", "thé", "café", "bébé", "cé", "né", "clé", "côté", "santé",
     "aîné", "aînée", "aussi", "déjà"}
)  # fmt: skip
# Third-person singular forms that a plural determiner's noun phrase cannot take.
_SINGULAR_VERBS = frozenset(
    {"est", "a", "va", "fait", "peut", "veut", "doit", "sait", "vient", "prend", "dit",
     "part", "sort", "dort", "boit", "met", "voit"}
)  # fmt: skip
_CLITICS_AND_RELATIVES = frozenset(
    {"je", "j", "tu", "il", "elle", "on", "ils", "elles", "ce", "c", "qui", "que", "qu", "y",
     "en", "ne", "n", "se", "s", "me", "m", "te", "t", "lui", "leur", "nous", "vous", "et",
     "ou", "mais", "quand", "si"}
)  # fmt: skip
_PLURAL_DETERMINERS = frozenset({"les", "des", "mes", "tes", "ses", "nos", "vos", "leurs", "ces"})
# A tonic pronoun opening an utterance is fine before these ("moi je…", "moi aussi").
_AFTER_TONIC_OK = frozenset(
    {"je", "j", "tu", "aussi", "non", "même", "et", "ou", "qui", "seul", "seule", "ça", "c",
     "d", "le", "la", "les", "si", "pas", "plus", "merci", "oui"}
)  # fmt: skip
_TOKEN = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*", re.UNICODE)


@dataclass(frozen=True)
class Cue:
    """One reason to think the utterance is not correct as it is.

    Attributes:
        kind: "deformed_word", "bare_verb_after_subject", "plural_subject_singular_verb"
            or "tonic_subject".
        word: the word that shows it.
    """

    kind: str
    word: str


def _tokens(text: str) -> list[str]:
    words = _TOKEN.findall(text.lower().replace("’", "'"))
    return [w for w in words if w not in FILLERS]


@functools.cache
def french_forms() -> frozenset[str]:
    """The word forms of Lexique 3.83, lowercase and letters only (about 122,000)."""
    path = paths.resources_dir().joinpath(*FORMS)
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        return frozenset(line.strip() for line in handle if line.strip() and line[0] != "#")


def _deformed(word: str) -> bool:
    """No French word form, but close to a word the corrector knows: a sound paraphasia.

    The corrector's own words include the names it was trained on ("lyon"); other
    names and foreign words are not close to a known word, so they are left alone.
    """
    if len(word) < 4 or word in known_words():
        return False
    # Lexique writes the ligatures out ("soeur").
    plain = word.replace("œ", "oe").replace("æ", "ae")
    return plain not in french_forms() and is_known(word)


# Infinitives in -re that are never also a present form ("il entre", "je montre" are).
_RE_INFINITIVES = frozenset(
    "être faire prendre boire dire lire écrire mettre vivre suivre croire attendre vendre "
    "descendre répondre entendre perdre comprendre apprendre rendre connaître conduire "
    "plaire rire battre éteindre peindre".split()
)


def _bare_verb(word: str) -> bool:
    if word in _RE_INFINITIVES:
        return True
    if len(word) < 4 or word in _NOT_VERBS:
        return False
    # -ir and -oir ("il pleuvoir", "je partir"): no present form ends so after a subject.
    if word.endswith(("er", "é", "ir", "oir")):
        return True
    # A bare participle in -i or -u ("elle parti", "je perdu"), known by its infinitive;
    # "il lui", "elle aussi" have none.
    if word.endswith("i"):
        return word + "r" in french_forms()
    return word.endswith("u") and any(
        word[:-1] + end in french_forms() for end in ("re", "ir", "oir")
    )


def find_cues(text: str) -> list[Cue]:
    """Every cue found in ``text`` (lowercase or not, punctuation ignored)."""
    words = _tokens(text)
    cues = [Cue("deformed_word", w) for w in words if any(map(_deformed, w.split("-")))]
    for i, (left, right) in enumerate(zip(words, words[1:], strict=False)):
        if left in _SUBJECT_CLITICS and _bare_verb(right):
            cues.append(Cue("bare_verb_after_subject", right))
        if left in _PLURAL_DETERMINERS:
            # "les enfants est", "les petits enfants est"; not "ces jours-ci il fait".
            after = words[i + 2 : i + 4]
            if after and after[0] not in _CLITICS_AND_RELATIVES:
                verb = next((w for w in after if w in _SINGULAR_VERBS), None)
                if verb is not None and words[i + 1] not in _SINGULAR_VERBS:
                    cues.append(Cue("plural_subject_singular_verb", verb))
    if len(words) >= 2 and words[0] in {"moi", "toi"} and words[1] not in _AFTER_TONIC_OK:
        cues.append(Cue("tonic_subject", words[0]))
    return cues


def looks_ungrammatical(text: str) -> bool:
    """At least one cue: the unchanged input should not be the first choice."""
    return bool(find_cues(text))
