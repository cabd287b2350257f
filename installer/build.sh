#!/usr/bin/env bash
# Builds both installers from a checkout whose models are built (bash scripts/setup.sh):
#   dist/TherapyApp-Setup-<version>.exe   (installer/windows/build.sh)
#   dist/therapy-app_<version>_amd64.deb  (installer/deb/build.sh)
#   dist/TherapyApp-GPU-<version>.exe     with --gpu-pack (installer/windows/build_gpu_pack.sh)
#   dist/TherapyApp-Voice-<version>.exe and dist/therapy-app-voice_<version>_amd64.deb
#                                         with --voice-pack (installer/windows/build_voice_pack.sh,
#                                         installer/deb/build_voice.sh): personal-voice training
# Other options go to the Windows build (--gpu-pack, --relock; --relock also relocks
# the voice packs). Needs Debian nsis, imagemagick, fakeroot and dpkg-dev
# (bash scripts/installer_tools.sh installs them).
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
VOICE=0
RELOCK=()
WINDOWS_ARGS=()
for arg in "$@"; do
    case $arg in
        --voice-pack) VOICE=1 ;;
        --relock) RELOCK=(--relock); WINDOWS_ARGS+=("$arg") ;;
        *) WINDOWS_ARGS+=("$arg") ;;
    esac
done
"$HERE/windows/build.sh" "${WINDOWS_ARGS[@]}"
"$HERE/deb/build.sh"
if [[ $VOICE == 1 ]]; then
    "$HERE/windows/build_voice_pack.sh" "${RELOCK[@]}"
    "$HERE/deb/build_voice.sh" "${RELOCK[@]}"
fi
ls -l "$HERE/../dist"
