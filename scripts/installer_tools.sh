#!/usr/bin/env bash
# Installs what building and testing the installers needs (Debian/Ubuntu, as root or with sudo):
# the .deb (fakeroot, dpkg-dev, debootstrap for the clean-chroot tests), the Windows setup
# (nsis, mingw for the launcher, wine64 to run it), and the screenshots' tools.
# Then: installer/deb/build.sh, installer/windows/build.sh [--gpu-pack], and
#       bash scripts/test.sh -m installer tests/test_installer_deb.py tests/test_installer_windows.py
set -euo pipefail
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
  fakeroot dpkg-dev debootstrap desktop-file-utils \
  nsis imagemagick osslsigncode gcc-mingw-w64-x86-64 \
  wine wine64 xvfb x11-utils
echo "Installer tools ready."
