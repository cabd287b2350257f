"""docs/figures.md is what benchmarks/figures.py makes from the committed result files."""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks import figures

ROOT = Path(__file__).resolve().parents[1]


def test_figures_doc_is_generated_from_the_committed_results():
    committed = (ROOT / "docs" / "figures.md").read_text(encoding="utf-8")
    assert committed == figures.render(ROOT / "benchmarks" / "results"), (
        "docs/figures.md is stale: run .venv/bin/python benchmarks/figures.py"
    )


def test_a_changed_figure_changes_the_doc(tmp_path: Path):
    results = ROOT / "benchmarks" / "results"
    for path in results.glob("*.json"):
        (tmp_path / path.name).write_bytes(path.read_bytes())
    halting = json.loads((tmp_path / "halting.json").read_text(encoding="utf-8"))
    halting["sets"]["dev-pico"]["heard_wer"] = 12.3
    (tmp_path / "halting.json").write_text(json.dumps(halting), encoding="utf-8")
    assert "| heard WER vs the words spoken | ≤ 25.0 % | 12.3 % |" in figures.render(tmp_path)


def test_a_result_file_without_a_section_is_still_listed(tmp_path: Path):
    (tmp_path / "new_benchmark.json").write_text("{}", encoding="utf-8")
    assert "`benchmarks/results/new_benchmark.json`" in figures.render(tmp_path)
