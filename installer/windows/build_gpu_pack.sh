#!/usr/bin/env bash
# Builds the optional GPU pack dist/TherapyApp-GPU-<version>.exe on Linux: the
# NVIDIA CUDA 13 / cuDNN 9 runtime DLLs that the bundled onnxruntime-gpu loads,
# installed into <install dir>\gpu of an existing installation (kept across
# upgrades of the main setup, removed with it).
#
# Usage: installer/windows/build_gpu_pack.sh [--relock]
#   --relock  re-resolve NVIDIA's wheels from onnxruntime-gpu's own "cuda" and
#             "cudnn" extras (at the version locked in requirements-win.txt) and
#             rewrite installer/windows/requirements-gpu-win.txt (hashes).
# Also run by installer/windows/build.sh --gpu-pack. Environment as build.sh
# (PYTHON, THERAPY_WIN_BUILD_DIR, NSIS_COMPRESSOR, THERAPY_SIGN_*).
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=common.sh
source "$HERE/common.sh"
GPU_LOCK=$HERE/requirements-gpu-win.txt
# Wheels the pack takes DLLs from (installer/windows/stage_gpu.py SHIP); the
# rest of what the extras pull in (cuFFT, nvJitLink, cuRAND) is left out.
GPU_WHEELS=(nvidia-cublas nvidia-cuda-runtime nvidia-cuda-nvrtc nvidia-cudnn-cu13 msvc-runtime)

parse_relock "$@"

step "TherapyApp $VERSION GPU pack for Windows (x64)"
mkdir -p "$CACHE" "$DIST"
# The pack serves the onnxruntime-gpu of the main bundle, as locked there.
ORT_LINE=$(grep -E '^onnxruntime-gpu==' "$LOCK") || {
    echo "no onnxruntime-gpu in $LOCK: nothing for a GPU pack to serve" >&2; exit 1; }
ORT_PIN=${ORT_LINE%% *}

if [[ $RELOCK == 1 ]]; then
    step "re-resolving the NVIDIA wheels for $ORT_PIN"
    RELOCK_DIR=$WORK/relock-gpu
    rm -rf "$RELOCK_DIR" && mkdir -p "$RELOCK_DIR"
    quiet_pip $NICE "$PYTHON" -m pip download -q "${PIP_WIN[@]}" -d "$RELOCK_DIR" \
        "onnxruntime-gpu[cuda,cudnn]==${ORT_PIN#*==}" msvc-runtime
    KEEP=()
    for name in "${GPU_WHEELS[@]}"; do
        f=$(find "$RELOCK_DIR" -maxdepth 1 -iname "$(echo "$name" | tr - _)-*.whl" | head -1)
        [[ -n $f ]] || { echo "relock: $name was not resolved" >&2; exit 1; }
        KEEP+=("$f")
    done
    write_lock "$GPU_LOCK" \
"# win_amd64 wheels of the Windows GPU pack (NVIDIA CUDA/cuDNN runtime DLLs), pinned with hashes.
# for $ORT_PIN (requirements-win.txt): its cuda and cudnn extras, plus msvc-runtime
# (msvcp140_atomic_wait.dll). Regenerate: installer/windows/build_gpu_pack.sh --relock" "${KEEP[@]}"
fi

need_lock "$GPU_LOCK" "$ORT_PIN" installer/windows/build_gpu_pack.sh

step "downloading the NVIDIA wheels (cached; about 1 GB the first time)"
fetch_locked "$GPU_LOCK" "$CACHE/gpu-wheels" "$CACHE/gpu-wheels.tmp" "${PIP_WIN[@]}"
# onnxruntime-gpu itself (hash-checked from the main lock): its CUDA provider's
# imports and CUDA version are checked against the pack.
echo "$ORT_LINE" > "$WORK/ort-req.txt"
fetch_locked "$WORK/ort-req.txt" "$CACHE/wheels" "$CACHE/ort-wheel.tmp" "${PIP_WIN[@]}"
ORT_WHEEL=$(readlink -f "$(ls "$CACHE"/ort-wheel.tmp/*.whl)")

step "assembling the GPU pack"
PACK=$WORK/gpu-pack
$NICE "$PYTHON" "$HERE/stage_gpu.py" --wheels "$CACHE/gpu-wheels.tmp" \
    --onnxruntime-wheel "$ORT_WHEEL" --version "$VERSION" --out "$PACK"

build_pack_setup "$PACK" therapy_app_gpu.nsi "$DIST/TherapyApp-GPU-$VERSION.exe" "the GPU pack"
