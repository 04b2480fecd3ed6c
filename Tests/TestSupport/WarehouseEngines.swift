import Foundation

/// The warehouse engines the generated SQL is run on in the suite (chDB = ClickHouse
/// in-process, Spark in local mode bound to 127.0.0.1, DuckDB), driven from Python: one
/// prelude that starts an engine once, loads NDJSON tables and runs queries, and a driver that
/// runs every case of the suite on one engine in one process — so Spark's JVM starts once for
/// all its cases, not once per test.
///
/// Adding an engine: its branch in each method of `Engine` below (start, load, rows, lines,
/// types, close) and its module in `module(of:)`.
public enum WarehouseEngines {
    /// The Python module behind each engine.
    public static func module(of engine: String) -> String {
        ["clickhouse": "chdb", "spark": "pyspark"][engine] ?? engine
    }

    #if canImport(XCTest)
    /// Throws `missing` (a skip locally, a failure under CI) unless python3 can import the
    /// engine's module and the helpers the cases use.
    public static func require(_ engine: String) throws {
        try requirePythonModules([module(of: engine), "scipy", "mmh3"], because: "runs the \(engine) SQL on its engine and checks it")
    }
    #endif

    /// One case of the suite: Python that defines `def <function>(engine, tmp, *arguments)`,
    /// printing what the Swift side checks.
    public struct Case {
        public let name: String
        public let python: String
        public let function: String
        public let arguments: [String]

        public init(name: String, python: String, function: String, arguments: [String]) {
            self.name = name
            self.python = python
            self.function = function
            self.arguments = arguments
        }
    }

    /// What each case printed, by name, and how it ended ("ok", or the Python traceback).
    public struct Results {
        public var output: [String: String] = [:]
        public var failure: [String: String] = [:]
    }

    /// Runs `cases` on `engine` in one python3 process (one engine session), in order.
    public static func run(_ cases: [Case], on engine: String) throws -> (results: Results, stderr: String, status: Int32) {
        var definitions: [String] = []
        for python in cases.map(\.python) where !definitions.contains(python) { definitions.append(python) }
        let plan = try JSONSerialization.data(withJSONObject: cases.map { ["name": $0.name, "function": $0.function, "arguments": $0.arguments] })
        let program = prelude + "\n" + definitions.joined(separator: "\n") + "\nrun_cases(sys.argv[1], json.loads(sys.argv[2]))\n"
        let result = try ProcessRunner.run("/usr/bin/env", ["python3", "-c", program, engine, String(decoding: plan, as: UTF8.self)], environment: nil)
        var results = Results()
        var current: String?
        for line in result.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
            if line.hasPrefix("=== CASE ") {
                current = String(line.dropFirst("=== CASE ".count))
                results.output[current!] = ""
            } else if line.hasPrefix("=== FAILED "), let name = current {
                results.failure[name] = String(line.dropFirst("=== FAILED ".count)).replacingOccurrences(of: "\\n", with: "\n")
            } else if let name = current {
                results.output[name, default: ""] += line + "\n"
            }
        }
        return (results, result.stderr, result.status)
    }

    /// Python that defines `Engine(dialect, tmp)` — `load(name, [(column, "text" | "int" |
    /// "bytes" | "binary")], ndjson_path)` (re)creates a table (a "bytes" or "binary" column is
    /// given in hex in the file: "bytes" is text holding those bytes, which need not be UTF-8 —
    /// ClickHouse's String, Spark's STRING; DuckDB's text cannot hold them — "binary" the
    /// engine's byte type: String, BINARY, BLOB); `rows(query)` returns the result rows as tuples (NULL
    /// as None), `lines(query)` the one text column of a large result as strings (written and
    /// read as files where the engine's client would be slow), `types(query)` each result
    /// column's name and type (text, integer, double or boolean; else the engine's own name), `close()`
    /// — and `run_cases`.
    public static let prelude = #"""
import os, io, sys, json, glob, shutil, tempfile, traceback, contextlib

