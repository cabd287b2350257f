"""Format of the hand-written corrector evaluation sets (tests/data/aphasia_eval*.jsonl).

Only the format is checked here; messages name item ids, not their text, so that
a failure does not put the blind set's sentences in front of whoever tunes the
corpus.
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

# What the speech recogniser writes: lowercase words, apostrophes and hyphens only.
_WORD = r"[^\W_]+(?:['’-][^\W_]+|')*"
_SRC_RE = re.compile(rf"^{_WORD}(?: {_WORD})*$")
# Items of the first set whose src is typed-looking text (capitals, "," and "."):
# left as they are (typed input may be deliberate there), but no
# new ones may appear.
FIRST_UNNORMALISED = {"h104", "c025"}
BLIND_PHENOMENA = {
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


@pytest.mark.parametrize("path", [FIRST, BLIND], ids=["first", "blind"])
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
    if path == FIRST:
        bad_src = [i for i in bad_src if i not in FIRST_UNNORMALISED]
        for ref in it["refs"]:
            if not (isinstance(ref, str) and ref[:1].isupper() and ref.rstrip()[-1:] in ".?!"):
                bad_refs.append(it["id"])
                break
    assert not bad_keys, f"{path.name}: items without src/refs/phenomena: {bad_keys}"
    assert not bad_src, f"{path.name}: src not in recogniser form: {bad_src}"
    assert not bad_refs, f"{path.name}: refs not capitalised or unpunctuated: {bad_refs}"


def test_blind_set_coverage() -> None:
    items = _items(BLIND)
    correct = [it for it in items if "correct" in it["phenomena"]]
    agrammatic = [it for it in items if "correct" not in it["phenomena"]]
    assert len(agrammatic) >= 100
    assert len(correct) >= 25
    assert all(it["phenomena"] == ["correct"] for it in correct)
    assert all(it["id"].startswith("bc") for it in correct)
    counts = Counter(p for it in items for p in it["phenomena"])
    thin = {p: counts[p] for p in BLIND_PHENOMENA | set(counts) if counts[p] < 10}
    assert not thin, f"phenomena with fewer than 10 items: {thin}"
