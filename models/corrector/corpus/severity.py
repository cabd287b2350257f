"""Severity profiles and the degradation pipeline (agrammatism, paraphasia, ASR noise)."""

from __future__ import annotations

import logging
import random
from dataclasses import dataclass

from models.corrector.corpus import agrammatism as agr
from models.corrector.corpus import asr
from models.corrector.corpus.paraphasia import paraphasias
from models.corrector.corpus.tokens import Tag, Token, render

_LOGGER = logging.getLogger(__name__)

# Order matters: obj_tonic sees the subject clitic it tells reflexives by (and
# competes with obj_clitic_drop), subject and verb rules see the sentence before determiners go,
# the ASR layer comes last because it transcribes what was "said".
RULE_ORDER = (
    "qw_drop",
    "obj_tonic",
    "subj_drop",
    "subj_tonic",
    "ne_drop",
    "neg_preverbal",
    "aux_drop",
    "cop_drop",
    "verb_infinitive",
    "verb_participle",
    "obj_clitic_drop",
    "prep_drop",
    "det_drop",
    "modifier_drop",
    "adj_default",
    "agreement",
    "paraphasia",
    "repetition",
    "filler",
    "asr_verb_homophone",
    "asr_function_homophone",
    "asr_final_consonant",
    "asr_merge",
    "asr_split",
)

# Probability of each rule per eligible token (per sentence for qw_drop,
# neg_preverbal, repetition, filler, asr_merge, asr_split). RULES.md explains them.
PROFILES: dict[str, dict[str, float]] = {
    "mild": {
        "qw_drop": 0.3,
        "obj_tonic": 0.08,
        "subj_drop": 0.08,
        "subj_tonic": 0.07,
        "ne_drop": 0.5,
        "neg_preverbal": 0.05,
        "aux_drop": 0.15,
        "cop_drop": 0.15,
        "verb_infinitive": 0.10,
        "verb_participle": 0.03,
        "obj_clitic_drop": 0.15,
        "prep_drop": 0.12,
        "det_drop": 0.20,
        "modifier_drop": 0.0,
        "adj_default": 0.10,
        "agreement": 0.06,
        "paraphasia": 0.06,
        "repetition": 0.06,
        "filler": 0.12,
    },
    "moderate": {
        "qw_drop": 0.6,
        "obj_tonic": 0.35,
        "subj_drop": 0.20,
        "subj_tonic": 0.25,
        "ne_drop": 0.75,
        "neg_preverbal": 0.25,
        "aux_drop": 0.5,
        "cop_drop": 0.5,
        "verb_infinitive": 0.40,
        "verb_participle": 0.10,
        "obj_clitic_drop": 0.45,
        "prep_drop": 0.40,
        "det_drop": 0.55,
        "modifier_drop": 0.10,
        "adj_default": 0.30,
        "agreement": 0.14,
        "paraphasia": 0.12,
        "repetition": 0.15,
        "filler": 0.25,
    },
    "severe": {
        "qw_drop": 0.9,
        "obj_tonic": 0.55,
        "subj_drop": 0.35,
        "subj_tonic": 0.45,
        "ne_drop": 0.9,
        "neg_preverbal": 0.5,
        "aux_drop": 0.85,
        "cop_drop": 0.85,
        "verb_infinitive": 0.70,
        "verb_participle": 0.12,
        "obj_clitic_drop": 0.8,
        "prep_drop": 0.75,
        "det_drop": 0.85,
        "modifier_drop": 0.30,
        "adj_default": 0.50,
        "agreement": 0.16,
        "paraphasia": 0.16,
        "repetition": 0.25,
        "filler": 0.40,
    },
}
# The recogniser's noise does not depend on the patient's severity.
ASR_PROBS = {
    "asr_verb_homophone": 0.30,
    "asr_function_homophone": 0.04,
    "asr_final_consonant": 0.04,
    "asr_merge": 0.02,
    "asr_split": 0.02,
}
SEVERITY_MIX = (("mild", 0.30), ("moderate", 0.40), ("severe", 0.30))

_RULES = {
    "qw_drop": agr.drop_question_words,
    "obj_tonic": agr.object_tonic,
    "ne_drop": agr.drop_ne,
    "neg_preverbal": agr.preverbal_negation,
    "aux_drop": agr.drop_aux,
    "cop_drop": agr.drop_copula,
    "verb_infinitive": agr.infinitive,
    "verb_participle": agr.bare_participle,
    "obj_clitic_drop": agr.drop_object_clitics,
    "prep_drop": agr.drop_prepositions,
    "det_drop": agr.drop_determiners,
    "modifier_drop": agr.drop_modifiers,
    "adj_default": agr.default_adjectives,
    "agreement": agr.agreement_errors,
    "paraphasia": paraphasias,
    "repetition": agr.repeat_word,
    "filler": agr.insert_filler,
    "asr_verb_homophone": asr.homophone_verbs,
    "asr_function_homophone": asr.homophone_function_words,
    "asr_final_consonant": asr.drop_final_consonant,
    "asr_merge": asr.merge_words,
    "asr_split": asr.split_word,
}


@dataclass(frozen=True)
class Degraded:
    """A degraded rendering of a sentence.

    Attributes:
        src: the ASR-like degraded text.
        severity: mild, moderate, severe or intact.
        rules: names of the rules that changed something, in application order.
    """

    src: str
    severity: str
    rules: tuple[str, ...]


def degrade(tokens: list[Token], severity: str, rng: random.Random, attempts: int = 6) -> Degraded:
    """Applies a severity profile, retrying until the text actually changes.

    Args:
        tokens: tokens of the correct sentence.
        severity: a key of `PROFILES`.
        rng: random generator (seeded per pair for determinism).
        attempts: tries before giving up and returning the intact text.

    Returns:
        The degraded pair side; severity "intact" if nothing changed.
    """
    intact = render(tokens)
    probs = {**PROFILES[severity], **ASR_PROBS}
    for _ in range(attempts):
        out, fired = apply_rules(tokens, probs, rng)
        src = render(out)
        if src != intact and len(src.split()) >= 1:
            return Degraded(src, severity, tuple(fired))
    return Degraded(intact, "intact", ())


def apply_rules(
    tokens: list[Token], probs: dict[str, float], rng: random.Random
) -> tuple[list[Token], list[str]]:
    """Runs every rule in `RULE_ORDER` with its probability; returns tokens and fired rules."""
    out = list(tokens)
    fired: list[str] = []
    for name in RULE_ORDER:
        p = probs.get(name, 0.0)
        if name == "subj_drop":
            out, names = agr.subject_clitic(out, rng, p, probs.get("subj_tonic", 0.0))
            fired.extend(dict.fromkeys(names))
            continue
        if name == "subj_tonic" or p <= 0.0:
            continue
        out, changed = _RULES[name](out, rng, p)
        if changed:
            fired.append(name)
    if not any(t.tag != Tag.PUNCT for t in out):
        return list(tokens), []
    return out, fired
