# Shared by installer/deb/build.sh and build_voice.sh (sourced, not run).
# Needs HERE (this folder) set by the caller.

# shellcheck source=../common.sh
source "$HERE/../common.sh"
WORK=$ROOT/build/deb
CACHE=$WORK/cache

# pip_linux PY: fill PIP_LINUX with pip's target options for python PY; glibc ≤ 2.36
# (Debian 12) for every version: the newer distributions run these too.
pip_linux() {
    PIP_LINUX=(--platform manylinux_2_36_x86_64 --platform manylinux_2_34_x86_64
               --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64
               --platform manylinux2014_x86_64 --platform linux_x86_64
               --python-version "$1" --implementation cp --only-binary=:all:)
}
# lock_of PY: the main package's lock for python PY.
lock_of() { echo "$HERE/requirements-linux-py$1.txt"; }

# build_deb TREE NAME: write the tree's Installed-Size and build dist/NAME_<version>_amd64.deb.
build_deb() {
    local tree=$1 out=$DIST/$2_${VERSION}_amd64.deb kb
    kb=$(du -sk --apparent-size "$tree" | cut -f1)
    sed -i "s/^Installed-Size: .*/Installed-Size: $kb/" "$tree/DEBIAN/control"
    step "dpkg-deb (gzip; xz takes ten minutes on 2 cores)"
    SECONDS=0
    $NICE fakeroot dpkg-deb -Zgzip --build "$tree" "$out" >/dev/null
    echo "dpkg-deb took ${SECONDS} s"
    ls -l "$out"
    echo "installed size: $((kb / 1024)) MiB"
}
