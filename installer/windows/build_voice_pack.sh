#!/usr/bin/env bash
# Builds the optional voice pack dist/TherapyApp-Voice-<version>.exe on Linux:
# PyTorch (PyPI's win_amd64 build, CPU only) and the packages it needs that the
# app lacks, the trainer package therapy_voice/ and the training weights
# whisper-base-train, installed into <install dir>\voice of an existing
# installation (kept across upgrades of the main setup, removed with it). The
# app runs `python -m therapy_voice adapt` with them (therapy_app/voice_pack.py).
#
# Usage: installer/windows/build_voice_pack.sh [--relock]
#   --relock  re-resolve torch (the version pinned in pyproject.toml's "build"
#             extra) and its requirements for win_amd64 / cp313, held to the
#             versions of requirements-win.txt, and rewrite
#             installer/windows/requirements-voice-win.txt (hashes) with what
#             the app does not already ship, plus msvc-runtime.
# Environment as build.sh (PYTHON, MODELS_DIR, THERAPY_WIN_BUILD_DIR,
# NSIS_COMPRESSOR, THERAPY_SIGN_*).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=common.sh
source "$HERE/common.sh"
VOICE_LOCK=$HERE/requirements-voice-win.txt
GPU_LOCK=$HERE/requirements-gpu-win.txt
PY_TAG=3.13  # the embeddable CPython of build.sh (PIP_WIN)

parse_relock "$@"

step "TherapyApp $VERSION voice pack for Windows (x64)"
mkdir -p "$CACHE" "$DIST"
TORCH_PIN=$(torch_pin)

if [[ $RELOCK == 1 ]]; then
    step "re-resolving $TORCH_PIN and its requirements for win_amd64 / cp${PY_TAG/./}"
    relock_voice "$VOICE_LOCK" \
"# win_amd64 / cp${PY_TAG/./} wheels of the Windows voice pack (personal-voice training), pinned with hashes.
# for $TORCH_PIN (pyproject.toml, extra \"build\"): torch and its requirements for Windows
# that requirements-win.txt does not already ship, held to its versions, plus msvc-runtime
# (msvcp140_atomic_wait.dll). Regenerate: installer/windows/build_voice_pack.sh --relock" \
        "$WORK/relock-voice" "$LOCK" "$TORCH_PIN" win_amd64 "$PY_TAG" \
        "$(grep -oE '^msvc-runtime==[^ ]+' "$GPU_LOCK")" -- "${PIP_WIN[@]}"
fi

need_lock "$VOICE_LOCK" "$TORCH_PIN" installer/windows/build_voice_pack.sh
need_training_weights

step "downloading the voice pack's wheels (cached; about 130 MB the first time)"
fetch_locked "$VOICE_LOCK" "$CACHE/voice-wheels" "$CACHE/voice-wheels.tmp" "${PIP_WIN[@]}"

step "assembling the voice pack"
PACK=$WORK/voice-pack
$NICE "$PYTHON" "$HERE/stage_voice.py" stage --platform win_amd64 \
    --wheels "$PY_TAG=$CACHE/voice-wheels.tmp" --app-lock "$LOCK" \
    --trainer "$ROOT/therapy_voice" --weights "$MODELS_DIR/whisper-base-train" \
    --version "$VERSION" --out "$PACK"

build_pack_setup "$PACK" therapy_app_voice.nsi "$DIST/TherapyApp-Voice-$VERSION.exe" \
    "the voice pack"
