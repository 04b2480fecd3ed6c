#!/usr/bin/env bash
# Benchmarks `appdna webhook verify`: a 256 MB body against sha256sum and openssl's HMAC
# (throughput), and a one-shot verify of a 2 KB body against a Swift hello-world (start-up).
# Run by hand from anywhere: bash bench/webhook.sh   (about a minute; see bench/README.md)
set -euo pipefail
# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"
bench_check_load

BODY_BIG="$OUT/webhook-body-256m.bin"
BODY_SMALL="$OUT/webhook-body-2k.json"
SECRET_FILE="$OUT/webhook-secret.txt"

# --- tools --------------------------------------------------------------------------------
need sha256sum "install coreutils"
need openssl "install openssl (apt-get install -y openssl)"
need jq "install jq (apt-get install -y jq)"
need swiftc "install a Swift toolchain"
[[ -x /usr/bin/time ]] || die "/usr/bin/time is missing: apt-get install -y time"
ensure_hyperfine
ensure_appdna

ensure_hello

# --- data (generated once) ----------------------------------------------------------------
# A benchmark secret, not a real one. openssl takes its key in argv, so this one is public.
SECRET=bench-webhook-secret-not-real
printf '%s\n' "$SECRET" > "$SECRET_FILE"
if [[ ! -s "$BODY_BIG" || $(stat -c %s "$BODY_BIG") -ne 268435456 ]]; then
    note "generating a 256 MB random body into $BODY_BIG"
    head -c 268435456 /dev/urandom > "$BODY_BIG"
fi
if [[ ! -s "$BODY_SMALL" ]]; then
    note "generating a 2 KB webhook body into $BODY_SMALL"
    {
        printf '{"id":"evt-bench","type":"payment.completed","created_at":"2026-02-19T10:00:00Z","data":{"note":"'
        head -c 4096 /dev/zero | tr '\0' 'x' | head -c 1920
        printf '"}}'
    } > "$BODY_SMALL"
fi
big_mb=$(awk -v b="$(stat -c %s "$BODY_BIG")" 'BEGIN { printf "%.0f", b / 1048576 }')

# --- 1. correctness: appdna agrees with openssl -------------------------------------------
sig_big="sha256=$(openssl dgst -sha256 -hmac "$SECRET" -r "$BODY_BIG" | cut -d' ' -f1)"
sig_small="sha256=$(openssl dgst -sha256 -hmac "$SECRET" -r "$BODY_SMALL" | cut -d' ' -f1)"
[[ "$("$APPDNA" webhook sign "$BODY_BIG" --secret-file "$SECRET_FILE")" == "$sig_big" ]] \
    || die "appdna webhook sign and openssl disagree on $BODY_BIG"
"$APPDNA" webhook verify "$BODY_BIG" --secret-file "$SECRET_FILE" --signature "$sig_big" > /dev/null \
    || die "appdna webhook verify rejected openssl's signature of $BODY_BIG"
"$APPDNA" webhook verify "$BODY_SMALL" --secret-file "$SECRET_FILE" --signature "$sig_small" > /dev/null \
    || die "appdna webhook verify rejected openssl's signature of $BODY_SMALL"

# --- 2. throughput, 256 MB ----------------------------------------------------------------
q() { printf '%q ' "$@"; }
note "throughput: verify vs sha256sum vs openssl HMAC on ${big_mb} MB (hyperfine -N --warmup 1 --runs 5)"
hyperfine -N --style none --warmup 1 --runs 5 --export-json "$OUT/webhook-throughput.json" \
    -n "appdna webhook verify" "$(q "$APPDNA" webhook verify "$BODY_BIG" --secret-file "$SECRET_FILE" --signature "$sig_big")" \
    -n "sha256sum" "$(q sha256sum "$BODY_BIG")" \
    -n "openssl dgst -hmac" "$(q openssl dgst -sha256 -hmac "$SECRET" "$BODY_BIG")" >/dev/null

note "memory: peak RSS of appdna webhook verify on ${big_mb} MB from stdin (/usr/bin/time -v)"
rss_big=$(peak_rss_kb "$BODY_BIG" "$APPDNA" webhook verify - --secret-file "$SECRET_FILE" --signature "$sig_big")

# --- 3. start-up, 2 KB --------------------------------------------------------------------
note "start-up: verify a 2 KB body vs Swift hello-world (hyperfine -N --warmup 20 --runs 300)"
hyperfine -N --style none --warmup 20 --runs 300 --export-json "$OUT/webhook-startup.json" \
    -n "appdna webhook verify 2KB" "$(q "$APPDNA" webhook verify "$BODY_SMALL" --secret-file "$SECRET_FILE" --signature "$sig_small")" \
    -n "swift hello-world" "$(q "$HELLO")" >/dev/null

# --- report -------------------------------------------------------------------------------
T="$OUT/webhook-throughput.json"
t_app=$(median "$T" 0)
t_sum=$(median "$T" 1)
t_ssl=$(median "$T" 2)
rate() { awk -v t="$1" -v m="$big_mb" 'BEGIN { printf "%8.0f MB/s", m / t }'; }
vs_sum=$(div "$t_sum" "$t_app")
vs_ssl=$(div "$t_ssl" "$t_app")
startup_ratio=$(div "$(median "$OUT/webhook-startup.json" 0)" "$(median "$OUT/webhook-startup.json" 1)")

echo
echo "appdna webhook verify benchmark"
machine_line
echo "SHA-256 path: $(if grep -qw sha_ni /proc/cpuinfo; then echo 'SHA-NI (x86 SHA extensions)'; else echo 'portable Swift'; fi)"
echo "input: $BODY_BIG (${big_mb} MB random bytes); $BODY_SMALL ($(stat -c %s "$BODY_SMALL") bytes)"
echo "check: appdna webhook sign equals openssl dgst -sha256 -hmac on both; verify accepts openssl's signatures"
echo
echo "throughput: ${big_mb} MB body from a file (verify computes the HMAC and the body's SHA-256)"
printf '  %-24s %12s %22s %5s %14s\n' command median "mean +- sd" runs throughput
timing_row "appdna webhook verify" "$T" 0 s; rate "$t_app"; echo
timing_row "sha256sum" "$T" 1 s; rate "$t_sum"; echo
timing_row "openssl dgst -hmac" "$T" 2 s; rate "$t_ssl"; echo
echo
echo "memory: peak RSS of appdna webhook verify - < ${big_mb} MB: $(mb "$rss_big") MB"
echo
echo "start-up: hyperfine -N --warmup 20 --runs 300"
printf '  %-24s %12s %22s %5s\n' command median "mean +- sd" runs
timing_row "webhook verify 2 KB" "$OUT/webhook-startup.json" 0 ms; echo
timing_row "swift hello-world" "$OUT/webhook-startup.json" 1 ms; echo
echo
echo "targets (ratios of medians; the machine is shared, so single runs are noisy)"
printf '  %-46s %-12s %-10s %s\n' target measured need result
target_row "throughput vs sha256sum (sha256sum time / appdna)" "${vs_sum}x" ">= 0.8x" "$(ge "$vs_sum" 0.8)"
printf '  %-46s %-12s %-10s %s\n' "throughput vs openssl HMAC (openssl / appdna)" "${vs_ssl}x" "-" "(reported, no target)"
target_row "memory: peak RSS, ${big_mb} MB body" "$(mb "$rss_big") MB" "< 32 MB" "$(lt "$rss_big" 32768)"
target_row "start-up: verify 2 KB / hello-world wall time" "${startup_ratio}x" "< 2x" "$(lt "$startup_ratio" 2)"
