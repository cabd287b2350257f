#!/usr/bin/env bash
# Signs one Windows executable in place with osslsigncode (Authenticode, sha256).
# Called by makensis (!finalize / !uninstfinalize) when build.sh is given
# THERAPY_SIGN_CERT: a .pfx/.p12, or a PEM/DER certificate plus THERAPY_SIGN_KEY;
# THERAPY_SIGN_PASS is the optional password, THERAPY_SIGN_TS an optional
# timestamp server URL (the build machine is usually offline: without a
# timestamp the signature is valid only while the certificate is).
set -euo pipefail
file=$1
if [[ $THERAPY_SIGN_CERT == *.pfx || $THERAPY_SIGN_CERT == *.p12 ]]; then
    args=(-pkcs12 "$THERAPY_SIGN_CERT")
else
    args=(-certs "$THERAPY_SIGN_CERT" -key "${THERAPY_SIGN_KEY:?THERAPY_SIGN_KEY is needed with a PEM/DER certificate}")
fi
[[ -n ${THERAPY_SIGN_PASS:-} ]] && args+=(-pass "$THERAPY_SIGN_PASS")
[[ -n ${THERAPY_SIGN_TS:-} ]] && args+=(-ts "$THERAPY_SIGN_TS")
osslsigncode sign "${args[@]}" -h sha256 -n "Orthophonie" -in "$file" -out "$file.signed" >&2
mv -f "$file.signed" "$file"
