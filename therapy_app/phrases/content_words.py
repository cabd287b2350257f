"""The words a phrase-book match compares: content words, their lemma key and their sounds."""

# A patient in Broca's aphasia keeps the content words of a message and drops
# the grammar ("moi… café" for "Je voudrais un café."), says verbs in the
# infinitive ("vouloir" for "voudrais") and deforms sounds ("boulanzerie").
# So a heard word is compared with a sentence's content word three ways: the
# same lemma key (an infinitive and its conjugated forms share one), close
# phonemes (Lexique's pronunciation, or a letter-to-sound rule for words it
# lacks), close spelling of the lemma key.

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from therapy_app.analysis import verb_forms
from therapy_app.analysis.closed_class import CLOSED_CLASS_WORDS
from therapy_app.analysis.edit_distance import edit_distance
from therapy_app.analysis.metrics import words
from therapy_app.correction.numbers import spell_numbers
from therapy_app.naming.sound_alikes import form_of

# Function words: articles, pronouns ("moi", said for "je" in telegraphic
# speech), prepositions, auxiliaries, negation (therapy_app.analysis.closed_class).
_NOT_CONTENT = CLOSED_CLASS_WORDS


@dataclass(frozen=True)
class Word:
    """One word as the matcher compares it.

    Attributes:
        text: the word, lower case ("mange").
        key: its lemma key ("mang": the stem shared by "manger", "mange", "mangé").
        phon: its phonemes in Lexique's code, vowel qualities folded ("m@Z").
        lemma_phon: its infinitive's phonemes when it is a known verb form
            ("m@Ze"), else ``phon``: a patient says the infinitive.
    """

    text: str
    key: str
    phon: str
    lemma_phon: str = ""


def sentence_words(text: str) -> list[str]:
    """Lower-case words of ``text``, elisions split, numbers spelt out, fillers dropped."""
    return words(spell_numbers(text).replace("-", " "))


def is_content(word: str) -> bool:
    """True for a word that carries the message (not an article, pronoun, auxiliary...)."""
    return word not in _NOT_CONTENT and not word.endswith("'")


def content_words(text: str) -> list[str]:
    """The content words of ``text`` in order; all its words when it has none ("Ça y est.")."""
    found = sentence_words(text)
    content = [w for w in found if is_content(w)]
    return content or [w for w in found if not w.endswith("'")]


@lru_cache(maxsize=65536)
def word(text: str) -> Word:
    """The comparable forms of one lower-case word (cached: books repeat their words)."""
    phon = phonemes(text)
    infinitive = lemma(text)
    return Word(text, lemma_key(text), phon, phonemes(infinitive) if infinitive != text else phon)


# ----- lemmas ----------------------------------------------------------------
def _irregular_lemmas() -> dict[str, str]:
    # verb_forms' table of irregular verbs (infinitive, present, stems, participles,
    # extra forms) read for their forms -> infinitive.
    lemmas: dict[str, str] = {}
    for infinitive, present, imperfect, future, participles, extra in verb_forms._IRREGULAR:
        forms = [*present.split(), *participles.split(), *extra.split()]
        forms += [imperfect + e for e in verb_forms._IMPERFECT]
        forms += [future + e for e in verb_forms._FUTURE + verb_forms._CONDITIONAL]
        for form in forms:
            lemmas.setdefault(form, infinitive)
    return lemmas


_IRREGULAR = _irregular_lemmas()
# Verb, plural and feminine endings stripped to a stem, longest first; the
# stem keeps at least three letters ("allée", "aller", "allons" -> "all").
_ENDINGS = sorted(
    (
        "eraient erions eriez erais erait erons eront erai eras era erez "
        "aient ions iez ais ait ant ées és ée é er ez ons ent es e s x ir re oir"
    ).split(),
    key=len,
    reverse=True,
)
_ACCENTS = str.maketrans("àâäéèêëîïôöùûüÿç", "aaaeeeeiioouuuyc")


def _stem(text: str) -> str:
    base = _IRREGULAR.get(text, text)
    for ending in _ENDINGS:
        if base.endswith(ending) and len(base) - len(ending) >= 3:
            return base[: -len(ending)]
    return base


def lemma_key(text: str) -> str:
    """A stem shared by the forms of one word: "vais"/"allée"/"aller" -> "all".

    Irregular verbs through the app's verb table, then a suffix rule; accents
    dropped (a transcript may miss them). Over-merging ("porte"/"porter") costs
    little here: the key only says two words may be the same.
    """
    return _stem(text).translate(_ACCENTS)


