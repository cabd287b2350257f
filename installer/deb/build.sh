#!/usr/bin/env bash
# Builds dist/therapy-app_<version>_amd64.deb: one package for the distribution's
# python3 3.11 (Debian 12), 3.12 (Ubuntu 24.04) and 3.13 (Debian 13).
#
# Usage: installer/deb/build.sh [--relock]
#   --relock  re-resolve the manylinux wheels from pyproject.toml and rewrite
#             installer/deb/requirements-linux-py<version>.txt (hashes) for every
#             python version before building; the later versions are held to the
#             first one's package versions where their wheels exist (so that
#             their files are identical and stored once).
# Environment:
#   PYTHON       Python used for the build steps (default: .venv/bin/python)
#   MODELS_DIR   built speech models (default: build/models)
#   PY_VERSIONS  the python3 versions bundled (default "3.11 3.12 3.13")
# The package installs the app and every Python dependency under
# /opt/therapy-app/lib/py<version> and runs it with the distribution's python3:
# nothing is downloaded on the PC. Files identical across the version folders
# are stored once (the later folders hold relative symlinks).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=common.sh
source "$HERE/common.sh"
read -r -a PY_VERSIONS <<< "${PY_VERSIONS:-3.11 3.12 3.13}"
parse_relock "$@"

step "therapy-app $VERSION for Debian/Ubuntu amd64 (python ${PY_VERSIONS[*]})"
mkdir -p "$CACHE/wheels" "$DIST"

if [[ $RELOCK == 1 ]]; then
    FIRST=${PY_VERSIONS[0]}
    for py in "${PY_VERSIONS[@]}"; do
        step "re-resolving manylinux wheels for python $py from pyproject.toml"
        pip_linux "$py"
        header="# manylinux x86_64 / cp${py/./} wheels bundled in the .deb, pinned with their hashes.
# Regenerate after changing pyproject.toml: installer/deb/build.sh --relock
# python $py"
        if [[ $py == "$FIRST" ]]; then
            relock "$(lock_of "$py")" "$WORK/relock" "$header" "${PIP_LINUX[@]}"
            lock_constraints "$(lock_of "$py")" > "$WORK/constraints.txt"
        elif ! relock "$(lock_of "$py")" "$WORK/relock" "$header" "${PIP_LINUX[@]}" \
                -c "$WORK/constraints.txt"; then
            echo "python $py: no wheels for python $FIRST's versions; resolving freely" >&2
            relock "$(lock_of "$py")" "$WORK/relock" "$header" "${PIP_LINUX[@]}"
        fi
    done
fi

WHEEL_ARGS=()
for py in "${PY_VERSIONS[@]}"; do
    lock=$(lock_of "$py")
    [[ -f $lock ]] && grep -q "^# python $py\$" "$lock" || {
        echo "$lock is missing or locked for another python; run with --relock" >&2; exit 1; }
    step "downloading the locked wheels for python $py (cached)"
    pip_linux "$py"
    fetch_locked "$lock" "$CACHE/wheels" "$CACHE/wheels-py$py.tmp" "${PIP_LINUX[@]}"
    WHEEL_ARGS+=(--wheels "$py=$CACHE/wheels-py$py.tmp")
done

build_app_wheel

step "assembling the package tree"
PKG=$WORK/pkg
$NICE "$PYTHON" "$HERE/stage.py" "${WHEEL_ARGS[@]}" --app-wheel "$APP_WHEEL" \
    --models "$MODELS_DIR" --model whisper-base --model silero-vad \
    --version "$VERSION" --out "$PKG"
# The same drawing as the Windows icon; the menu entry names it, so no icon is an error.
command -v convert >/dev/null || { echo "ImageMagick's convert is needed (icon)" >&2; exit 1; }
"$ROOT/installer/windows/make_icon.sh" "$WORK/icon.ico"
for size in 256 128 64 48 32 16; do
    icon_dir=$PKG/usr/share/icons/hicolor/${size}x${size}/apps
    mkdir -p "$icon_dir"
    convert "$WORK/icon.ico[0]" -resize "${size}x${size}" "$icon_dir/therapy-app.png"
done
SITES=()
for py in "${PY_VERSIONS[@]}"; do SITES+=("$PKG/opt/therapy-app/lib/py$py"); done
write_licences "$PKG/opt/therapy-app/THIRD_PARTY_LICENSES.txt" "${SITES[@]}"
build_deb "$PKG" therapy-app
