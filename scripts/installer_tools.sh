#!/usr/bin/env bash
# Installs what building and testing the installers needs (Debian/Ubuntu, as root or with
# sudo), then checks that every command the builds and the installer tests call is there:
#   the .deb: fakeroot, dpkg-dev; debootstrap for the clean-chroot tests;
#   the Windows setups: nsis, imagemagick (icon), osslsigncode (signing);
#   the Wine tests: wine and wine64, mingw (the Wine stand-in DLLs), binutils (objdump);
#   both tests: xvfb and x11-utils (the window), desktop-file-utils.
# Usage: bash scripts/installer_tools.sh [--check]   (--check: report only, install nothing)
# Then:  installer/build.sh [--gpu-pack] [--voice-pack], and
#        bash scripts/test.sh -m installer tests/test_installer_deb.py \
#            tests/test_installer_windows.py tests/test_voice_pack.py
set -euo pipefail

# command:package, for every command the installer builds and tests run (a path
# where the command alone does not tell: wine runs without wine64's 64-bit loader).
NEEDED=(
    fakeroot:fakeroot dpkg-deb:dpkg-dev debootstrap:debootstrap
    desktop-file-validate:desktop-file-utils makensis:nsis convert:imagemagick
    import:imagemagick osslsigncode:osslsigncode x86_64-w64-mingw32-gcc:gcc-mingw-w64-x86-64
    objdump:binutils wine:wine wineserver:wine /usr/lib/wine/wine64:wine64 Xvfb:xvfb
    xwininfo:x11-utils unshare:util-linux chroot:coreutils mount:mount
)

have() { if [[ $1 == /* ]]; then [[ -e $1 ]]; else command -v "$1" >/dev/null; fi; }

# missing: the packages of what is not found, once each.
missing() {
    local entry
    for entry in "${NEEDED[@]}"; do
        have "${entry%%:*}" || echo "${entry#*:}"
    done | sort -u
}

report() {
    local entry
    for entry in "${NEEDED[@]}"; do
        if have "${entry%%:*}"; then
            echo "ok  ${entry%%:*}"
        else
            echo "--  ${entry%%:*} (Debian package ${entry#*:})"
        fi
    done
}

mapfile -t PACKAGES < <(missing)
if [[ ${1:-} == --check ]]; then
    report
    [[ ${#PACKAGES[@]} -eq 0 ]] || { echo "missing: ${PACKAGES[*]}: run bash $0" >&2; exit 1; }
    exit 0
fi
if [[ ${#PACKAGES[@]} -gt 0 ]]; then
    SUDO=""
    if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends \
        "${PACKAGES[@]}"
fi
report
mapfile -t PACKAGES < <(missing)
[[ ${#PACKAGES[@]} -eq 0 ]] || { echo "still missing: ${PACKAGES[*]}" >&2; exit 1; }
echo "Installer tools ready."
