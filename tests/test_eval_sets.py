"""Format of the hand-written corrector evaluation sets (tests/data/aphasia_eval*.jsonl).

Only the format is checked here; messages name item ids, not their text, so that
a failure does not put the blind or held-out set's sentences in front of whoever
tunes the corpus. The held-out set is never read item by item by anyone: keep it
that way (no test or message may print its sentences).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parent / "data"
FIRST = DATA / "aphasia_eval.jsonl"
BLIND = DATA / "aphasia_eval_blind.jsonl"
HELDOUT = DATA / "aphasia_eval_heldout.jsonl"

# What the speech recogniser writes: lowercase words, apostrophes and hyphens only.
_WORD = r"[^\W_]+(?:['’-][^\W_]+|')*"
_SRC_RE = re.compile(rf"^{_WORD}(?: {_WORD})*$")
# Items of the first set whose src is typed-looking text (capitals, "," and "."):
# left as they are (typed input may be deliberate there), but no
# new ones may appear.
FIRST_UNNORMALISED = {"h104", "c025"}
PHENOMENA = {
    "det_omission",
    "prep_omission",
    "aux_omission",
    "copula_omission",
    "subject_omission",
    "tonic_pronoun",
    "clitic_omission",
    "infinitive",
    "bare_participle",
    "agreement",
    "paraphasia",
    "filler",
    "repetition",
    "asr_confusion",
    "verb_omission",
    "ne_omission",
}

# The blind set covers these phenomena; the held-out set too.
BLIND_PHENOMENA = PHENOMENA
HELDOUT_PHENOMENA = PHENOMENA


def _items(path: Path) -> list[dict]:
    items = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            items.append(json.loads(line))
        except json.JSONDecodeError as exc:  # pragma: no cover - reported as a failure
            pytest.fail(f"{path.name}:{number}: invalid JSON ({exc.msg})")
    return items


@pytest.mark.parametrize("path", [FIRST, BLIND, HELDOUT], ids=["first", "blind", "heldout"])
def test_eval_set_format(path: Path) -> None:
    items = _items(path)
    assert items, f"{path.name} is empty"
    ids = [it.get("id") for it in items]
    dupes = sorted(i for i, n in Counter(ids).items() if n > 1)
    assert not dupes, f"{path.name}: duplicate ids {dupes}"
    bad_keys, bad_src, bad_refs = [], [], []
    for it in items:
        if not (
            isinstance(it.get("src"), str)
            and isinstance(it.get("refs"), list)
            and it["refs"]
            and isinstance(it.get("phenomena"), list)
            and it["phenomena"]
        ):
            bad_keys.append(it.get("id"))
            continue
        src = it["src"]
        if src != src.lower() or src != src.strip() or not _SRC_RE.match(src):
            bad_src.append(it["id"])
        for ref in it["refs"]:
            if not (isinstance(ref, str) and ref[:1].isupper() and ref.rstrip()[-1:] in ".?!"):
                bad_refs.append(it["id"])
                break
    if path == FIRST:
        bad_src = [i for i in bad_src if i not in FIRST_UNNORMALISED]
    assert not bad_keys, f"{path.name}: items without src/refs/phenomena: {bad_keys}"
    assert not bad_src, f"{path.name}: src not in recogniser form: {bad_src}"
    assert not bad_refs, f"{path.name}: refs not capitalised or unpunctuated: {bad_refs}"


def _split_checked(
    items: list[dict], correct_prefix: str, min_agrammatic: int, min_correct: int
) -> tuple[list[dict], list[dict]]:
    """Correct and agrammatic items, after checking their numbers and the correct ids."""
    correct = [it for it in items if "correct" in it["phenomena"]]
    agrammatic = [it for it in items if "correct" not in it["phenomena"]]
    # Counts and ids only: pytest would print the items themselves on failure.
    n_agrammatic, n_correct = len(agrammatic), len(correct)
    assert n_agrammatic >= min_agrammatic
    assert n_correct >= min_correct
    odd = [
        it["id"]
        for it in correct
        if it["phenomena"] != ["correct"] or not it["id"].startswith(correct_prefix)
    ]
    assert not odd, f"correct items with other phenomena or ids: {odd}"
    return correct, agrammatic


def test_blind_set_coverage() -> None:
    items = _items(BLIND)
    _split_checked(items, "bc", min_agrammatic=100, min_correct=25)
    counts = Counter(p for it in items for p in it["phenomena"])
    thin = {p: counts[p] for p in BLIND_PHENOMENA | set(counts) if counts[p] < 10}
    assert not thin, f"phenomena with fewer than 10 items: {thin}"


def test_heldout_set_coverage() -> None:
    items = _items(HELDOUT)
    _, agrammatic = _split_checked(items, "tc", min_agrammatic=80, min_correct=20)
    odd = [
        it["id"] for it in agrammatic if not it["id"].startswith("t") or it["id"].startswith("tc")
    ]
    assert not odd, f"agrammatic items with a correct item's id: {odd}"
    counts = Counter(p for it in items for p in it["phenomena"])
    unknown = sorted(set(counts) - HELDOUT_PHENOMENA - {"correct"})
    assert not unknown, f"unknown phenomena: {unknown}"
    thin = {p: counts[p] for p in HELDOUT_PHENOMENA if counts[p] < 6}
    assert not thin, f"phenomena with fewer than 6 items: {thin}"
    # Between 1 and 6 references, all distinct.
    bad = [it["id"] for it in items if not 1 <= len(set(it["refs"])) == len(it["refs"]) <= 6]
    assert not bad, f"items with no, duplicate or too many references: {bad}"


def test_heldout_set_is_new() -> None:
    """No held-out source repeats one of the other two sets (compared, never printed)."""
    others = {it["src"] for path in (FIRST, BLIND) for it in _items(path)}
    repeated = sorted(it["id"] for it in _items(HELDOUT) if it["src"] in others)
    assert not repeated, f"held-out items whose src is in another set: {repeated}"
