# Hash-locked wheels, shared by the installer builds (sourced by installer/common.sh).
# Needs PYTHON, ROOT and NICE set by the caller.

# pip warns once per package about this machine's absent local index folders.
quiet_pip() { "$@" 2> >(grep -v "is ignored: it is neither a file nor a directory" >&2); }

# relock LOCK WORKDIR HEADER PIP_ARGS...: resolve pyproject.toml's runtime
# dependencies for the target platform and write them, with hashes, to LOCK
# after the HEADER lines.
relock() {
    local lock=$1 work=$2 header=$3; shift 3
    local deps
    deps=$("$PYTHON" -c 'import tomllib,sys; print("\n".join(tomllib.load(open(sys.argv[1],"rb"))["project"]["dependencies"]))' "$ROOT/pyproject.toml")
    rm -rf "$work" && mkdir -p "$work"
    # "|| return": a caller may run relock as a condition, where set -e is off.
    # shellcheck disable=SC2086
    quiet_pip $NICE "$PYTHON" -m pip download -q "$@" -d "$work" $deps || return
    write_lock "$lock" "$header" "$work"/*.whl
}

# wheel_name WHEEL: the distribution name of a wheel file, as the locks write it.
wheel_name() {
    local b
    b=$(basename "$1")
    echo "${b%%-*}" | tr _ - | tr '[:upper:]' '[:lower:]'
}

# write_lock LOCK HEADER WHEEL...: write "name==version --hash=sha256:..." for
# each wheel to LOCK after the HEADER lines.
write_lock() {
    local lock=$1 header=$2; shift 2
    local w v
    {
        printf '%s\n' "$header"
        for w in "$@"; do
            v=$(basename "$w" | cut -d- -f2)
            echo "$(wheel_name "$w")==$v --hash=sha256:$(sha256sum "$w" | cut -d' ' -f1)"
        done
    } > "$lock"
}

# lock_constraints LOCK: LOCK's "name==version" lines, for pip's -c.
lock_constraints() { sed -n 's/^\([^#][^ ]*\) .*/\1/p' "$1"; }

# relock_voice LOCK HEADER DIR APP_LOCK TORCH TARGET PY [REQ...] -- PIP_ARGS...:
# resolve the torch requirement TORCH into DIR, then its requirements for
# TARGET (stage_voice.py's platform) and python PY, plus the REQs, held to
# APP_LOCK's versions; write to LOCK, after HEADER, the wheels APP_LOCK does not
# already ship. Returns 1, writing nothing, when pip finds no TORCH wheel.
relock_voice() {
    local lock=$1 header=$2 dir=$3 app_lock=$4 torch=$5 target=$6 py=$7; shift 7
    local extra=() reqs=() keep=() wheel
    while [[ $# -gt 0 && $1 != -- ]]; do extra+=("$1"); shift; done
    shift
    rm -rf "$dir" && mkdir -p "$dir"
    quiet_pip $NICE "$PYTHON" -m pip download -q --no-deps "$@" -d "$dir" "$torch" || return 1
    # pip would evaluate torch's markers for this machine (pulling, for a Windows
    # target, its Linux-only CUDA wheels): its requirements are read for the target.
    mapfile -t reqs < <("$PYTHON" "$ROOT/installer/windows/stage_voice.py" requires \
        --wheel "$(ls "$dir"/torch-*.whl)" --platform "$target" --python "$py")
    lock_constraints "$app_lock" > "$dir/app-constraints.txt"
    # "|| exit": only a missing torch wheel is a reason to return (a caller may
    # run this as a condition, where set -e is off).
    quiet_pip $NICE "$PYTHON" -m pip download -q "$@" -d "$dir" \
        -c "$dir/app-constraints.txt" "${reqs[@]}" "${extra[@]}" || exit 1
    for wheel in "$dir"/*.whl; do
        grep -qiE "^$(wheel_name "$wheel")==" "$app_lock" || keep+=("$wheel")  # the app ships it
    done
    write_lock "$lock" "$header" "${keep[@]}" || exit 1
}

# fetch_locked LOCK CACHE OUT PIP_ARGS...: download LOCK's wheels into CACHE
# (hash-checked) and link exactly those into OUT. The cache may hold older
# versions, and other builds of the same version (another python's wheels when
# one cache serves several locks): the file is the one with the locked hash.
fetch_locked() {
    local lock=$1 cache=$2 out=$3; shift 3
    quiet_pip $NICE "$PYTHON" -m pip download -q --no-deps --require-hashes "$@" \
        -d "$cache" -r "$lock"
    rm -rf "$out" && mkdir -p "$out"
    local req rest n v pat f found
    while read -r req rest; do
        [[ -z $req || $req == \#* ]] && continue
        n=${req%%==*}; v=${req##*==}; pat=$(echo "$n" | tr - _)
        found=
        while read -r f; do
            [[ -n $f && $rest == *"sha256:$(sha256sum "$f" | cut -d' ' -f1)"* ]] && { found=$f; break; }
        done < <(find "$cache" -maxdepth 1 -iname "${pat}-${v}-*.whl")
        [[ -n $found ]] || { echo "locked wheel missing: $req" >&2; return 1; }
        ln -s "$found" "$out/"
    done < "$lock"
}
