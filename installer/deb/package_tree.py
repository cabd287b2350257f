"""What both Debian package trees share: maintainer files, and files stored once across pythons."""

from __future__ import annotations

import filecmp
import logging
import os
from pathlib import Path

_LOGGER = logging.getLogger("stage")

# Bytecode is compiled at install for every bundled python3.X the system has
# (the one python3 runs, and any other installed beside it), and again when a
# python3.X's standard library changes (file triggers below: an update, or a
# distribution upgrade bringing a new python3); every __pycache__ is removed
# before the files are, so that dpkg can remove the folders; patient data
# (~/.local/share) is never touched. {compile}: the folders compiled, with
# $version for the python version.
POSTINST = """\
#!/bin/sh
set -e
if [ "$1" = configure ] || [ "$1" = triggered ]; then
    for version in {versions}; do
        if [ -x /usr/bin/python$version ]; then
            python$version -m compileall -q -j 0 {compile} >/dev/null 2>&1 || true
        fi
    done
fi
"""
TRIGGER = "interest-noawait /usr/lib/python{version}\n"
PRERM = """\
#!/bin/sh
set -e
find {bytecode} -name __pycache__ -type d -prune -exec rm -rf {{}} + 2>/dev/null || true
"""

# Libraries that do not load Python but are rebuilt in each python version's
# wheel, so their bytes differ: onnxruntime's CUDA provider (271 MiB) differs only
# in the random ids nvcc gives anonymous namespaces (same sections, same code).
# Any python's copy serves all of them as long as the distribution's version is
# the same (the provider talks to onnxruntime through a versioned C++ interface).
SAME_BUILD = {Path("onnxruntime/capi/libonnxruntime_providers_cuda.so"): "onnxruntime_gpu"}


def write(path: Path, text: str, mode: int = 0o644) -> None:
    """Write a text file of the tree with its permissions."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    path.chmod(mode)


def version_key(version: str) -> tuple[int, ...]:
    """Sort key of a python version: "3.9" before "3.11"."""
    return tuple(int(part) for part in version.split("."))


def python_fields(versions: list[str]) -> dict[str, str]:
    """Template fields of the pythons a package serves, oldest first.

    ``python`` and ``next_python`` bound its ``Depends: python3`` range;
    ``versions`` is the list the maintainer scripts loop over.
    """
    major, minor = version_key(versions[-1])
    return {
        "python": versions[0],
        "next_python": f"{major}.{minor + 1}",
        "versions": " ".join(versions),
    }


def write_debian_files(
    out: Path,
    package: str,
    fields: dict[str, str],
    *,
    control: str,
    copyright_text: str,
    compile_dirs: str,
    bytecode_root: str,
) -> None:
    """Write the control file, copyright and maintainer scripts, last; log the tree's size.

    Args:
        out: the package tree.
        package: the package name (its doc folder).
        fields: the templates' fields, :func:`python_fields` among them.
        control: the ``DEBIAN/control`` template.
        copyright_text: the ``copyright`` template.
        compile_dirs: the folders postinst compiles (``$version`` in them).
        bytecode_root: the folder whose ``__pycache__`` folders prerm removes.
    """
    versions = fields["versions"].split()
    write(out / "usr" / "share" / "doc" / package / "copyright", copyright_text.format(**fields))
    write(out / "DEBIAN/control", control.format(**fields))
    postinst = POSTINST.format(versions=fields["versions"], compile=compile_dirs)
    write(out / "DEBIAN/postinst", postinst, 0o755)
    write(out / "DEBIAN/prerm", PRERM.format(bytecode=bytecode_root), 0o755)
    write(out / "DEBIAN/triggers", "".join(TRIGGER.format(version=v) for v in versions))
    _LOGGER.info("package tree: %s, %.1f MB", out, stored_size(out) / 1e6)


def _dist_version(site: Path, dist: str) -> str | None:
    found = sorted(site.glob(f"{dist}-*.dist-info"))
    return found[0].name.removesuffix(".dist-info").split("-")[1] if found else None


def _same(original: Path, path: Path, rel: Path, sites: tuple[Path, Path]) -> bool:
    if rel in SAME_BUILD:
        versions = {_dist_version(site, SAME_BUILD[rel]) for site in sites}
        return len(versions) == 1 and None not in versions
    return original.stat().st_size == path.stat().st_size and filecmp.cmp(
        original, path, shallow=False
    )


def link_duplicates(sites: list[Path]) -> tuple[int, int]:
    """Replace each file identical to the same path in an earlier folder by a relative symlink.

    The folders are complete site-packages for different python versions, so
    most files (abi3 and pure-Python packages, the app and its models) are the
    same in all of them; the SAME_BUILD libraries are linked when their
    distribution's version is the same. A file is linked only when it is larger
    than the link itself. Returns (files linked, bytes saved).
    """
    linked = saved = 0
    for index, site in enumerate(sites):
        for path in sorted(site.rglob("*")):
            if path.is_symlink() or not path.is_file():
                continue
            size = path.stat().st_size
            rel = path.relative_to(site)
            for earlier in sites[:index]:
                original = earlier / rel
                if original.is_symlink() or not original.is_file():
                    continue
                target = os.path.relpath(original, path.parent)
                if size > len(target) and _same(original, path, rel, (earlier, site)):
                    path.unlink()
                    path.symlink_to(target)
                    linked += 1
                    saved += size
                    break
    return linked, saved


def stored_size(path: Path) -> int:
    """Bytes a tree takes with symlinks counted as links (as dpkg stores them)."""
    return sum(p.lstat().st_size for p in path.rglob("*") if p.is_symlink() or p.is_file())
