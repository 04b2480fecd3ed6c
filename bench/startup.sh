#!/usr/bin/env bash
# Start-up of the self-contained release binary (Swift runtime linked in with
# --static-swift-stdlib, as scripts/install installs it) against the Swift hello-world of
# common.sh (dynamic runtime), plus what the binary links and its size.
# Target: start-up within 2x a hello-world. APPDNA_STARTUP_RUNS overrides the run count (300).
set -euo pipefail
# shellcheck source=bench/common.sh
source "$(dirname "$0")/common.sh"
command -v bench_check_load >/dev/null && bench_check_load

need jq "apt-get install -y jq"
ensure_hyperfine
ensure_appdna
ensure_hello
RUNS=${APPDNA_STARTUP_RUNS:-300}

if [[ $(uname -s) == Linux ]] && ldd "$APPDNA" | grep -q libswift; then
    note "$APPDNA loads the Swift runtime dynamically; rebuilding it self-contained (${RELEASE_BUILD[*]})"
    (cd "$ROOT" && "${RELEASE_BUILD[@]}") >&2 || die "${RELEASE_BUILD[*]} failed"
fi

q() { printf '%q ' "$@"; }
note "start-up: hyperfine -N --warmup 20 --runs $RUNS"
hyperfine -N --style none --warmup 20 --runs "$RUNS" --export-json "$OUT/startup-static.json" \
    -n "appdna --version" "$(q "$APPDNA" --version)" \
    -n "appdna bucket u e s" "$(q "$APPDNA" bucket u e s)" \
    -n "swift hello-world" "$(q "$HELLO")" >/dev/null

version_ratio=$(div "$(median "$OUT/startup-static.json" 0)" "$(median "$OUT/startup-static.json" 2)")
bucket_ratio=$(div "$(median "$OUT/startup-static.json" 1)" "$(median "$OUT/startup-static.json" 2)")
swift_libs=0
[[ $(uname -s) == Linux ]] && swift_libs=$(ldd "$APPDNA" | grep -c -e libswift -e /swift || true)

echo
echo "appdna start-up benchmark (self-contained release binary)"
machine_line
echo "binary: $(du -h "$APPDNA" | cut -f1), links: $( (ldd "$APPDNA" 2>/dev/null || otool -L "$APPDNA") | awk 'NR > 1 || /=>/ { print $1 }' | sort -u | tr '\n' ' ')"
echo
echo "start-up: hyperfine -N --warmup 20 --runs $RUNS"
printf '  %-24s %12s %22s %5s\n' command median "mean +- sd" runs
timing_row "appdna --version" "$OUT/startup-static.json" 0 ms; echo
timing_row "appdna bucket u e s" "$OUT/startup-static.json" 1 ms; echo
timing_row "swift hello-world" "$OUT/startup-static.json" 2 ms; echo
echo
echo "targets (ratios of medians; the machine is shared, so single runs are noisy)"
printf '  %-46s %-12s %-10s %s\n' target measured need result
target_row "no Swift library or toolchain path in ldd" "$swift_libs" "0" "$( [[ $swift_libs == 0 ]] && echo 1 || echo 0)"
target_row "start-up: appdna --version / hello-world" "${version_ratio}x" "< 2x" "$(lt "$version_ratio" 2)"
target_row "start-up: appdna bucket / hello-world" "${bucket_ratio}x" "< 2x" "$(lt "$bucket_ratio" 2)"
