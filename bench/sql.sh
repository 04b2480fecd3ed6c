#!/usr/bin/env bash
# Benchmarks the generated warehouse SQL on the engines users run it on, each figure beside its
# anchor in the same run and the same process: the engine's own built-in hash over the same
# table (ClickHouse's murmurHash3_32, Spark's and DuckDB's hash()) grouped the same way — the
# floor a spelled-out hash is measured against.
#
# Per engine (one process each, so Spark starts one JVM), ids like user-0001234, one experiment:
#   anchor      SELECT <built-in hash> % 2, count(*) … GROUP BY 1                (forced: yes)
#   assignment  SELECT variant, count(*) FROM (warehouse assignment) GROUP BY 1  (forced: yes)
#   assignment  SELECT count(*) FROM (warehouse assignment)                       (forced: no — an
#               engine may prune the hash; printed to show why the grouped figure is the one)
#   audit       SELECT count(*) FROM (warehouse audit) over exposures made by the assignment
#               query itself, 1 in 1,000 planted as a mismatch           (forced: yes, its filter
#               compares every row's expected variant)
# "forced" says whether the query must compute the hash for every row. Then DuckDB and chDB
# hash 20 ids of 16,000 and of 32,000 bytes: time linear in the id's length doubles.
#
# Sizes (issue 36): chDB 10,000,000 users, DuckDB 1,000,000, Spark local[2] 200,000.
# SQL_BASELINE_BIN=path/to/older/appdna adds the same rows for that build's queries (its
# `warehouse` commands, or the `bucket --sql` / `queue inspect --sql` of earlier releases), so
# before and after are measured in one run.
# SQL_ENGINES="duckdb spark" measures only those engines.
# Run by hand from anywhere: bash bench/sql.sh
#   SQL_CHDB_IDS=1000000 SQL_DUCKDB_IDS=200000 SQL_SPARK_IDS=50000 bash bench/sql.sh  for a quick look.
set -euo pipefail
# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

CHDB_IDS=${SQL_CHDB_IDS:-10000000}
DUCKDB_IDS=${SQL_DUCKDB_IDS:-1000000}
SPARK_IDS=${SQL_SPARK_IDS:-200000}
need python3 "install python3"
ensure_appdna
bench_check_load
mkdir -p "$OUT"
BUNDLE="$OUT/sql-bundle.json"
cat > "$BUNDLE" <<'JSON'
{"experiments": {"checkout": {"salt": "s3cr3t", "status": "running",
  "variants": [{"id": "control", "weight": 0.57}, {"id": "treatment", "weight": 0.43}]}}}
JSON

# query BINARY KIND ENGINE OUT: the assignment or audit query of BINARY for ENGINE into OUT
# (`warehouse`, else the spellings of earlier releases).
query() {
    local bin=$1 kind=$2 engine=$3 out=$4
    if [[ $kind == assignment ]]; then
        "$bin" warehouse assignment "$BUNDLE" --dialect "$engine" > "$out" 2>/dev/null ||
            "$bin" bucket --sql "$engine" --bundle "$BUNDLE" > "$out"
    else
        "$bin" warehouse audit "$BUNDLE" --dialect "$engine" --exposures exposures > "$out" 2>/dev/null ||
            "$bin" queue inspect --bundle "$BUNDLE" --sql "$engine" --exposures exposures > "$out"
    fi
}

machine_line 2>/dev/null || true
printf '%-10s %-9s %-24s %10s %9s %13s %13s %8s %s\n' engine build query rows seconds rows/s anchor/s "x anchor" forced
for engine in ${SQL_ENGINES:-clickhouse duckdb spark}; do
    case $engine in clickhouse) module=chdb n=$CHDB_IDS ;; duckdb) module=duckdb n=$DUCKDB_IDS ;; spark) module=pyspark n=$SPARK_IDS ;; esac
    if ! python3 -c "import $module" 2>/dev/null; then
        printf '%-10s skipped: python3 module %s is not installed (scripts/install-test-tools)\n' "$engine" "$module"
        continue
    fi
    builds=(current)
    query "$APPDNA" assignment "$engine" "$OUT/sql-current-assignment-$engine.sql"
    query "$APPDNA" audit "$engine" "$OUT/sql-current-audit-$engine.sql"
    if [[ -n "${SQL_BASELINE_BIN:-}" ]]; then
        builds+=(baseline)
        query "$SQL_BASELINE_BIN" assignment "$engine" "$OUT/sql-baseline-assignment-$engine.sql"
        query "$SQL_BASELINE_BIN" audit "$engine" "$OUT/sql-baseline-audit-$engine.sql"
    fi
    SPARK_LOCAL_IP=127.0.0.1 python3 - "$engine" "$n" "$OUT" "${builds[@]}" <<'PY'
