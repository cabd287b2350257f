# Shared by installer/windows/build.sh and build_gpu_pack.sh (sourced, not run).
# Needs HERE (this folder) set by the caller.

ROOT=$(cd "$HERE/../.." && pwd)
PYTHON=${PYTHON:-$ROOT/.venv/bin/python}
WORK=${THERAPY_WIN_BUILD_DIR:-$ROOT/build/windows}
DIST=$ROOT/dist
CACHE=$WORK/cache
NICE="nice -n 15"
LOCK=$HERE/requirements-win.txt
PIP_WIN=(--platform win_amd64 --python-version 3.13 --implementation cp --abi cp313
         --only-binary=:all:)
# shellcheck source=../wheels.sh
source "$ROOT/installer/wheels.sh"

step() { echo "== $(date +%T) $*"; }

VERSION=$("$PYTHON" -c 'import tomllib,sys; print(tomllib.load(open(sys.argv[1],"rb"))["project"]["version"])' "$ROOT/pyproject.toml")

# nsis_defs INSTALLED_KB: fill the NSIS_DEFS array (version, sizes, compressor,
# icon when drawn, signing when THERAPY_SIGN_CERT is set).
nsis_defs() {
    # Windows wants a four-part numeric file version: 0.1.0 -> 0.1.0.0.
    local vi
    vi=$(echo "$VERSION" | grep -oE '^[0-9]+(\.[0-9]+){0,3}')
    while [[ $(echo "$vi" | tr -cd . | wc -c) -lt 3 ]]; do vi=$vi.0; done
    NSIS_DEFS=(-DVERSION="$VERSION" -DVI_VERSION="$vi" -DINSTALLED_KB="$1"
               -DCOMPRESSOR="${NSIS_COMPRESSOR:-lzma}")
    [[ -f $WORK/therapy_app.ico ]] && NSIS_DEFS+=(-DICON="$WORK/therapy_app.ico")
    if [[ -n ${THERAPY_SIGN_CERT:-} ]]; then
        command -v osslsigncode >/dev/null || { echo "osslsigncode is needed to sign" >&2; exit 1; }
        NSIS_DEFS+=(-DSIGN_SCRIPT="$HERE/sign.sh")
    fi
    return 0
}
