#!/usr/bin/env bash
# Draws the app icon (a speech bubble on a blue tile) as a multi-size .ico.
# Usage: make_icon.sh OUT.ico   (needs ImageMagick's convert)
set -euo pipefail
out=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
convert -size 256x256 xc:none \
    -fill '#1f6fb2' -draw 'roundrectangle 8,8 247,247 48,48' \
    -fill white -draw 'roundrectangle 44,56 212,168 36,36' \
    -draw 'polygon 84,160 84,212 132,162' \
    -fill '#1f6fb2' -draw 'circle 88,112 88,126' -draw 'circle 128,112 128,126' \
    -draw 'circle 168,112 168,126' \
    "$tmp/icon.png"
convert "$tmp/icon.png" -depth 8 -define icon:auto-resize=256,64,48,32,16 "$out"
