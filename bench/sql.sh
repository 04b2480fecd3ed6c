#!/usr/bin/env bash
# Benchmarks the generated assignment SQL (`appdna bucket --sql`) on the engines users would
# run it on, against `appdna bucket -` on the same ids: chDB (ClickHouse in-process) and
# DuckDB over 10,000,000 ids, Spark local over 1,000,000 (when pyspark is installed).
# Prints rows/s for each and the ratio to `appdna bucket -`: the figure tells users when to
# move the work to an engine.
# Run by hand from anywhere: bash bench/sql.sh        SQL_IDS=1000000 bash bench/sql.sh for a quick check.
set -euo pipefail
# shellcheck source=common.sh
source "$(dirname "${BASH_SOURCE[0]}")/common.sh"

IDS=${SQL_IDS:-10000000}
SPARK_IDS=${SQL_SPARK_IDS:-1000000}
need python3 "install python3"
ensure_appdna
mkdir -p "$OUT"
BUNDLE="$OUT/sql-bundle.json"
cat > "$BUNDLE" <<'JSON'
{"experiments": {"checkout": {"salt": "s3cr3t", "status": "running",
  "variants": [{"id": "control", "weight": 0.57}, {"id": "treatment", "weight": 0.43}]}}}
JSON
IDFILE="$OUT/sql-ids-$IDS.txt"
[[ -s "$IDFILE" ]] || python3 -c "import sys; sys.stdout.write(''.join(f'user-{i:09d}\n' for i in range($IDS)))" > "$IDFILE"

machine_line 2>/dev/null || true
start=$(date +%s.%N)
"$APPDNA" bucket - checkout --bundle "$BUNDLE" < "$IDFILE" > /dev/null
appdna_s=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN { print b - a }')
appdna_rate=$(awk -v n="$IDS" -v s="$appdna_s" 'BEGIN { printf "%.0f", n / s }')
printf '%-28s %12s ids %8.2f s %14s rows/s  %s\n' "appdna bucket -" "$IDS" "$appdna_s" "$appdna_rate" "1.00x"

for dialect in clickhouse duckdb spark; do
    n=$IDS
    case $dialect in
        clickhouse) module=chdb ;;
        duckdb) module=duckdb ;;
        spark) module=pyspark; n=$SPARK_IDS ;;
    esac
    if ! python3 -c "import $module" 2>/dev/null; then
        printf '%-28s skipped: python3 module %s is not installed (scripts/install-test-tools)\n' "$dialect" "$module"
        continue
    fi
    "$APPDNA" bucket --sql "$dialect" --bundle "$BUNDLE" > "$OUT/sql-$dialect.sql"
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
    rate=$(awk -v n="$n" -v s="$seconds" 'BEGIN { printf "%.0f", n / s }')
    printf '%-28s %12s ids %8.2f s %14s rows/s  %sx of appdna\n' "$dialect (generated SQL)" "$n" "$seconds" "$rate" "$(div "$rate" "$appdna_rate")"
done
