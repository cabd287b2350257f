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
MODELS_DIR=${MODELS_DIR:-$ROOT/build/models}
VOICE_LOCK=$HERE/requirements-voice-win.txt
GPU_LOCK=$HERE/requirements-gpu-win.txt
STAGE_VOICE=$HERE/stage_voice.py
PY_TAG=3.13  # the embeddable CPython of build.sh (PIP_WIN)

RELOCK=0
for arg in "$@"; do
    case $arg in
        --relock) RELOCK=1 ;;
        *) echo "unknown option: $arg" >&2; exit 2 ;;
    esac
done

step "TherapyApp $VERSION voice pack for Windows (x64)"
mkdir -p "$CACHE" "$DIST"
# The torch of the model builds (pyproject.toml [project.optional-dependencies] build).
TORCH_PIN=$("$PYTHON" - "$ROOT/pyproject.toml" <<'PY'
import sys, tomllib
extras = tomllib.load(open(sys.argv[1], "rb"))["project"]["optional-dependencies"]
print(next(d for d in extras["build"] if d.replace(" ", "").startswith("torch==")).replace(" ", ""))
PY
)

if [[ $RELOCK == 1 ]]; then
    step "re-resolving $TORCH_PIN and its requirements for win_amd64 / cp${PY_TAG/./}"
    RELOCK_DIR=$WORK/relock-voice
    rm -rf "$RELOCK_DIR" && mkdir -p "$RELOCK_DIR"
    quiet_pip $NICE "$PYTHON" -m pip download -q --no-deps "${PIP_WIN[@]}" -d "$RELOCK_DIR" "$TORCH_PIN"
    TORCH_WHEEL=$(ls "$RELOCK_DIR"/torch-*.whl)
    # pip would evaluate torch's markers for this Linux machine (and pull its
    # CUDA wheels): its requirements are read for Windows by stage_voice.py.
    mapfile -t REQS < <("$PYTHON" "$STAGE_VOICE" requires --wheel "$TORCH_WHEEL" \
        --platform win_amd64 --python "$PY_TAG")
    sed -n 's/^\([^#][^ ]*\) .*/\1/p' "$LOCK" > "$RELOCK_DIR/app-constraints.txt"
    MSVC_PIN=$(grep -oE '^msvc-runtime==[^ ]+' "$GPU_LOCK")
    quiet_pip $NICE "$PYTHON" -m pip download -q "${PIP_WIN[@]}" -d "$RELOCK_DIR" \
        -c "$RELOCK_DIR/app-constraints.txt" "${REQS[@]}" "$MSVC_PIN"
    KEEP=()
    for wheel in "$RELOCK_DIR"/*.whl; do
        name=$(basename "$wheel"); name=$(echo "${name%%-*}" | tr _ - | tr '[:upper:]' '[:lower:]')
        grep -qiE "^${name}==" "$LOCK" || KEEP+=("$wheel")  # the app already ships it
    done
    write_lock "$VOICE_LOCK" \
"# win_amd64 / cp${PY_TAG/./} wheels of the Windows voice pack (personal-voice training), pinned with hashes.
# for $TORCH_PIN (pyproject.toml, extra \"build\"): torch and its requirements for Windows
# that requirements-win.txt does not already ship, held to its versions, plus msvc-runtime
# (msvcp140_atomic_wait.dll). Regenerate: installer/windows/build_voice_pack.sh --relock" "${KEEP[@]}"
fi

[[ -f $VOICE_LOCK ]] || { echo "no $VOICE_LOCK: run with --relock" >&2; exit 1; }
if ! grep -qE "^# for $TORCH_PIN " "$VOICE_LOCK"; then
    echo "requirements-voice-win.txt was locked for another torch than $TORCH_PIN;" \
         "run installer/windows/build_voice_pack.sh --relock" >&2
    exit 1
fi
[[ -f $MODELS_DIR/whisper-base-train/model.json ]] || {
    echo "no $MODELS_DIR/whisper-base-train: build the models (python -m models.build)" >&2; exit 1; }

step "downloading the voice pack's wheels (cached; about 130 MB the first time)"
fetch_locked "$VOICE_LOCK" "$CACHE/voice-wheels" "$CACHE/voice-wheels.tmp" "${PIP_WIN[@]}"

step "assembling the voice pack"
PACK=$WORK/voice-pack
$NICE "$PYTHON" "$STAGE_VOICE" stage --platform win_amd64 \
    --wheels "$PY_TAG=$CACHE/voice-wheels.tmp" --app-lock "$LOCK" \
    --trainer "$ROOT/therapy_voice" --weights "$MODELS_DIR/whisper-base-train" \
    --version "$VERSION" --out "$PACK"

if [[ ! -f $WORK/therapy_app.ico ]] && command -v convert >/dev/null; then
    "$HERE/make_icon.sh" "$WORK/therapy_app.ico"
fi
PACK_KB=$(du -sk --apparent-size "$PACK" | cut -f1)
nsis_defs "$PACK_KB"
OUT=$DIST/TherapyApp-Voice-$VERSION.exe
step "compiling the voice pack with NSIS (${NSIS_COMPRESSOR:-lzma}; LZMA takes long on 2 cores)"
SECONDS=0
$NICE makensis -WX -V2 -INPUTCHARSET UTF8 "${NSIS_DEFS[@]}" \
    -DPACK="$PACK" -DOUTFILE="$OUT" "$HERE/therapy_app_voice.nsi"
echo "makensis took ${SECONDS} s"
ls -l "$OUT"
echo "voice pack installed size: $((PACK_KB / 1024)) MiB (folder $PACK)"
