"""Tagged tokens of a generated sentence and their ASR-like rendering (the `src` side)."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field, replace

_LOGGER = logging.getLogger(__name__)


class Tag:
    """Part-of-speech / function tags the degradation rules key on.

    They come from the generator (which knows what it built), not from a tagger.
    """

    DET = "DET"  # article, possessive, demonstrative determiner
    PART = "PART"  # partitive article: du, de la, de l', des, de (after negation)
    PREP = "PREP"
    PREP_DET = "PREP_DET"  # contracted preposition + article: au, aux, du, des
    CLS = "CLS"  # subject clitic: je, tu, il, on...
    CLS_INV = "CLS_INV"  # inverted subject clitic: "-vous", "-t-il"
    CLO = "CLO"  # object / reflexive clitic: le, la, lui, me, se, y, en
    DEM = "DEM"  # ce / c' / ça as subject
    AUX = "AUX"  # avoir / être of compound tenses
    AUX_FUT = "AUX_FUT"  # aller of the futur proche
    COP = "COP"  # être as main verb
    MODAL = "MODAL"  # vouloir, pouvoir, devoir, falloir + infinitive
    VERB = "VERB"
    NEG_NE = "NEG_NE"
    NEG = "NEG"  # pas, plus, jamais, rien
    NOUN = "NOUN"
    PROPN = "PROPN"
    ADJ = "ADJ"
    ADV = "ADV"
    PRON = "PRON"  # tonic and other pronouns
    CONJ = "CONJ"
    INTJ = "INTJ"
    QW = "QW"  # question word or "est-ce que"
    NUM = "NUM"
    PUNCT = "PUNCT"
    X = "X"

    CONTENT = frozenset({"NOUN", "VERB", "ADJ", "ADV", "PROPN"})


@dataclass
class Token:
    """One word of a sentence with what the rules need to know about it.

    Attributes:
        form: surface form as written in the target sentence (may be elided: "j'").
        tag: one of `Tag`.
        lemma: lemma (verb infinitive, masculine singular adjective...).
        feats: morphology the generator knows: g (m/f), n (s/p), pe (1/2/3),
            vform (fin/inf/pp), t (pyrealb tense).
        hyphen: True when the next word is joined with a hyphen ("mangez-vous").
    """

    form: str
    tag: str
    lemma: str = ""
    feats: dict[str, str] = field(default_factory=dict)
    hyphen: bool = False

    def with_form(self, form: str, **feats: str) -> Token:
        """Returns a copy with another surface form (and updated features)."""
        return replace(self, form=form, feats={**self.feats, **feats})


_PUNCT_RE = re.compile(r"[.,;:!?¿¡«»\"“”()\[\]{}…/]")
_DASH_RE = re.compile(r"(?<!\w)[-–—]|[-–—](?!\w)")
_SPACE_RE = re.compile(r"\s+")
_VOWEL_RE = re.compile(r"^[aeiouyàâäéèêëîïôöùûüœæ]", re.I)

# Words whose final vowel is replaced by an apostrophe before a vowel.
_ELIDABLE = {
    "je": "j'",
    "me": "m'",
    "te": "t'",
    "se": "s'",
    "le": "l'",
    "la": "l'",
    "de": "d'",
    "ne": "n'",
    "que": "qu'",
    "ce": "c'",
    "jusque": "jusqu'",
    "lorsque": "lorsqu'",
    "puisque": "puisqu'",
}
_UNELIDED = {
    "j'": "je",
    "m'": "me",
    "t'": "te",
    "s'": "se",
    "n'": "ne",
    "d'": "de",
    "qu'": "que",
    "c'": "ce",
    "jusqu'": "jusque",
    "lorsqu'": "lorsque",
    "puisqu'": "puisque",
}
_EUPHONY = {"ma": "mon", "ta": "ton", "sa": "son"}
_CONTRACTIONS = {("à", "le"): "au", ("à", "les"): "aux", ("de", "le"): "du", ("de", "les"): "des"}
# "ce" only elides before forms of "être" (and "en"); elsewhere it becomes "cet" or stays.
_CE_ELIDES_BEFORE = re.compile(r"^(est|était|étaient|sont|en|eût|a)$")

# Lemmas starting with an aspirated h (no elision): filled from the pyrealb lexicon.
H_ASPIRE: set[str] = set()


def normalize(text: str) -> str:
    """Lowercases and removes punctuation the way the ASR output is normalised.

    Apostrophes and word-internal hyphens are kept (Whisper writes "j'ai",
    "est-ce que"); everything else that is not a word character goes.

    Args:
        text: any French text.

    Returns:
        The normalised text: lowercase words separated by single spaces.
    """
    text = text.replace("’", "'").replace("\u00a0", " ").lower()
    text = _PUNCT_RE.sub(" ", text)
    text = _DASH_RE.sub(" ", text)
    return _SPACE_RE.sub(" ", text).strip()


def base_form(token: Token) -> str:
    """The unelided lowercase form of a token ("j'" -> "je", "l'" -> "le"/"la")."""
    form = token.form.lower()
    if form == "l'":
        # Kept elided: the gender of "l'" is not always known (time adverbials),
        # and "l'" never contracts with "à"/"de". `render` unelides it if needed.
        return form
    return _UNELIDED.get(form, form)


def _starts_with_vowel_sound(word: str, lemma: str) -> bool:
    if word == "euh":
        # A hesitation is a pause: nobody says (or transcribes) "j'euh".
        return False
    if _VOWEL_RE.match(word):
        return True
    if word.startswith("h"):
        return lemma not in H_ASPIRE and word not in H_ASPIRE
    return False


def _next_has_vowel(tokens: list[Token], index: int) -> bool:
    following = [t for t in tokens[index + 1 :] if t.tag != Tag.PUNCT and t.form]
    if not following:
        return False
    nxt = following[0]
    return _starts_with_vowel_sound(base_form(nxt), nxt.lemma.lower())


def render(tokens: list[Token]) -> str:
    """Writes tokens as the ASR would: lowercase, no punctuation, elision redone.

    Elision, euphony ("ma" -> "mon" before a vowel) and contractions ("à le" ->
    "au") are recomputed from the unelided forms, so deleting a word never
    leaves "j' vais" or "je ai" behind.

    Args:
        tokens: tokens in order; PUNCT tokens are skipped.

    Returns:
        The rendered string.
    """
    words: list[tuple[str, str, bool]] = []  # (base form, lemma, hyphen after)
    for index, tok in enumerate(tokens):
        if tok.tag == Tag.PUNCT or not tok.form:
            continue
        word = base_form(tok)
        if word == "l'" and not _next_has_vowel(tokens, index):
            word = "la" if tok.feats.get("g") == "f" else "le"
        words.append((word, tok.lemma.lower(), tok.hyphen))
    # Contractions first: they change what follows an elidable word.
    merged: list[tuple[str, str, bool]] = []
    for word in words:
        if merged and not merged[-1][2] and (merged[-1][0], word[0]) in _CONTRACTIONS:
            merged[-1] = (_CONTRACTIONS[(merged[-1][0], word[0])], "", word[2])
        else:
            merged.append(word)
    out: list[str] = []
    for i, (word, _lemma, hyphen) in enumerate(merged):
        nxt = merged[i + 1] if i + 1 < len(merged) else None
        glue = "-" if hyphen else " "
        if nxt is not None and not hyphen and _starts_with_vowel_sound(nxt[0], nxt[1]):
            if word == "ce":
                if _CE_ELIDES_BEFORE.match(nxt[0]):
                    word, glue = "c'", ""
                else:
                    word = "cet"
            elif word in _ELIDABLE:
                word, glue = _ELIDABLE[word], ""
            elif word in _EUPHONY:
                word = _EUPHONY[word]
            elif word == "si" and nxt[0] in ("il", "ils"):
                word, glue = "s'", ""
        if hyphen and nxt is not None and nxt[0] in ("il", "elle", "on") and word[-1] in "ae":
            glue = "-t-"
        if word.endswith("'") and not hyphen:
            glue = ""
        out.append(word + glue if nxt is not None else word)
    return normalize("".join(out))
