#!/usr/bin/env bash
# Runs the test suite as CI does: PulseAudio virtual devices, offscreen Qt.
# Extra arguments go to pytest (e.g. `scripts/test.sh -m "not slow"`).
set -euo pipefail
cd "$(dirname "$0")/.."
if command -v pulseaudio >/dev/null 2>&1; then
  eval "$(scripts/pulse_virtual.sh)"
else
  echo "PulseAudio not installed: real audio tests will be skipped" >&2
fi
export QT_QPA_PLATFORM="${QT_QPA_PLATFORM:-offscreen}"
# Some tests use onnxruntime directly; no telemetry from them either.
export ORT_DISABLE_TELEMETRY=1
exec .venv/bin/python -m pytest "$@"
