#!/usr/bin/env bash
# Benchmarks the generated SQL on the engines users would run it on, against appdna on one
# machine: (1) the assignment query (`appdna warehouse assignment`) against `appdna bucket -` on the
# same ids, 10,000,000 on chDB (ClickHouse in-process) and DuckDB, 1,000,000 on Spark local;
# (2) the exposure audit query (`appdna warehouse audit`) over 10,000,000 exposure
# rows (1,000,000 on Spark; 1 in 1,000 disagrees) against `appdna queue inspect --bundle` on a
# device-format queue of 1,000,000 such exposures. Prints rows/s for each and the ratio to
# appdna: the figure tells users when to move the work to an engine.
# Run by hand from anywhere: bash bench/sql.sh
# SQL_IDS=1000000 SQL_AUDIT_ROWS=1000000 bash bench/sql.sh   for a quick check.
set -euo pipefail
# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

IDS=${SQL_IDS:-10000000}
SPARK_IDS=${SQL_SPARK_IDS:-1000000}
AUDIT_ROWS=${SQL_AUDIT_ROWS:-10000000}
QUEUE_EVENTS=${SQL_QUEUE_EVENTS:-1000000}
need python3 "install python3"
need jq "install jq (apt-get install -y jq)"
ensure_appdna
mkdir -p "$OUT"
BUNDLE="$OUT/sql-bundle.json"
cat > "$BUNDLE" <<'JSON'
{"experiments": {"checkout": {"salt": "s3cr3t", "status": "running",
  "variants": [{"id": "control", "weight": 0.57}, {"id": "treatment", "weight": 0.43}]}}}
JSON
IDFILE="$OUT/sql-ids-$IDS.txt"
[[ -s "$IDFILE" ]] || python3 -c "import sys; sys.stdout.write(''.join(f'user-{i:09d}\n' for i in range($IDS)))" > "$IDFILE"

