"""Runs a query file on chDB (ClickHouse in-process: pip install chdb) over CSV files loaded as
tables, and prints the result as TSV with a header: what `clickhouse client --queries-file`
does against a server, for a laptop or CI.

    python3 examples/warehouse/run-on-chdb.py QUERY.sql TABLE=FILE.csv [TABLE=FILE.csv ...]

Every CSV column is read as text (NULL where a field is empty), as the generated SQL expects.
"""
import sys
from chdb import session

query_file, tables = sys.argv[1], sys.argv[2:]
s = session.Session()
for spec in tables:
    name, path = spec.split("=", 1)
    s.query(f"CREATE TABLE {name} ENGINE = Memory AS SELECT * FROM file('{path}', CSVWithNames) "
            "SETTINGS input_format_csv_use_best_effort_in_schema_inference = 0")
print(s.query(open(query_file, encoding="utf-8").read(), "TSVWithNames"), end="")
