#!/usr/bin/env bash
# Test-only: builds a native ucrtbase.dll for a Wine 8 prefix that adds the MSVC
# complex-math functions Wine 8.0 leaves unimplemented (numpy 2.x aborts on
# "unimplemented function ucrtbase.dll.crealf" otherwise) and forwards every
# other export to Wine's own ucrtbase, copied as ucrtwine.dll.
# Also builds icuuc.dll, a stub of the Windows system ICU that Qt6Core.dll
# imports and Wine 8 lacks (see icuuc_stub.c).
# Usage: build_ucrt_shim.sh OUTDIR   (writes ucrtbase.dll, ucrtwine.dll, icuuc.dll;
#        copy them to the prefix's system32 and set WINEDLLOVERRIDES=ucrtbase=n,b)
# Needs: x86_64-w64-mingw32-gcc (Debian gcc-mingw-w64-x86-64), objdump.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
out=$1
wine_ucrt=${WINE_UCRTBASE:-/usr/lib/x86_64-linux-gnu/wine/x86_64-windows/ucrtbase.dll}
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Wine's builtin marker ("Wine builtin DLL" at 0x40) would make the loader look
# for a builtin named ucrtwine: blank it so the copy loads as a plain PE file.
cp "$wine_ucrt" "$out/ucrtwine.dll"
python3 - "$out/ucrtwine.dll" <<'PY'
import sys
p = sys.argv[1]; data = bytearray(open(p, "rb").read())
marker = b"Wine builtin DLL"
i = data.find(marker, 0, 0x100)
if i >= 0:
    data[i:i + len(marker)] = b"\0" * len(marker)
open(p, "wb").write(data)
PY
{
    echo "LIBRARY ucrtbase"
    echo "EXPORTS"
    objdump -p "$wine_ucrt" | sed -n '/\[Ordinal\/Name Pointer\] Table/,/^$/p' \
        | grep -oP '\]\s+\K\S+' | grep -vxFf "$HERE/shim_exports.txt" \
        | sed 's/.*/    & = ucrtwine.&/'
    sed 's/.*/    & = shim_&/' "$HERE/shim_exports.txt"
} > "$tmp/ucrtbase.def"
x86_64-w64-mingw32-gcc -O2 -shared -static-libgcc -o "$out/ucrtbase.dll" \
    "$HERE/ucrt_complex_shim.c" "$tmp/ucrtbase.def" -lm
x86_64-w64-mingw32-gcc -O2 -shared -static-libgcc -o "$out/icuuc.dll" "$HERE/icuuc_stub.c"
x86_64-w64-mingw32-gcc -O2 -shared -static-libgcc -Wl,--kill-at -o "$out/mscms.dll" "$HERE/mscms_stub.c"
x86_64-w64-mingw32-gcc -O2 -shared -static-libgcc -Wl,--kill-at -o "$out/bcryptprimitives.dll" "$HERE/bcryptprimitives_stub.c" -lbcrypt
