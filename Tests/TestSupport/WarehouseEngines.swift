import Foundation

/// The warehouse engines the generated SQL is run on in the suite (chDB = ClickHouse
/// in-process, Spark in local mode bound to 127.0.0.1, DuckDB), driven from Python: one
/// prelude that loads NDJSON tables and runs a query, shared by every warehouse test so each
/// engine is set up one way.
public enum WarehouseEngines {
    /// The Python module behind each dialect.
    public static func module(of dialect: String) -> String {
        ["clickhouse": "chdb", "spark": "pyspark"][dialect] ?? dialect
    }

    #if canImport(XCTest)
    /// Throws `missing` (a skip locally, a failure under CI) unless python3 can import the
    /// dialect's engine.
    public static func require(_ dialect: String) throws {
        try requirePythonModules([module(of: dialect)], because: "runs the \(dialect) SQL on its engine")
    }
    #endif

    /// Python that defines `Engine(dialect, tables, tmp)`: `tables` maps a table name to
    /// `([(column, "text" | "int")], ndjson_path)`, loaded once; `rows(query)` returns the result
    /// rows as tuples (NULL as None), `lines(query)` the one text column of a large result as
    /// strings (written and read as files where the engine's client would be slow), `close()`.
    /// `run_on_engine(dialect, tables, query, tmp)` does all three for one query.
    public static let prelude = #"""
import os, json, glob

class Engine:
    def __init__(self, dialect, tables, tmp):
        self.dialect, self.tmp = dialect, tmp
        if dialect == "duckdb":
            import duckdb
            self.con = duckdb.connect()
            self.con.execute("SET enable_progress_bar = false")  # its bar would go to stdout, before the result
            for name, (cols, path) in tables.items():
                spec = ", ".join(f"'{c}': '{'BIGINT' if t == 'int' else 'VARCHAR'}'" for c, t in cols)
                self.con.execute(f"CREATE TABLE {name} AS SELECT * FROM read_json(?, format='newline_delimited', columns={{{spec}}})", [path])
        elif dialect == "spark":
            os.environ["SPARK_LOCAL_IP"] = "127.0.0.1"  # loopback only
            from pyspark.sql import SparkSession
            self.spark = (SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false")
                          .config("spark.driver.bindAddress", "127.0.0.1").config("spark.sql.shuffle.partitions", "4").getOrCreate())
            self.spark.sparkContext.setLogLevel("ERROR")
            for name, (cols, path) in tables.items():
                ddl = ", ".join(f"{c} {'BIGINT' if t == 'int' else 'STRING'}" for c, t in cols)
                table = self.spark.read.schema(ddl).json(path).cache()  # read once, not once per UNION ALL branch
                table.count()
                table.createOrReplaceTempView(name)
        else:
            from chdb import session
            self.session = session.Session(os.path.join(tmp, "chdb"))
            for name, (cols, path) in tables.items():
                schema = ", ".join(f"{c} Nullable({'Int64' if t == 'int' else 'String'})" for c, t in cols)
                self.session.query(f"CREATE TABLE {name} ({schema}) ENGINE = Memory")
                self.session.query(f"INSERT INTO {name} SELECT * FROM file('{path}', JSONEachRow, '{schema}')")

    def rows(self, query):
        if self.dialect == "duckdb":
            return [tuple(r) for r in self.con.execute(query).fetchall()]
        if self.dialect == "spark":
            return [tuple(r) for r in self.spark.sql(query).collect()]
        out = self.session.query(query, "JSONCompactEachRow").bytes().decode()
        return [tuple(json.loads(line)) for line in out.splitlines()]

    def lines(self, query):
        if self.dialect == "duckdb":
            return [r[0] for r in self.con.execute(query).fetchall()]
        if self.dialect == "spark":
            out = os.path.join(self.tmp, "spark-lines")
            self.spark.sql(query).write.mode("overwrite").text(out)
            result = []
            for part in sorted(glob.glob(os.path.join(out, "part-*"))):
                with open(part, encoding="utf-8", newline="\n") as f:
                    result += f.read().split("\n")[:-1]
            return result
        return self.session.query(query, "TSVRaw").bytes().decode().split("\n")[:-1]

    def close(self):
        if self.dialect == "spark":
            self.spark.stop()

def run_on_engine(dialect, tables, query, tmp):
    engine = Engine(dialect, tables, tmp)
    try:
        return engine.rows(query)
    finally:
        engine.close()

"""#
}
