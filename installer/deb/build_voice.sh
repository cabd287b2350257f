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
# shellcheck source=common.sh
source "$HERE/common.sh"
voice_lock_of() { echo "$HERE/requirements-voice-linux-py$1.txt"; }
parse_relock "$@"

PIN=$(torch_pin)
TORCH_REQ=${VOICE_TORCH:-$PIN+cpu}
step "therapy-app-voice $VERSION for Debian/Ubuntu amd64 ($TORCH_REQ)"
mkdir -p "$CACHE" "$DIST"

if [[ $RELOCK == 1 ]]; then
    read -r -a WANTED <<< "${PY_VERSIONS:-3.11 3.12 3.13}"
    for py in "${WANTED[@]}"; do
        step "re-resolving $TORCH_REQ and its requirements for python $py"
        pip_linux "$py"
        header="# manylinux x86_64 / cp${py/./} wheels of the voice package (personal-voice training), pinned with hashes.
# for $TORCH_REQ: torch and its requirements that requirements-linux-py$py.txt does not
# already ship, held to its versions. Regenerate: installer/deb/build_voice.sh --relock
# python $py"
        if ! relock_voice "$(voice_lock_of "$py")" "$header" "$WORK/relock-voice-$py" \
                "$(lock_of "$py")" "$TORCH_REQ" linux "$py" -- "${PIP_LINUX[@]}"; then
            echo "python $py: no $TORCH_REQ wheel found; left out of the voice package" \
                 "(PIP_EXTRA_INDEX_URL=https://download.pytorch.org/whl/cpu)" >&2
            rm -f "$(voice_lock_of "$py")"
        fi
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
need_training_weights

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
build_deb "$PKG" therapy-app-voice