import sys, time, os
engine, n, out, builds = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4:]
read = lambda name: open(os.path.join(out, name)).read()
if engine == "clickhouse":
    from chdb import session
    s = session.Session()
    s.query(f"CREATE TABLE users ENGINE = Memory AS SELECT concat('user-', leftPad(toString(number), 7, '0')) AS user_id FROM numbers({n})")
    run = lambda q: s.query(q, "CSV")
    scalar = lambda result: int(str(result).strip())
    make = lambda name, q: s.query(f"CREATE OR REPLACE TABLE {name} ENGINE = Memory AS {q}")
    anchor = "SELECT murmurHash3_32(user_id) % 2 AS v, count(*) FROM users GROUP BY v"
    long_table = lambda size: f"SELECT concat(repeat('é', {size // 2 - 2}), toString(number + 1000)) AS user_id FROM numbers(20)"
elif engine == "duckdb":
    import duckdb
    con = duckdb.connect()
    con.execute("SET enable_progress_bar = false")
    con.execute(f"CREATE TABLE users AS SELECT 'user-' || lpad(CAST(range AS VARCHAR), 7, '0') AS user_id FROM range({n})")
    run = lambda q: con.execute(q).fetchall()
    scalar = lambda result: result[0][0]
    make = lambda name, q: con.execute(f"CREATE OR REPLACE TABLE {name} AS {q}")
    anchor = "SELECT CAST(hash(user_id) % 2 AS INTEGER) AS v, count(*) FROM users GROUP BY v"
    long_table = lambda size: f"SELECT repeat('é', {size // 2 - 2}) || CAST(range + 1000 AS VARCHAR) AS user_id FROM range(20)"
else:
    from pyspark.sql import SparkSession
    spark = (SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
             .config("spark.driver.bindAddress", "127.0.0.1").config("spark.sql.shuffle.partitions", "4").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    spark.sql(f"SELECT concat('user-', lpad(CAST(id AS STRING), 7, '0')) AS user_id FROM range({n})").cache().createOrReplaceTempView("users")
    spark.sql("SELECT count(*) FROM users").collect()
    run = lambda q: spark.sql(q).collect()
    scalar = lambda result: result[0][0]
    def make(name, q):
        spark.sql(q).cache().createOrReplaceTempView(name)
        spark.sql(f"SELECT count(*) FROM {name}").collect()
    anchor = "SELECT pmod(hash(user_id), 2) AS v, count(*) FROM users GROUP BY v"
    long_table = None  # 20 rows measure Spark's start-up, not the hash

def best(q, tries=2):
    seconds = float("inf")
    for _ in range(tries):
        start = time.time(); result = run(q); seconds = min(seconds, time.time() - start)
    return seconds, result

anchor_seconds, _ = best(anchor)
def row(build, label, rows, seconds, forced, note=""):
    rate = rows / seconds
    print(f"{engine:<10} {build:<9} {label:<24} {rows:>10} {seconds:>9.3f} {rate:>13,.0f} {n / anchor_seconds:>13,.0f} "
          f"{rate / (n / anchor_seconds):>7.3f}x {forced}{note}", flush=True)
row("-", "anchor (built-in hash)", n, anchor_seconds, "yes")
for build in builds:
    assignment, audit = read(f"sql-{build}-assignment-{engine}.sql"), read(f"sql-{build}-audit-{engine}.sql")
    seconds, _ = best(f"SELECT variant, count(*) FROM ({assignment}) AS q GROUP BY variant")
    row(build, "assignment GROUP BY", n, seconds, "yes")
    seconds, _ = best(f"SELECT count(*) FROM ({assignment}) AS q")
    row(build, "assignment count(*)", n, seconds, "no", "  (the hash may be pruned)")
    # The exposures: the assignment itself, 1 in 1,000 planted as a mismatch.
    make("exposures", f"SELECT concat('e', q.user_id) AS event_id, q.experiment AS experiment, q.user_id AS user_id, "
                      f"CASE WHEN substr(q.user_id, -3) = '000' THEN 'planted' ELSE q.variant END AS variant FROM ({assignment}) AS q")
    seconds, result = best(f"SELECT count(*) FROM ({audit}) AS a")
    row(build, "audit count(*)", n, seconds, "yes", f"  ({scalar(result)} found, {(n + 999) // 1000} planted)")
# Long ids (the users table is replaced, so this comes last): 20 ids of 16,000 and of 32,000
# bytes through the assignment; the baseline at 16,000 only (a quadratic hash takes long).
if long_table:
    for build in builds:
        assignment = read(f"sql-{build}-assignment-{engine}.sql")
        times = []
        for size in ((16000, 32000) if build == "current" else (16000,)):
            make("users", long_table(size))
            times.append(best(f"SELECT variant, count(*) FROM ({assignment}) AS q GROUP BY variant", tries=1 if build != "current" else 2)[0])
        doubled = f", of 32,000 bytes: {times[1]:.3f} s ({times[1] / times[0]:.2f}x for twice the length; linear is 2x, quadratic 4x)" if len(times) > 1 else ""
        print(f"{engine:<10} {build:<9} 20 ids of 16,000 bytes: {times[0]:.3f} s{doubled}", flush=True)
PY
done
