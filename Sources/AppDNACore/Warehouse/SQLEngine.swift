/// A warehouse engine the tool writes SQL for: every spelling that differs between engines,
/// in one value. The query builders (`AssignmentSQL`, `ExposureAuditSQL`, `SampleRatioSQL`,
/// `DuplicateExposuresSQL`) ask the engine and never test which engine it is, so an engine is
/// added by writing one type that conforms (and registering it in `SQLEngines.all`).
///
/// No requirement has a default implementation, on purpose: an engine that leaves out one
/// spelling does not compile (`WarehouseEngineCompileTests` plants one and expects the error),
/// instead of quietly borrowing another engine's.
public protocol SQLEngine: Sendable {
    /// The name users give after `--dialect` (lower case).
    var name: String { get }

    // MARK: Literals and types

    /// `text` as a string literal whose value has exactly the UTF-8 bytes of `text`; a bundle
    /// value such as `'); DROP TABLE x; --` stays one literal, and no character of
    /// `SQLQuoting.mustEscape` (controls, C1, bidi) appears raw in the query text (see `SQLQuoting`).
    func literal(_ text: String) -> String
    /// NULL, typed as text (a UNION ALL branch with no variant still has a text column).
    var nullText: String { get }
    /// A number as the engine's signed 64-bit integer type: every integer result column has it.
    func integer(_ value: String) -> String
    /// A number as the engine's 64-bit floating-point type: every fractional result column has it.
    func double(_ value: String) -> String
    /// The number that `text` spells, NULL when it is not one.
    func parsedDouble(_ text: String) -> String
    /// The signed 64-bit integer that `text` spells, NULL when it is not one or is out of
    /// range (engines differ on white space and signs: callers match the digits first).
    func parsedInteger(_ text: String) -> String
    /// Any value as text (a bundle_version column may hold numbers or strings; a context
    /// column may be text or an integer): a string's bytes unchanged, an integer in decimal,
    /// a boolean `true`/`false`, NULL as NULL.
    func text(_ value: String) -> String
    /// A condition as the engine's boolean type (a result column).
    func boolean(_ condition: String) -> String

    // MARK: Text

    /// `text` in lower case (platform names compare without case).
    func lowercased(_ text: String) -> String
    /// Whether all of `text` matches `pattern` (RE2 / Java syntax: classes, `{m,n}`, groups).
    func fullMatch(_ text: String, _ pattern: String) -> String
    /// `text` with every match of `pattern` replaced by nothing.
    func removingMatches(_ text: String, _ pattern: String) -> String
    /// The regular-expression escape for one Unicode scalar inside a character class.
    func regexScalar(_ value: UInt32) -> String
    /// The `index`th (0-based) dot-separated part of `text`, '' past the end.
    func dotPart(_ text: String, _ index: Int) -> String
    /// `text` in Unicode normalisation form C (`text` is UTF-8).
    func nfc(_ text: String) -> String
    /// Whether the bytes of `text` are UTF-8 (a condition; engines whose text can hold other
    /// bytes hash an id as its bytes whatever they are, but only UTF-8 has a normal form).
    func isValidUTF8(_ text: String) -> String

    // MARK: Numbers

    /// The complementary error function of a non-negative `z` (the SRM p-value needs it).
    func erfc(_ z: String) -> String

    // MARK: Hashing and binding

    /// MurmurHash3_x86_32 (seed 0) of each input's bytes, unsigned, over `rows`: the engine
    /// binds what it needs in `rows` (the inputs' steps side by side, so many hashes cost no
    /// more layers than one) and returns, per input, an expression over the bound names that is
    /// cheap to repeat.
    func murmurHash3(_ inputs: [HashedBytes], in rows: inout SQLRelation) -> [String]
    /// How a value is computed once and named, so the expressions that read it stay small: a
    /// derived table over `relation` that adds `columns` (`expression AS name`) to its columns.
    /// The engine must not fold it into the query above it and copy the expressions into each
    /// use (an engine that flattens subqueries needs a fence here).
    func layer(adding columns: [String], over relation: String, alias: String) -> String
    /// `relation` (layers of bound values) such that a filter above it — the audit's, or a
    /// user's `WHERE variant = …` over the assignment — is not pushed below it. An engine
    /// that pushes a filter through a projection by copying the projection's expressions into
    /// the condition would copy every layer's, each value as many times as it is read: the
    /// condition grows exponentially with the layers (Spark's did: minutes, then out of memory).
    func fenced(_ relation: String, alias: String) -> String
}

/// The engines the tool writes SQL for, in the order help lists them. Adding an engine: one
/// file with a type conforming to `SQLEngine` (see `DuckDBEngine`), one entry here, and its
/// prelude in `Tests/TestSupport/WarehouseEngines.swift` and its `test<Name>()` in
/// `WarehouseEngineTests` (a test checks each engine has one; Sources/README.md has the recipe).
public enum SQLEngines {
    public static let all: [any SQLEngine] = [ClickHouseEngine(), SparkEngine(), DuckDBEngine()]

    /// The engine called `name` (exactly), if any.
    public static func named(_ name: String) -> (any SQLEngine)? {
        all.first { $0.name == name }  // not an id: ASCII engine names
    }

    /// "clickhouse, spark, duckdb": for help and errors.
    public static var names: [String] { all.map(\.name) }
}
