# Shared by installer/windows/build.sh, build_gpu_pack.sh and build_voice_pack.sh
# (sourced, not run). Needs HERE (this folder) set by the caller.

# shellcheck source=../common.sh
source "$HERE/../common.sh"
WORK=${THERAPY_WIN_BUILD_DIR:-$ROOT/build/windows}
CACHE=$WORK/cache
LOCK=$HERE/requirements-win.txt
PIP_WIN=(--platform win_amd64 --python-version 3.13 --implementation cp --abi cp313
         --only-binary=:all:)
ICON=$WORK/therapy_app.ico

# draw_icon: draw $ICON when ImageMagick is there (the setups then use it).
draw_icon() {
    if command -v convert >/dev/null; then
        step "drawing the icon"
        "$HERE/make_icon.sh" "$ICON"
    fi
}

# nsis_defs INSTALLED_KB: fill the NSIS_DEFS array (version, sizes, compressor,
# icon when drawn, signing when THERAPY_SIGN_CERT is set).
nsis_defs() {
    # Windows wants a four-part numeric file version: 0.1.0 -> 0.1.0.0.
    local vi
    vi=$(echo "$VERSION" | grep -oE '^[0-9]+(\.[0-9]+){0,3}')
    while [[ $(echo "$vi" | tr -cd . | wc -c) -lt 3 ]]; do vi=$vi.0; done
    NSIS_DEFS=(-DVERSION="$VERSION" -DVI_VERSION="$vi" -DINSTALLED_KB="$1"
               -DCOMPRESSOR="${NSIS_COMPRESSOR:-lzma}")
    [[ -f $ICON ]] && NSIS_DEFS+=(-DICON="$ICON")
    if [[ -n ${THERAPY_SIGN_CERT:-} ]]; then
        command -v osslsigncode >/dev/null || { echo "osslsigncode is needed to sign" >&2; exit 1; }
        NSIS_DEFS+=(-DSIGN_SCRIPT="$HERE/sign.sh")
    fi
    return 0
}

# run_makensis SCRIPT OUT INSTALLED_KB WHAT DEFINE...: compile the NSIS SCRIPT
# (in this folder) into OUT; WHAT names it in the progress line.
run_makensis() {
    local script=$1 out=$2 kb=$3 what=$4
    shift 4
    nsis_defs "$kb"
    step "compiling $what with NSIS (${NSIS_COMPRESSOR:-lzma}; LZMA takes minutes on 2 cores)"
    SECONDS=0
    $NICE makensis -WX -V2 -INPUTCHARSET UTF8 "${NSIS_DEFS[@]}" "$@" -DOUTFILE="$out" \
        "$HERE/$script"
    echo "makensis took ${SECONDS} s"
}

# build_pack_setup FOLDER SCRIPT OUT WHAT: the setup program of an optional pack
# (the pack's FOLDER, staged); draws the icon when the main build has not.
build_pack_setup() {
    local folder=$1 script=$2 out=$3 what=$4 kb
    [[ -f $ICON ]] || draw_icon
    kb=$(du -sk --apparent-size "$folder" | cut -f1)
    run_makensis "$script" "$out" "$kb" "$what" -DPACK="$folder"
    ls -l "$out"
    echo "installed size of $what: $((kb / 1024)) MiB (folder $folder)"
}

# need_lock LOCK PIN SCRIPT: stop unless LOCK exists and its header says it was
# resolved for PIN ("# for PIN ..."); SCRIPT --relock rewrites it.
need_lock() {
    local lock=$1 pin=$2 script=$3
    [[ -f $lock ]] || { echo "no $lock: run $script --relock" >&2; exit 1; }
    grep -qE "^# for $pin " "$lock" || {
        echo "$(basename "$lock") was locked for another version than $pin; run $script --relock" >&2
        exit 1
    }
}
