#!/usr/bin/env bash
# scripts/install from a clean build: the time it takes and the size of the binary it installs,
# for the install script of an anchor commit (ANCHOR, default the commit before
# scripts/install built only the appdna product and stripped it) and for HEAD, each exported
# with `git archive` into bench/out/install-*/ and run RUNS times (default 2), alternating, each
# from an empty .build into a fresh prefix. Prints wall and CPU (user + sys) seconds per run,
# the medians, the installed binary's size, and HEAD's ratios to the anchor. On a shared machine
# wrap it in the build lock so no other build runs meanwhile; CPU seconds move less with load
# than wall seconds.
#
# Usage: bash bench/install.sh [ANCHOR] [RUNS]
set -euo pipefail
# shellcheck source=bench/common.sh
source "$(dirname "$0")/common.sh"
command -v bench_check_load >/dev/null && bench_check_load
need /usr/bin/time "apt-get install -y time"

anchor=${1:-643f6cf}
runs=${2:-2}
trees=(anchor head)
declare -A revision=([anchor]=$anchor [head]=HEAD)
for tree in "${trees[@]}"; do
    rm -rf "$OUT/install-$tree"
    mkdir -p "$OUT/install-$tree/src"
    git -C "$ROOT" archive "${revision[$tree]}" | tar -x -C "$OUT/install-$tree/src"
done

declare -A wall cpu size
for run in $(seq 1 "$runs"); do
    for tree in "${trees[@]}"; do
        dir="$OUT/install-$tree"
        rm -rf "$dir/src/.build" "$dir/prefix"
        note "run $run: $tree (${revision[$tree]}), load $(cut -d' ' -f1-3 /proc/loadavg)"
        /usr/bin/time -f '%e %U %S' -o "$dir/time" "$dir/src/scripts/install" --prefix "$dir/prefix" > "$dir/log" 2>&1 ||
            { tail -20 "$dir/log" >&2; die "$tree: scripts/install failed"; }
        read -r w u s < "$dir/time"
        wall[$tree]+="$w "
        cpu[$tree]+="$(awk -v u="$u" -v s="$s" 'BEGIN { printf "%.1f", u + s }') "
        size[$tree]=$(wc -c < "$dir/prefix/bin/appdna")
    done
done

median_of() { tr ' ' '\n' | grep . | sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
echo
echo "scripts/install from a clean build: anchor $anchor vs HEAD, $runs runs each, alternating"
machine_line
printf '  %-8s %-30s %-30s %12s %14s\n' tree "wall s (each run)" "CPU s user+sys (each run)" "median wall" "binary bytes"
for tree in "${trees[@]}"; do
    printf '  %-8s %-30s %-30s %12s %14s\n' "$tree" "${wall[$tree]}" "${cpu[$tree]}" "$(median_of <<< "${wall[$tree]}")" "${size[$tree]}"
done
echo "  HEAD / anchor: wall $(div "$(median_of <<< "${wall[head]}")" "$(median_of <<< "${wall[anchor]}")")x," \
    "CPU $(div "$(median_of <<< "${cpu[head]}")" "$(median_of <<< "${cpu[anchor]}")")x," \
    "binary size $(div "${size[head]}" "${size[anchor]}")x$(unreliable_mark)"
