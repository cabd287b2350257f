#!/usr/bin/env bash
# Builds dist/therapy-app_<version>_amd64.deb (Debian 12: Python 3.11, glibc 2.36, by default).
#
# Usage: installer/deb/build.sh [--relock]
#   --relock  re-resolve the manylinux wheels from pyproject.toml and rewrite
#             installer/deb/requirements-linux.txt (hashes) before building.
# Environment:
#   PYTHON       Python used for the build steps (default: .venv/bin/python)
#   MODELS_DIR   built speech models (default: build/models)
#   PY_VERSION   the target distribution's python3 (default 3.11: Debian 12;
#                Ubuntu 24.04 is 3.12: relock with PY_VERSION=3.12 first)
# The package installs the app and every Python dependency under /opt/therapy-app
# and runs it with the distribution's python3: nothing is downloaded on the PC.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
PYTHON=${PYTHON:-$ROOT/.venv/bin/python}
MODELS_DIR=${MODELS_DIR:-$ROOT/build/models}
PY_VERSION=${PY_VERSION:-3.11}
PY_TAG=cp${PY_VERSION/./}
WORK=$ROOT/build/deb
DIST=$ROOT/dist
CACHE=$WORK/cache
LOCK=$HERE/requirements-linux.txt
NICE="nice -n 15"
# shellcheck source=../wheels.sh
source "$ROOT/installer/wheels.sh"
PIP_LINUX=(--platform manylinux_2_36_x86_64 --platform manylinux_2_34_x86_64 --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64
           --platform manylinux2014_x86_64 --platform linux_x86_64
           --python-version "$PY_VERSION" --implementation cp --only-binary=:all:)

RELOCK=0
for arg in "$@"; do
    case $arg in
        --relock) RELOCK=1 ;;
        *) echo "unknown option: $arg" >&2; exit 2 ;;
    esac
done
step() { echo "== $(date +%T) $*"; }

VERSION=$("$PYTHON" -c 'import tomllib,sys; print(tomllib.load(open(sys.argv[1],"rb"))["project"]["version"])' "$ROOT/pyproject.toml")
step "therapy-app $VERSION for Debian/Ubuntu amd64 (python $PY_VERSION)"
mkdir -p "$CACHE/wheels" "$DIST"

if [[ $RELOCK == 1 ]]; then
    step "re-resolving manylinux wheels from pyproject.toml"
    relock "$LOCK" "$WORK/relock" \
"# manylinux x86_64 / $PY_TAG wheels bundled in the .deb, pinned with their hashes.
# Regenerate after changing pyproject.toml: installer/deb/build.sh --relock
# python $PY_VERSION" "${PIP_LINUX[@]}"
fi
grep -q "^# python $PY_VERSION\$" "$LOCK" || {
    echo "$LOCK is locked for another python; run with --relock" >&2; exit 1; }

step "downloading the locked wheels (cached)"
fetch_locked "$LOCK" "$CACHE/wheels" "$CACHE/wheels.tmp" "${PIP_LINUX[@]}"

step "building the app wheel"
rm -rf "$WORK/appwheel"
$NICE "$PYTHON" -m pip wheel -q --no-deps -w "$WORK/appwheel" "$ROOT"
APP_WHEEL=$(ls "$WORK"/appwheel/therapy_app-*.whl)

step "assembling the package tree"
PKG=$WORK/pkg
$NICE "$PYTHON" "$HERE/stage.py" --wheels "$CACHE/wheels.tmp" --app-wheel "$APP_WHEEL" \
    --models "$MODELS_DIR" --model whisper-base --model silero-vad \
    --version "$VERSION" --python "$PY_VERSION" --out "$PKG"
# The same drawing as the Windows icon; the menu entry names it, so no icon is an error.
command -v convert >/dev/null || { echo "ImageMagick's convert is needed (icon)" >&2; exit 1; }
"$ROOT/installer/windows/make_icon.sh" "$WORK/icon.ico"
for size in 256 128 64 48 32 16; do
    icon_dir=$PKG/usr/share/icons/hicolor/${size}x${size}/apps
    mkdir -p "$icon_dir"
    convert "$WORK/icon.ico[0]" -resize "${size}x${size}" "$icon_dir/therapy-app.png"
done
SITE=$PKG/opt/therapy-app/lib
"$PYTHON" "$ROOT/installer/licenses.py" --site-packages "$SITE" \
    --models "$SITE/therapy_app/_models" --models "$SITE/therapy_app/_resources/models" \
    --out "$PKG/opt/therapy-app/THIRD_PARTY_LICENSES.txt"
INSTALLED_KB=$(du -sk --apparent-size "$PKG" | cut -f1)
sed -i "s/^Installed-Size: .*/Installed-Size: $INSTALLED_KB/" "$PKG/DEBIAN/control"

OUT=$DIST/therapy-app_${VERSION}_amd64.deb
step "dpkg-deb (gzip; xz takes ten minutes on 2 cores)"
SECONDS=0
$NICE fakeroot dpkg-deb -Zgzip --build "$PKG" "$OUT" >/dev/null
echo "dpkg-deb took ${SECONDS} s"
ls -l "$OUT"
echo "installed size: $((INSTALLED_KB / 1024)) MiB"
