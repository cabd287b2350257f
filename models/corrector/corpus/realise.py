"""pyrealb glue: realise a sentence specification into tagged tokens and target text."""

from __future__ import annotations

import io
import logging
import re
from contextlib import redirect_stderr
from dataclasses import dataclass

import pyrealb
from pyrealb.Constituent import Constituent, PyrealbException

from models.corrector.corpus.tokens import H_ASPIRE, Tag, Token
from models.corrector.corpus.vocabulary import EXTRA_LEXICON

_LOGGER = logging.getLogger(__name__)

_CLITIC_FORMS = {"me", "te", "se", "le", "la", "les", "lui", "leur", "y", "en", "nous", "vous"}
_CLITIC_FORMS |= {"m'", "t'", "s'", "l'"}
_CONTRACTED = {"au", "aux", "du", "des"}
_MODALS = {"vouloir", "pouvoir", "devoir", "falloir", "savoir", "aimer", "préférer"}
_NEG_WORDS = {"pas", "plus", "jamais", "rien", "personne", "guère"}
_PARTICIPLE_FIXES = {
    "v27": ("éché", "échée", "échés", "échées"),
    "v46": ("ti", "tie", "tis", "ties"),
    "v48": ("illi", "illie", "illis", "illies"),
}
_FINAL_PUNCT_RE = re.compile(r"\s*([?.!]+)\s*$")
# pyrealb spells "soeur", "coeur", "oeil": French writes the ligature in these
# (every "oeu" and "oeil" word), and the recogniser does too.
_LIGATURE_RE = re.compile(r"([oO])e(?=u|il)")


def ligature(form: str) -> str:
    """Restores the œ ligature that pyrealb's lexicon leaves out ("soeur" -> "sœur")."""
    return _LIGATURE_RE.sub(lambda m: "œ" if m.group(1) == "o" else "Œ", form)


def load_french() -> None:
    """Loads pyrealb's French lexicon and makes its warnings exceptions.

    Sentences pyrealb flags (unknown word, impossible morphology) raise and are
    rejected instead of being written with "[[...]]" markers.
    """
    pyrealb.loadFr()
    Constituent.exceptionOnWarning = True
    # pyrealb 3.3.1's participle tables for "sortir/partir" (v46), "cueillir" (v48)
    # and "sécher" (v27) give "ils sont sortie": masculine plural fixed here.
    conjugation = pyrealb.getRules("fr")["conjugation"]
    for table, forms in _PARTICIPLE_FIXES.items():
        conjugation[table]["t"]["pp"] = list(forms)
    lexicon = pyrealb.getLexicon("fr")
    for word, (gender, table) in EXTRA_LEXICON.items():
        if "N" not in lexicon.get(word, {}):  # keep other parts of speech ("portable" A)
            pyrealb.addToLexicon(word, {**lexicon.get(word, {}), "N": {"g": gender, "tab": table}})
    if not H_ASPIRE:
        for lemma, entry in pyrealb.getLexicon("fr").items():
            for info in entry.values():
                if isinstance(info, dict) and info.get("h") == 1:
                    H_ASPIRE.add(lemma)


@dataclass
class Realised:
    """A realised sentence.

    Attributes:
        text: the correct French sentence (capitalised, punctuated).
        tokens: its tagged words (punctuation included as PUNCT tokens).
    """

    text: str
    tokens: list[Token]


def tag_terminals(terminals: list) -> list[Token]:
    """Maps realised pyrealb terminals to tagged tokens.

    Args:
        terminals: the list returned by `Constituent.real()`.

    Returns:
        Tokens in surface order; an annotation `role` set on a terminal by the
        generator (e.g. PART for a partitive) overrides the default tag.
    """
    tokens: list[Token] = []
    for i, term in enumerate(terminals):
        form = ligature(term.realization.strip())
        if not form:
            continue
        ctype, lemma = term.constType, ligature(str(term.lemma))
        props = term.props
        feats = {k: str(props[k]) for k in ("g", "n", "pe") if props.get(k) is not None}
        prev_lier = i > 0 and bool(terminals[i - 1].getProp("lier"))
        role = getattr(term, "role", None)
        tag = Tag.X
        if role:
            tag = role
        elif ctype == "D":
            tag = Tag.DET
        elif ctype == "P":
            tag = Tag.PREP_DET if form.lower() in _CONTRACTED else Tag.PREP
        elif ctype == "Pro":
            low = form.lower()
            if prev_lier:
                tag = Tag.CLS_INV
            elif lemma in ("je", "on"):
                tag = Tag.CLS
            elif lemma in ("ce", "ça", "cela"):
                tag = Tag.DEM
            elif low in _CLITIC_FORMS and _verb_follows(terminals, i):
                tag = Tag.CLO
            else:
                tag = Tag.PRON
        elif ctype == "V":
            tag = Tag.VERB
        elif ctype == "Adv":
            tag = Tag.NEG_NE if lemma == "ne" else Tag.ADV
        elif ctype == "Q":
            tag = Tag.NEG if form.lower() in _NEG_WORDS else Tag.X
        elif ctype == "N":
            tag = Tag.NOUN
        elif ctype == "A":
            tag = Tag.ADJ
        elif ctype == "C":
            tag = Tag.CONJ
        elif ctype == "NO":
            tag = Tag.NUM
        hyphen = bool(term.getProp("lier"))
        tokens.append(Token(form, tag, lemma, feats, hyphen))
    _tag_verbs(tokens)
    _share_gender(tokens)
    return tokens


