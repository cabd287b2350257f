#!/usr/bin/env bash
# Builds dist/therapy-app-voice_<version>_amd64.deb: the optional personal-voice
# pack for the therapy-app package (PyTorch's CPU build and what it needs beyond
# the app's packages, the trainer therapy_voice/, the training weights
# whisper-base-train) under /opt/therapy-app/voice. It depends on therapy-app
# of the same version; the app runs `python3 -m therapy_voice adapt` with it
# (therapy_app/voice_pack.py).
#
# Usage: installer/deb/build_voice.sh [--relock]
#   --relock  re-resolve torch (pyproject.toml's "build" pin with the +cpu local
#             version: PyTorch's CPU build, not PyPI's CUDA one) and its
#             requirements for each python of PY_VERSIONS, held to the versions
#             of the main package's lock, and rewrite
#             installer/deb/requirements-voice-linux-py<version>.txt (hashes)
#             with what the app does not already ship. A python whose CPU wheel
#             cannot be found is left out (with a message): the CPU wheels are
#             published on https://download.pytorch.org/whl/cpu, e.g.
#             PIP_EXTRA_INDEX_URL=https://download.pytorch.org/whl/cpu installer/deb/build_voice.sh --relock
# Environment:
#   PYTHON       Python used for the build steps (default: .venv/bin/python)
#   MODELS_DIR   built models (default: build/models): whisper-base-train
#   PY_VERSIONS  pythons to lock with --relock (default "3.11 3.12 3.13"); without
#                --relock, the pythons that have a voice lock are built
#   VOICE_TORCH  the torch requirement to lock (default: the pyproject pin + "+cpu")
# The package serves only the pythons it has torch for: its Depends: names that
# python3 range, so apt refuses it on a system whose python3 it cannot serve.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
PYTHON=${PYTHON:-$ROOT/.venv/bin/python}
MODELS_DIR=${MODELS_DIR:-$ROOT/build/models}
WORK=$ROOT/build/deb
DIST=$ROOT/dist
CACHE=$WORK/cache
NICE="nice -n 15"
STAGE_VOICE=$ROOT/installer/windows/stage_voice.py
# shellcheck source=../wheels.sh
source "$ROOT/installer/wheels.sh"
pip_linux() {  # as build.sh: glibc ≤ 2.36 (Debian 12)
    PIP_LINUX=(--platform manylinux_2_36_x86_64 --platform manylinux_2_34_x86_64
               --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64
               --platform manylinux2014_x86_64 --platform linux_x86_64
               --python-version "$1" --implementation cp --only-binary=:all:)
}
lock_of() { echo "$HERE/requirements-linux-py$1.txt"; }
voice_lock_of() { echo "$HERE/requirements-voice-linux-py$1.txt"; }
step() { echo "== $(date +%T) $*"; }

RELOCK=0
for arg in "$@"; do
    case $arg in
        --relock) RELOCK=1 ;;
        *) echo "unknown option: $arg" >&2; exit 2 ;;
    esac
done

VERSION=$("$PYTHON" -c 'import tomllib,sys; print(tomllib.load(open(sys.argv[1],"rb"))["project"]["version"])' "$ROOT/pyproject.toml")
PIN=$("$PYTHON" - "$ROOT/pyproject.toml" <<'PY'
import sys, tomllib
extras = tomllib.load(open(sys.argv[1], "rb"))["project"]["optional-dependencies"]
print(next(d for d in extras["build"] if d.replace(" ", "").startswith("torch==")).replace(" ", ""))
PY
)
TORCH_REQ=${VOICE_TORCH:-$PIN+cpu}
step "therapy-app-voice $VERSION for Debian/Ubuntu amd64 ($TORCH_REQ)"
mkdir -p "$CACHE" "$DIST"