# The python3 module behind a dialect; false (with a line saying so) when it is not installed.
engine_available() {
    local module
    case $1 in clickhouse) module=chdb ;; duckdb) module=duckdb ;; spark) module=pyspark ;; esac
    python3 -c "import $module" 2>/dev/null && return 0
    printf '%-28s skipped: python3 module %s is not installed (scripts/install-test-tools)\n' "$1" "$module"
    return 1
}
# Rows per dialect: Spark local gets the smaller count.
rows_for() { if [[ $1 == spark ]]; then echo "$SPARK_IDS"; else echo "$2"; fi; }
rate() { awk -v n="$1" -v s="$2" 'BEGIN { printf "%.0f", n / s }'; }
# Runs a command (its output to $OUT/last.out), sets $seconds to its wall time.
timed() { local start; start=$(date +%s.%N); "$@" > "$OUT/last.out"; seconds=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { print b - a }'); }
row() { printf '%-30s %12s rows %7.2f s %14s rows/s  %s\n' "$@"; }

machine_line 2>/dev/null || true
timed "$APPDNA" bucket - checkout --bundle "$BUNDLE" < "$IDFILE"
appdna_rate=$(rate "$IDS" "$seconds")
row "appdna bucket -" "$IDS" "$seconds" "$appdna_rate" "1.00x"

for dialect in clickhouse duckdb spark; do
    engine_available "$dialect" || continue
    n=$(rows_for "$dialect" "$IDS")
    "$APPDNA" warehouse assignment "$BUNDLE" --dialect "$dialect" > "$OUT/sql-$dialect.sql"
    seconds=$(SPARK_LOCAL_IP=127.0.0.1 python3 - "$dialect" "$OUT/sql-$dialect.sql" "$n" <<'PY'
import sys, time
dialect, path, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
query = open(path).read()
wrapped = f"SELECT count(*), count(DISTINCT variant) FROM ({query}) AS q"
if dialect == "clickhouse":
    from chdb import session
    s = session.Session()
    s.query(f"CREATE TABLE users ENGINE = Memory AS SELECT concat('user-', leftPad(toString(number), 9, '0')) AS user_id FROM numbers({n})")
    t = time.time(); s.query(wrapped); print(time.time() - t)
elif dialect == "duckdb":
    import duckdb
    duckdb.sql(f"CREATE TABLE users AS SELECT 'user-' || lpad(CAST(range AS VARCHAR), 9, '0') AS user_id FROM range({n})")
    t = time.time(); duckdb.sql(wrapped).fetchall(); print(time.time() - t)
else:
    from pyspark.sql import SparkSession
    spark = SparkSession.builder.master("local[*]").config("spark.ui.enabled", "false").getOrCreate()
    spark.sql(f"SELECT concat('user-', lpad(CAST(id AS STRING), 9, '0')) AS user_id FROM range({n})").cache().createOrReplaceTempView("users")
    spark.sql("SELECT count(*) FROM users").collect()
    t = time.time(); spark.sql(wrapped).collect(); print(time.time() - t)
PY
)
    r=$(rate "$n" "$seconds")
    row "$dialect (assignment SQL)" "$n" "$seconds" "$r" "$(div "$r" "$appdna_rate")x of appdna"
done

# (2) The exposure audit. The device side: a queue of QUEUE_EVENTS events, one exposure each,
# the recorded variant what devices assign (from `appdna bucket -`) except 1 in 1,000.
note "exposure audit: appdna queue inspect --bundle on $QUEUE_EVENTS events vs the generated audit query"
QUEUE="$OUT/sql-audit-queue-$QUEUE_EVENTS.ndjson"
if [[ ! -s "$QUEUE" ]]; then
    head -n "$QUEUE_EVENTS" "$IDFILE" | "$APPDNA" bucket - checkout --bundle "$BUNDLE" --format tsv | python3 -c '
import sys
out = sys.stdout
for i, line in enumerate(sys.stdin):
    user, _hash, _bucket, variant = line.rstrip("\n").split("\t")[:4]
    if i % 1000 == 0: variant = "planted"
    out.write("{\"schema_version\":1,\"event_id\":\"00000000-0000-4000-8000-%012d\",\"event_name\":\"screen_viewed\",\"ts_ms\":1771495200000,"
              "\"user\":{\"anon_id\":\"a\",\"user_id\":\"%s\"},\"device\":{\"platform\":\"ios\",\"sdk_version\":\"1.0.78\",\"bundle_version\":1},"
              "\"context\":{\"session_id\":\"s%d\",\"experiment_exposures\":[{\"exp\":\"checkout\",\"variant\":\"%s\"}]},\"properties\":{}}\n" % (i, user, i, variant))
' > "$QUEUE"
fi
timed "$APPDNA" queue inspect "$QUEUE" --bundle "$BUNDLE" --json
queue_found=$(jq -r .exposure_audit.disagreeing "$OUT/last.out")
queue_rate=$(rate "$QUEUE_EVENTS" "$seconds")
row "appdna queue inspect --bundle" "$QUEUE_EVENTS" "$seconds" "$queue_rate" "1.00x  ($queue_found disagreeing found, $(( (QUEUE_EVENTS + 999) / 1000 )) planted)"

for dialect in clickhouse duckdb spark; do
    engine_available "$dialect" || continue
    n=$(rows_for "$dialect" "$AUDIT_ROWS")
    "$APPDNA" warehouse audit "$BUNDLE" --dialect "$dialect" --exposures exposures > "$OUT/sql-audit-$dialect.sql"
    # The exposures are made in the engine by the assignment query itself (then 1 in 1,000 planted).
    result=$(SPARK_LOCAL_IP=127.0.0.1 python3 - "$dialect" "$OUT/sql-$dialect.sql" "$OUT/sql-audit-$dialect.sql" "$n" <<'PY'
import sys, time
dialect, assignment, audit, n = sys.argv[1], open(sys.argv[2]).read(), open(sys.argv[3]).read(), int(sys.argv[4])
make = (f"SELECT concat('e', CAST(q.bucket AS TEXT_TYPE), '-', q.user_id) AS event_id, q.experiment AS experiment, q.user_id AS user_id, "
        f"CASE WHEN substr(q.user_id, -3) = '000' THEN 'planted' ELSE q.variant END AS variant FROM ({assignment}) AS q")
wrapped = f"SELECT count(*) FROM ({audit}) AS a"
if dialect == "clickhouse":
    from chdb import session
    s = session.Session()
    s.query(f"CREATE TABLE users ENGINE = Memory AS SELECT concat('user-', leftPad(toString(number), 9, '0')) AS user_id FROM numbers({n})")
    s.query("CREATE TABLE exposures ENGINE = Memory AS " + make.replace("TEXT_TYPE", "String"))
    t = time.time(); found = str(s.query(wrapped, "CSV")).strip(); print(time.time() - t, found)
elif dialect == "duckdb":
    import duckdb
    duckdb.sql("SET enable_progress_bar = false")
    duckdb.sql(f"CREATE TABLE users AS SELECT 'user-' || lpad(CAST(range AS VARCHAR), 9, '0') AS user_id FROM range({n})")
    duckdb.sql("CREATE TABLE exposures AS " + make.replace("TEXT_TYPE", "VARCHAR"))
    t = time.time(); found = duckdb.sql(wrapped).fetchall()[0][0]; print(time.time() - t, found)
else:
    from pyspark.sql import SparkSession
    spark = SparkSession.builder.master("local[*]").config("spark.ui.enabled", "false").getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    spark.sql(f"SELECT concat('user-', lpad(CAST(id AS STRING), 9, '0')) AS user_id FROM range({n})").createOrReplaceTempView("users")
    spark.sql(make.replace("TEXT_TYPE", "STRING")).cache().createOrReplaceTempView("exposures")
    spark.sql("SELECT count(*) FROM exposures").collect()
    t = time.time(); found = spark.sql(wrapped).collect()[0][0]; print(time.time() - t, found)
PY
)
    seconds=${result% *} found=${result#* }
    r=$(rate "$n" "$seconds")
    row "$dialect (audit SQL)" "$n" "$seconds" "$r" "$(div "$r" "$queue_rate")x of appdna  ($found disagreeing found, $(( (n + 999) / 1000 )) planted)"
done
