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
import hashlib
import json
import random
import shutil
from pathlib import Path


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, required=True)
    parser.add_argument("--slice", type=Path, required=True)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--max-wer", type=float, default=0.67)
    parser.add_argument("--repeat", type=int, default=30)
    args = parser.parse_args(argv)
    rows = []
    for path in sorted(args.slice.glob("asr_slice*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                rows.append(json.loads(line))
    kept = [r for r in rows if r["src"].strip() and r["wer"] <= args.max_wer]
    args.out.mkdir(parents=True, exist_ok=True)
    for split in ("valid", "test"):
        shutil.copyfile(args.corpus / f"{split}.jsonl", args.out / f"{split}.jsonl")
    lines = (args.corpus / "train.jsonl").read_text(encoding="utf-8").splitlines()
    for r in kept:
        pair = {"src": r["src"], "tgt": r["tgt"], "severity": "asr", "source": "asr_slice"}
        lines.extend([json.dumps(pair, ensure_ascii=False)] * args.repeat)
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
        "base_corpus_manifest_sha256": _sha256(args.corpus / "MANIFEST.json"),
    }
    manifest["files"] = {
        f"{s}.jsonl": {"sha256": _sha256(args.out / f"{s}.jsonl")}
        for s in ("train", "valid", "test")
    }
    (args.out / "MANIFEST.json").write_text(
        json.dumps(manifest, ensure_ascii=False, indent=2) + "\n", encoding="utf-8"
    )
    print(f"{len(kept)} of {len(rows)} slice rows kept, x{args.repeat}, in {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