if [[ $RELOCK == 1 ]]; then
    read -r -a WANTED <<< "${PY_VERSIONS:-3.11 3.12 3.13}"
    for py in "${WANTED[@]}"; do
        step "re-resolving $TORCH_REQ and its requirements for python $py"
        pip_linux "$py"
        dir=$WORK/relock-voice-$py
        rm -rf "$dir" && mkdir -p "$dir"
        if ! quiet_pip $NICE "$PYTHON" -m pip download -q --no-deps "${PIP_LINUX[@]}" \
                -d "$dir" "$TORCH_REQ"; then
            echo "python $py: no $TORCH_REQ wheel found; left out of the voice package" \
                 "(PIP_EXTRA_INDEX_URL=https://download.pytorch.org/whl/cpu)" >&2
            rm -f "$(voice_lock_of "$py")"
            continue
        fi
        torch_wheel=$(ls "$dir"/torch-*.whl)
        mapfile -t reqs < <("$PYTHON" "$STAGE_VOICE" requires --wheel "$torch_wheel" \
            --platform linux --python "$py")
        sed -n 's/^\([^#][^ ]*\) .*/\1/p' "$(lock_of "$py")" > "$dir/app-constraints.txt"
        quiet_pip $NICE "$PYTHON" -m pip download -q "${PIP_LINUX[@]}" -d "$dir" \
            -c "$dir/app-constraints.txt" "${reqs[@]}"
        keep=()
        for wheel in "$dir"/*.whl; do
            name=$(basename "$wheel"); name=$(echo "${name%%-*}" | tr _ - | tr '[:upper:]' '[:lower:]')
            grep -qiE "^${name}==" "$(lock_of "$py")" || keep+=("$wheel")  # the app ships it
        done
        write_lock "$(voice_lock_of "$py")" \
"# manylinux x86_64 / cp${py/./} wheels of the voice package (personal-voice training), pinned with hashes.
# for $TORCH_REQ: torch and its requirements that requirements-linux-py$py.txt does not
# already ship, held to its versions. Regenerate: installer/deb/build_voice.sh --relock
# python $py" "${keep[@]}"
    done
fi

PYS=()
for lock in "$HERE"/requirements-voice-linux-py3.*.txt; do
    [[ -f $lock ]] || continue
    py=${lock##*-py}; py=${py%.txt}
    grep -qF "# for $TORCH_REQ: " "$lock" || {
        echo "$lock was locked for another torch than $TORCH_REQ; run with --relock" >&2; exit 1; }
    PYS+=("$py")
done
[[ ${#PYS[@]} -gt 0 ]] || { echo "no installer/deb/requirements-voice-linux-py*.txt: run with --relock" >&2; exit 1; }
mapfile -t PYS < <(printf '%s\n' "${PYS[@]}" | sort -t. -k2 -n)
[[ -f $MODELS_DIR/whisper-base-train/model.json ]] || {
    echo "no $MODELS_DIR/whisper-base-train: build the models (python -m models.build)" >&2; exit 1; }

ARGS=()
for py in "${PYS[@]}"; do
    step "downloading the voice wheels for python $py (cached)"
    pip_linux "$py"
    fetch_locked "$(voice_lock_of "$py")" "$CACHE/voice-wheels" "$CACHE/voice-wheels-py$py.tmp" \
        "${PIP_LINUX[@]}"
    ARGS+=(--wheels "$py=$CACHE/voice-wheels-py$py.tmp" --app-lock "$py=$(lock_of "$py")")
done

step "assembling the package tree (python ${PYS[*]})"
PKG=$WORK/voice-pkg
$NICE "$PYTHON" "$HERE/stage_voice_deb.py" "${ARGS[@]}" --trainer "$ROOT/therapy_voice" \
    --weights "$MODELS_DIR/whisper-base-train" --version "$VERSION" --out "$PKG"
INSTALLED_KB=$(du -sk --apparent-size "$PKG" | cut -f1)
sed -i "s/^Installed-Size: .*/Installed-Size: $INSTALLED_KB/" "$PKG/DEBIAN/control"

OUT=$DIST/therapy-app-voice_${VERSION}_amd64.deb
step "dpkg-deb (gzip)"
SECONDS=0
$NICE fakeroot dpkg-deb -Zgzip --build "$PKG" "$OUT" >/dev/null
echo "dpkg-deb took ${SECONDS} s"
ls -l "$OUT"
echo "installed size: $((INSTALLED_KB / 1024)) MiB"
