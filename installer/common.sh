# Shared by every installer build script (sourced, not run): where things are,
# the app version, progress lines, the --relock option, pyproject's torch pin,
# and (installer/wheels.sh) the hash-locked wheels.

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PYTHON=${PYTHON:-$ROOT/.venv/bin/python}
MODELS_DIR=${MODELS_DIR:-$ROOT/build/models}
DIST=$ROOT/dist
NICE="nice -n 15"
# shellcheck source=wheels.sh
source "$ROOT/installer/wheels.sh"

step() { echo "== $(date +%T) $*"; }

VERSION=$("$PYTHON" -c 'import tomllib,sys; print(tomllib.load(open(sys.argv[1],"rb"))["project"]["version"])' "$ROOT/pyproject.toml")

# parse_relock ARGS...: RELOCK=1 when --relock is given; any other argument stops the build.
parse_relock() {
    RELOCK=0
    local arg
    for arg in "$@"; do
        case $arg in
            --relock) RELOCK=1 ;;
            *) echo "unknown option: $arg" >&2; exit 2 ;;
        esac
    done
}

# torch_pin: the torch of the model builds, "torch==X.Y.Z"
# (pyproject.toml [project.optional-dependencies] build).
torch_pin() {
    "$PYTHON" - "$ROOT/pyproject.toml" <<'PY'
import sys, tomllib
extras = tomllib.load(open(sys.argv[1], "rb"))["project"]["optional-dependencies"]
print(next(d for d in extras["build"] if d.replace(" ", "").startswith("torch==")).replace(" ", ""))
PY
}

# need_training_weights: stop unless the voice packs' weights are built.
need_training_weights() {
    [[ -f $MODELS_DIR/whisper-base-train/model.json ]] || {
        echo "no $MODELS_DIR/whisper-base-train: build the models (python -m models.build)" >&2
        exit 1
    }
}

# build_app_wheel: build the app's own wheel into $WORK/appwheel; sets APP_WHEEL.
build_app_wheel() {
    step "building the app wheel"
    rm -rf "$WORK/appwheel"
    $NICE "$PYTHON" -m pip wheel -q --no-deps -w "$WORK/appwheel" "$ROOT"
    APP_WHEEL=$(ls "$WORK"/appwheel/therapy_app-*.whl)
}

# write_licences OUT SITE...: THIRD_PARTY_LICENSES for the packages of every
# SITE (site-packages) and the models bundled in the first one.
write_licences() {
    local out=$1 site args=()
    shift
    for site in "$@"; do args+=(--site-packages "$site"); done
    "$PYTHON" "$ROOT/installer/licenses.py" "${args[@]}" \
        --models "$1/therapy_app/_models" --models "$1/therapy_app/_resources/models" \
        --out "$out"
}