def lemma(text: str) -> str:
    """The infinitive of a verb form the app knows ("vais" -> "aller", "mange" -> "manger").

    Other words are returned as they are.
    """
    if text in _IRREGULAR:
        return _IRREGULAR[text]
    if text not in verb_forms.VERB_FORMS:
        return text
    stem = _stem(text)
    for ending in ("er", "ir", "re"):
        if stem + ending in verb_forms.VERB_FORMS:
            return stem + ending
    return text


# ----- sounds ----------------------------------------------------------------
# Vowel qualities a recogniser and a speaker with a deformed articulation both
# blur (é/è, o/ò, eu/œ/schwa, in/un): one symbol each.
_FOLD = str.maketrans({"E": "e", "O": "o", "9": "2", "°": "2", "1": "5"})


def phonemes(text: str) -> str:
    """``text``'s phonemes (Lexique's code, vowels folded); a rule's guess for unknown words."""
    form = form_of(text)
    phon = form.phon if form is not None else letters_to_sounds(text)
    return phon.translate(_FOLD)


_VOWELS = "aeiouyàâäéèêëîïôöùûüœ"
# Ordered rules: (pattern, phonemes); the first that matches at a position wins.
# Nasal vowels only before a consonant or at the end ("bon" but "bonne").
_NASAL_END = r"(?=[^aeiouyéèêhmn]|$)"
_RULES: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(p), s)
    for p, s in (
        (r"tion(?=s?$)", "sj§"),
        (r"eaux?", "o"),
        (r"ill(?=e|$)", "ij"),
        (r"(?<=[aeou])il(?=l|$)", "j"),
        (r"oin" + _NASAL_END, "w5"),
        (r"oi|oî|oy", "wa"),
        (r"ou|oû|où", "u"),
        (r"au", "o"),
        (r"[ae]i?[nm]" + _NASAL_END, "@"),
        (r"ien" + _NASAL_END, "j5"),
        (r"eill(?:es?)?|eil$", "Ej"),
        (r"aill(?:es?)?|ail$", "aj"),
        (r"ai|ei|aî|ê|è", "E"),
        (r"[iy][nm]" + _NASAL_END, "5"),
        (r"[ou][nm]" + _NASAL_END, "§"),
        (r"eu|œu|œ", "2"),
        (r"er$|ez$|et$|é", "e"),
        (r"es?$", ""),
        (r"e(?=[^aeiouy][aeiouyé])", "°"),
        (r"e", "E"),
        (r"ch", "S"),
        (r"ph", "f"),
        (r"gn", "N"),
        (r"qu|q", "k"),
        (r"gu(?=[eiy])", "g"),
        (r"g(?=[eiyé])|j", "Z"),
        (r"c(?=[eiyé])|ç", "s"),
        (r"cc|ck|c|k", "k"),
        (r"(?<=[" + _VOWELS + r"])s(?=[" + _VOWELS + r"])", "z"),
        (r"ss", "s"),
        (r"[sxtdpz]$", ""),
        (r"x", "ks"),
        (r"th", "t"),
        (r"h", ""),
        (r"([bdfglmnprtvz])\1", r"\1"),
        (r"r", "R"),
        (r"[yiîï]", "i"),
        (r"[uûü]", "y"),
        (r"[oôö]", "o"),
        (r"[aàâä]", "a"),
    )
)


def letters_to_sounds(text: str) -> str:
    """A rough French pronunciation of a word Lexique lacks ("boulanzerie" -> "bul@z°Ri").

    Good enough to compare a deformed word with the one meant: regular
    spellings are right, exceptions ("femme", "monsieur") come out near.
    """
    out: list[str] = []
    i = 0
    text = text.lower()
    while i < len(text):
        for pattern, sound in _RULES:
            found = pattern.match(text, i)
            if found is not None and found.end() > i:
                out.append(found.expand(sound) if "\\" in sound else sound)
                i = found.end()
                break
        else:
            if text[i].isalpha():
                out.append(text[i])
            i += 1
    phon = "".join(out)
    if phon.endswith("s") and text.endswith("s") and not text.endswith("ss"):
        phon = phon[:-1]
    return phon


def edit_similarity(a: str, b: str, floor: float = 0.0) -> float:
    """1 minus the edit distance over the longer length (1.0 for the same string, 0 for "").

    Args:
        a: one string.
        b: the other.
        floor: similarities below it are returned as 0.0, and the computation
            stops as soon as one is certain (most word pairs of a book).
    """
    if a == b:
        return 1.0 if a else 0.0
    longer = max(len(a), len(b))
    if not a or not b:
        return 0.0
    allowed = int((1.0 - floor) * longer + 1e-9)  # the most edits a kept pair may have
    if abs(len(a) - len(b)) > allowed:
        return 0.0
    distance = edit_distance(a, b, allowed)
    return 1.0 - distance / longer if distance <= allowed else 0.0
