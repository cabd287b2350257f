#!/usr/bin/env bash
# Builds both installers from a checkout whose models are built (bash scripts/setup.sh):
#   dist/TherapyApp-Setup-<version>.exe   (installer/windows/build.sh)
#   dist/therapy-app_<version>_amd64.deb  (installer/deb/build.sh)
#   dist/TherapyApp-GPU-<version>.exe     with --gpu-pack (installer/windows/build_gpu_pack.sh)
# Options go to the Windows build (--gpu-pack, --relock). Needs Debian nsis,
# imagemagick, fakeroot and dpkg-dev (apt-get install nsis imagemagick fakeroot dpkg-dev).
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
"$HERE/windows/build.sh" "$@"
"$HERE/deb/build.sh"
ls -l "$HERE/../dist"
