# shellcheck shell=bash
# Shared helpers for bench/*.sh; sourced, not run.

BENCH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(cd "$BENCH_DIR/.." && pwd)
OUT="$BENCH_DIR/out"
# APPDNA_BIN=PATH measures another build (a debug one, or one in another scratch path).
APPDNA="${APPDNA_BIN:-$ROOT/.build/release/appdna}"
mkdir -p "$OUT"

die() { printf 'bench: %s\n' "$*" >&2; exit 1; }
note() { printf '== %s\n' "$*" >&2; }

# The documented release build: on Linux the Swift runtime is linked in (what scripts/install
# installs), so the benches measure the binary users run.
RELEASE_BUILD=(swift build -c release)
[[ $(uname -s) == Linux ]] && RELEASE_BUILD+=(--static-swift-stdlib)

# Builds the release binary when it is missing (or always with APPDNA_BUILD=1); warns when
# sources are newer than it.
ensure_appdna() {
    if [[ -n "${APPDNA_BIN:-}" ]]; then
        [[ -x "$APPDNA" ]] || die "APPDNA_BIN=$APPDNA is not an executable"
        return
    fi
    if [[ ! -x "$APPDNA" || "${APPDNA_BUILD:-0}" == 1 ]]; then
        note "building appdna (${RELEASE_BUILD[*]})"
        (cd "$ROOT" && "${RELEASE_BUILD[@]}") >&2 || die "${RELEASE_BUILD[*]} failed"
    fi
    local newer
    newer=$(find "$ROOT/Sources" "$ROOT/Package.swift" -type f -newer "$APPDNA" -print -quit)
    if [[ -n "$newer" ]]; then
        note "WARNING: $newer is newer than $APPDNA; rerun with APPDNA_BUILD=1 to measure the current sources"
    fi
}

# hyperfine: installed through apt when missing and we are root; otherwise say what to do.
ensure_hyperfine() {
    command -v hyperfine >/dev/null && return
    if [[ $(id -u) -eq 0 ]] && command -v apt-get >/dev/null; then
        note "installing hyperfine (apt-get install -y hyperfine)"
        apt-get install -y hyperfine >&2 || die "apt-get install -y hyperfine failed"
    else
        die "hyperfine is missing: install it (sudo apt-get install -y hyperfine)"
    fi
}

need() { command -v "$1" >/dev/null || die "$1 is missing: $2"; }

# The Swift hello-world every start-up comparison measures against, built like the release
# binary (-O -wmo, dynamic stdlib), once: $OUT/hello.
HELLO="$OUT/hello"
ensure_hello() {
    [[ -x "$HELLO" ]] && return
    need swiftc "install a Swift toolchain"
    note "building the Swift hello-world (swiftc -O -wmo, dynamic stdlib as in the release build)"
    printf 'print("hello")\n' > "$OUT/hello.swift"
    swiftc -O -wmo -o "$HELLO" "$OUT/hello.swift"
}

# mean_of JSON [INDEX]: mean seconds of result INDEX (default 0) in a hyperfine --export-json file.
mean_of() { jq -r ".results[${2:-0}].mean" "$1"; }
stddev_of() { jq -r ".results[${2:-0}].stddev" "$1"; }

# peak_rss_kb INPUT COMMAND...: peak RSS in KiB of COMMAND run with stdin from INPUT and
# stdout to /dev/null, from /usr/bin/time -v. Dies if COMMAND fails.
peak_rss_kb() {
    local input=$1 log="$OUT/time-v.log" kb
    shift
    /usr/bin/time -v -o "$log" "$@" < "$input" > /dev/null || { cat "$log" >&2; die "failed: $*"; }
    kb=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$log")
    [[ "$kb" =~ ^[0-9]+$ && "$kb" -gt 0 ]] || die "no peak RSS in $log"
    echo "$kb"
}

# verdict OK: PASS or MISS
verdict() { if [[ "$1" == 1 ]]; then echo PASS; else echo MISS; fi; }


machine_line() {
    printf 'machine: %s, %s cores, load %s; appdna %s (git %s%s)\n' \
        "$(uname -sr)" "$(nproc)" "$(cut -d' ' -f1-3 /proc/loadavg)" \
        "$APPDNA" "$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')" \
        "$(git -C "$ROOT" diff --quiet HEAD -- Sources 2>/dev/null || echo ', Sources modified')"
}

# --- report helpers ---------------------------------------------------------------------
median() { jq -r ".results[${2:-0}].median" "$1"; }
# timing_row LABEL JSON INDEX UNIT(s|ms): median, mean +- sd, runs
timing_row() {
    local scale=1
    [[ "$4" == ms ]] && scale=1000
    awk -v n="$1" -v u="$4" -v k="$scale" -v med="$(median "$2" "$3")" -v mean="$(mean_of "$2" "$3")" \
        -v sd="$(stddev_of "$2" "$3")" -v runs="$(jq -r ".results[$3].times | length" "$2")" \
        'BEGIN { printf "  %-24s %9.3f %-2s %9.3f +- %7.3f %-2s %5d", n, med * k, u, mean * k, sd * k, u, runs }'
}
# target_row LABEL MEASURED NEED PASS(1|0)
target_row() { printf '  %-46s %-12s %-10s %s%s\n' "$1" "$2" "$3" "$(verdict "$4")" "$(unreliable_mark)"; }
ge() { awk -v a="$1" -v b="$2" 'BEGIN { print (a >= b) ? 1 : 0 }'; }
lt() { awk -v a="$1" -v b="$2" 'BEGIN { print (a < b) ? 1 : 0 }'; }
div() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
mb() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }

# bench_check_load: prints the machine load before a benchmark starts and refuses to go on when
# the 1-minute load average exceeds the core count (other work on the machine makes ratios
# meaningless). BENCH_IGNORE_LOAD=1 runs anyway for development: the load is still printed and
# BENCH_UNRELIABLE=1 makes every reported ratio carry "(unreliable: loaded machine)".
BENCH_UNRELIABLE=0
bench_check_load() {
    local load1 cores
    load1=$(cut -d' ' -f1 /proc/loadavg)
    cores=$(nproc)
    printf 'load: %s (1/5/15-minute averages) on %s cores\n' "$(cut -d' ' -f1-3 /proc/loadavg)" "$cores" >&2
    if awk -v l="$load1" -v c="$cores" 'BEGIN { exit !(l > c) }'; then
        if [[ "${BENCH_IGNORE_LOAD:-0}" == 1 ]]; then
            BENCH_UNRELIABLE=1
            note "WARNING: 1-minute load $load1 > $cores cores; BENCH_IGNORE_LOAD=1, so going on, and every figure is marked unreliable"
        else
            die "1-minute load $load1 > $cores cores: ratios would be meaningless; wait for a quiet machine (or BENCH_IGNORE_LOAD=1 to run anyway, figures marked unreliable)"
        fi
    fi
}
# unreliable_mark: the suffix every ratio gets when the load check was overridden.
unreliable_mark() { [[ "$BENCH_UNRELIABLE" == 1 ]] && printf ' (unreliable: loaded machine)'; return 0; }

# ensure_big_bundle PATH SIZE_MB: makes PATH with make_big_bundle.py once (deterministic), again
# when the generator is newer.
ensure_big_bundle() {
    if [[ ! -s "$1" || "$BENCH_DIR/make_big_bundle.py" -nt "$1" ]]; then
        note "generating a ${2} MB bundle into $1"
        python3 "$BENCH_DIR/make_big_bundle.py" "$1" "$2"
    fi
}
