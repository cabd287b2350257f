#!/usr/bin/env bash
# Installs everything on a fresh Debian/Ubuntu machine: system packages, the
# Python environment (.venv) and the speech models (build/models). Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

APT_PACKAGES=(
  python3 python3-venv python3-dev
  libportaudio2 libasound2-plugins pulseaudio pulseaudio-utils espeak-ng sox
  libegl1 libgl1 libxkbcommon0 libxkbcommon-x11-0 libfontconfig1 libdbus-1-3
  libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 libxcb-image0 libxcb-render-util0
  libxcb-shape0 libxcb-randr0 libxcb-xkb1 fonts-dejavu-core xvfb openbox poppler-utils strace
)
missing=()
for pkg in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "Installing system packages: ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

PYTHON="${PYTHON:-python3}"
if [ ! -x .venv/bin/python ]; then
  "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install -q --upgrade pip
# torch is pinned to the CPU build: it is needed only to build/train models.
.venv/bin/python -m pip install -q "torch==2.13.0"
.venv/bin/python -m pip install -q -e ".[test,build,train]"

# Guard against plain onnxruntime overwriting onnxruntime-gpu (same folder, no pip error).
.venv/bin/python - <<'PY'
import importlib.metadata as md, sys
names = {d.metadata["Name"].lower() for d in md.distributions()}
if "onnxruntime" in names:
    sys.exit("plain onnxruntime is installed next to onnxruntime-gpu: uninstall it")
PY

# The model build uses onnxruntime directly (not through therapy_app.inference):
# keep Microsoft's telemetry client off there too (issue 11, item 1).
ORT_DISABLE_TELEMETRY=1 .venv/bin/python -m models.build
echo "Setup complete."