class Engine:
    def __init__(self, dialect, tmp):
        self.dialect, self.tmp = dialect, tmp
        if dialect == "duckdb":
            import duckdb
            self.con = duckdb.connect()
            self.con.execute("SET enable_progress_bar = false")  # its bar would go to stdout, before the result
        elif dialect == "spark":
            os.environ["SPARK_LOCAL_IP"] = "127.0.0.1"  # loopback only
            from pyspark.sql import SparkSession
            self.spark = (SparkSession.builder.master("local[2]").config("spark.ui.enabled", "false")
                          .config("spark.ui.showConsoleProgress", "false")
                          .config("spark.driver.bindAddress", "127.0.0.1").config("spark.sql.shuffle.partitions", "4").getOrCreate())
            self.spark.sparkContext.setLogLevel("ERROR")
            self.cached = {}
        else:
            from chdb import session
            self.session = session.Session(os.path.join(tmp, "chdb"))

    def load(self, name, cols, path):
        hexed = lambda c, t: f"unhex({c}) AS {c}" if t in ("bytes", "binary") else c
        if self.dialect == "duckdb":
            if any(t == "bytes" for _, t in cols): raise ValueError("DuckDB's text (VARCHAR) holds only UTF-8")
            spec = ", ".join(f"'{c}': '{'BIGINT' if t == 'int' else 'VARCHAR'}'" for c, t in cols)
            self.con.execute(f"CREATE OR REPLACE TABLE {name} AS SELECT {', '.join(hexed(c, t) for c, t in cols)} "
                             f"FROM read_json(?, format='newline_delimited', columns={{{spec}}})", [path])
        elif self.dialect == "spark":
            if name in self.cached: self.cached[name].unpersist()
            ddl = ", ".join(f"{c} {'BIGINT' if t == 'int' else 'STRING'}" for c, t in cols)
            # A STRING made from bytes keeps them as they are, UTF-8 or not (as Parquet BINARY read as a string does).
            table = self.spark.read.schema(ddl).json(path).selectExpr(
                *[f"CAST(unhex({c}) AS STRING) AS {c}" if t == "bytes" else hexed(c, t) for c, t in cols]).cache()  # read once, not once per UNION ALL branch
            table.count()
            table.createOrReplaceTempView(name)
            self.cached[name] = table
        else:
            schema = ", ".join(f"{c} Nullable({'Int64' if t == 'int' else 'String'})" for c, t in cols)
            self.session.query(f"DROP TABLE IF EXISTS {name}")
            self.session.query(f"CREATE TABLE {name} ({schema}) ENGINE = Memory")
            self.session.query(f"INSERT INTO {name} SELECT {', '.join(hexed(c, t) for c, t in cols)} FROM file('{path}', JSONEachRow, '{schema}')")

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

    def types(self, query):
        canonical = {"varchar": "text", "string": "text", "bigint": "integer", "int64": "integer", "double": "double",
                     "float64": "double", "boolean": "boolean", "bool": "boolean"}
        if self.dialect == "duckdb":
            columns = [(d[0], str(d[1])) for d in self.con.execute(query).description]
        elif self.dialect == "spark":
            columns = [(f.name, f.dataType.simpleString()) for f in self.spark.sql(query).schema.fields]
        else:
            out = self.session.query(query, "JSONCompactEachRowWithNamesAndTypes").bytes().decode().splitlines()
            columns = list(zip(json.loads(out[0]), (t.removeprefix("Nullable(").removesuffix(")") for t in json.loads(out[1]))))
        return [(name, canonical.get(kind.lower(), kind)) for name, kind in columns]

    def close(self):
        if self.dialect == "spark":
            self.spark.stop()

def run_cases(dialect, plan):
    tmp = tempfile.mkdtemp()
    engine = Engine(dialect, tmp)
    try:
        for case in plan:
            print("=== CASE " + case["name"], flush=True)
            captured = io.StringIO()
            try:
                with contextlib.redirect_stdout(captured):
                    globals()[case["function"]](engine, tmp, *case["arguments"])
                sys.stdout.write(captured.getvalue())
            except Exception:
                sys.stdout.write(captured.getvalue())
                print("=== FAILED " + traceback.format_exc().replace("\n", "\\n"))
            sys.stdout.flush()
    finally:
        engine.close()
        # The cases' tables and inputs (tens of MB): the next run makes its own.
        shutil.rmtree(tmp, ignore_errors=True)

"""#
}