def _verb_follows(terminals: list, i: int) -> bool:
    for term in terminals[i + 1 : i + 4]:
        if term.constType == "V":
            return True
        if term.constType not in ("Pro", "Adv", "Q"):
            return False
    return False


def _tag_verbs(tokens: list[Token]) -> None:
    """Splits VERB into AUX / AUX_FUT / MODAL / COP and sets `vform`."""
    verb_idx = [i for i, t in enumerate(tokens) if t.tag == Tag.VERB]
    for k, i in enumerate(verb_idx):
        tok = tokens[i]
        nxt = tokens[verb_idx[k + 1]] if k + 1 < len(verb_idx) else None
        # Only words that can sit between an auxiliary and its participle.
        adjacent = nxt is not None and all(
            t.tag in (Tag.NEG, Tag.CLS_INV, Tag.ADV, Tag.CLO)
            for t in tokens[i + 1 : verb_idx[k + 1]]
        )
        nxt_inf = nxt is not None and nxt.form.lower() == nxt.lemma
        if adjacent and tok.lemma in ("avoir", "être") and not nxt_inf:
            tok.tag = Tag.AUX
        elif adjacent and tok.lemma == "aller" and nxt_inf:
            tok.tag = Tag.AUX_FUT
        elif adjacent and tok.lemma in _MODALS and nxt_inf:
            tok.tag = Tag.MODAL
        elif tok.lemma == "être":
            tok.tag = Tag.COP
    prev_aux = False
    for tok in tokens:
        if tok.tag in (Tag.VERB, Tag.COP, Tag.AUX, Tag.AUX_FUT, Tag.MODAL):
            if prev_aux:
                tok.feats["vform"] = "pp"
            elif tok.form.lower() == tok.lemma:
                tok.feats["vform"] = "inf"
            else:
                tok.feats["vform"] = "fin"
            prev_aux = tok.tag == Tag.AUX


def _share_gender(tokens: list[Token]) -> None:
    """Gives determiners and adjectives the gender and number of their noun."""
    for i, tok in enumerate(tokens):
        if tok.tag in (Tag.DET, Tag.PART, Tag.PREP_DET, Tag.ADJ) and "g" not in tok.feats:
            for nxt in tokens[i + 1 : i + 4]:
                if nxt.tag == Tag.NOUN:
                    tok.feats.setdefault("g", nxt.feats.get("g", "m"))
                    tok.feats.setdefault("n", nxt.feats.get("n", "s"))
                    break


def realise(
    expr, front: list[Token] | None = None, end: list[Token] | None = None, punct: str = "."
) -> Realised | None:
    """Realises a pyrealb S expression with optional pre-tagged adjuncts.

    Args:
        expr: a pyrealb constituent (usually S).
        front: tokens placed before the clause, followed by a comma.
        end: tokens appended after the clause.
        punct: final punctuation: ".", "?" or "!".

    Returns:
        The realised sentence, or None when pyrealb flags an error.
    """
    try:
        with redirect_stderr(io.StringIO()):
            terminals = expr.real()
    except (PyrealbException, KeyError, IndexError, TypeError, AttributeError) as err:
        _LOGGER.debug("pyrealb rejected %s: %s", expr.toSource(), err)
        return None
    if any("[[" in t.realization for t in terminals):
        return None
    if terminals:
        last = terminals[-1]
        last.realization = _FINAL_PUNCT_RE.sub("", last.realization)
    tokens = tag_terminals(terminals)
    if not tokens:
        return None
    if front:
        tokens = [*front, Token(",", Tag.PUNCT), *tokens]
    if end:
        tokens = [*tokens, *end]
    tokens.append(Token(punct, Tag.PUNCT))
    return Realised(detokenize(tokens), tokens)


def detokenize(tokens: list[Token]) -> str:
    """Joins tokens into a typographically correct French sentence.

    French spacing: a space before "?", "!" (ordinary space, not a
    non-breaking one, so that tokenisers see one convention); none before "."
    and ",". The first letter is capitalised.
    """
    out: list[str] = []
    for i, tok in enumerate(tokens):
        nxt = tokens[i + 1] if i + 1 < len(tokens) else None
        form = tok.form
        out.append(form)
        if nxt is None:
            break
        if tok.hyphen:
            low = nxt.form.lower()
            out.append("-t-" if low in ("il", "elle", "on") and form[-1] in "ae" else "-")
        elif form.endswith("'"):
            continue
        elif nxt.tag == Tag.PUNCT and nxt.form in (".", ","):
            continue
        else:
            out.append(" ")
    text = "".join(out)
    return text[:1].upper() + text[1:]
