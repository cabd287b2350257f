# Shared by installer/windows/build.sh, installer/windows/build_gpu_pack.sh and
# installer/deb/build.sh (sourced, not run).
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

# write_lock LOCK HEADER WHEEL...: write "name==version --hash=sha256:..." for
# each wheel to LOCK after the HEADER lines.
write_lock() {
    local lock=$1 header=$2; shift 2
    local w b n v
    {
        printf '%s\n' "$header"
        for w in "$@"; do
            b=$(basename "$w"); n=$(echo "${b%%-*}" | tr _ - | tr '[:upper:]' '[:lower:]')
            v=$(echo "$b" | cut -d- -f2)
            echo "$n==$v --hash=sha256:$(sha256sum "$w" | cut -d' ' -f1)"
        done
    } > "$lock"
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
