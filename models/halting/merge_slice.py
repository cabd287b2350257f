"""A corpus version with the ASR-in-the-loop slice mixed into its train split.

    python -m models.halting.merge_slice --corpus build/corpus_v4 \
        --slice build/asr_slice --out build/corpus_v5 [--max-wer 0.67] [--repeat 30]

Slice rows whose transcript is too far from what was said (``--max-wer``) are
left out: a corrector trained to turn an unrelated transcript into a fluent
sentence learns to invent content. Kept rows are repeated ``--repeat`` times
(the slice is small next to the synthetic pairs). Valid and test splits are
copied unchanged, so validation figures stay comparable with the base corpus.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
from pathlib import Path
from typing import Any

from therapy_app.model_store import sha256_file

SPLITS = ("train", "valid", "test")


def slice_rows(folder: Path, max_wer: float) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """Every row of the slice files in ``folder``, and the rows worth training on.

    A kept row has a transcript, within ``max_wer`` of what was said.
    """
    rows = []
    for path in sorted(folder.glob("asr_slice*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                rows.append(json.loads(line))
    kept = [r for r in rows if r["src"].strip() and r["wer"] <= max_wer]
    return rows, kept


def slice_lines(kept: list[dict[str, Any]], repeat: int) -> list[str]:
    """The corpus lines (JSONL pairs) of the kept slice rows, each ``repeat`` times."""
    lines: list[str] = []
    for r in kept:
        pair = {"src": r["src"], "tgt": r["tgt"], "severity": "asr", "source": "asr_slice"}
        lines.extend([json.dumps(pair, ensure_ascii=False)] * repeat)
    return lines


def write_manifest(manifest: dict[str, Any], out: Path, indent: int = 1) -> None:
    """Record the hash of each split file of ``out`` in ``manifest``, and write it there."""
    manifest["files"] = {f"{s}.jsonl": {"sha256": sha256_file(out / f"{s}.jsonl")} for s in SPLITS}
    (out / "MANIFEST.json").write_text(
        json.dumps(manifest, ensure_ascii=False, indent=indent) + "\n", encoding="utf-8"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, required=True)
    parser.add_argument("--slice", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--max-wer", type=float, default=0.67)
    parser.add_argument("--repeat", type=int, default=30)
    args = parser.parse_args(argv)
    rows, kept = slice_rows(args.slice, args.max_wer)
    args.out.mkdir(parents=True, exist_ok=True)
    for split in ("valid", "test"):
        shutil.copyfile(args.corpus / f"{split}.jsonl", args.out / f"{split}.jsonl")
    lines = (args.corpus / "train.jsonl").read_text(encoding="utf-8").splitlines()
    lines.extend(slice_lines(kept, args.repeat))
    random.Random(11).shuffle(lines)
    (args.out / "train.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    manifest = json.loads((args.corpus / "MANIFEST.json").read_text(encoding="utf-8"))
    manifest["command"] = (
        f"{manifest['command']} && python -m models.halting.merge_slice --corpus {args.corpus} "
        f"--slice {args.slice} --out {args.out} --max-wer {args.max_wer} --repeat {args.repeat}"
    )
    manifest["asr_slice"] = {
        "rows": len(rows),
        "kept": len(kept),
        "max_wer": args.max_wer,
        "repeat": args.repeat,
        "voices": sorted({r["voice"] for r in kept}),
        "base_corpus_manifest_sha256": sha256_file(args.corpus / "MANIFEST.json"),
    }
    write_manifest(manifest, args.out, indent=2)
    print(f"{len(kept)} of {len(rows)} slice rows kept, x{args.repeat}, in {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
