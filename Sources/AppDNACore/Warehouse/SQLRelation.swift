/// A query built from the bottom up: a source relation and, on top of it, layers that add
/// named columns, each computed once (`SQLEngine.layer`), and filters. Query builders bind
/// a value that is read more than once (the hash's steps, a bucket, an eligibility verdict)
/// instead of repeating its expression, so a query stays linear in size and each value is
/// computed once per row.
///
/// Every layer keeps the columns below it (`SELECT *`), so a later layer or the final select
/// reads any earlier name. Bound names start with `appdna_`; a table's own column with such a
/// name would be shadowed.
public struct SQLRelation {
    public let engine: any SQLEngine
    /// The relation so far: a table name or a parenthesised query.
    private(set) var text: String
    /// Prefix of the names bound here, so two relations of one query never share a name.
    private let prefix: String
    private var count = 0

    /// Rows of `source` (a table name or a parenthesised query); `name` prefixes the names
    /// bound here (unique within the query).
    init(engine: any SQLEngine, source: String, name: String) {
        self.engine = engine
        self.text = source
        self.prefix = "appdna_" + name
    }

    /// Adds one layer computing `values` (each may read only names bound before this call)
    /// and returns their names, in order.
    mutating func bind(_ values: [String]) -> [String] {
        let names = values.map { _ -> String in count += 1; return "\(prefix)_\(count)" }
        let columns = zip(values, names).map { "\($0) AS \($1)" }
        count += 1
        text = engine.layer(adding: columns, over: text, alias: "\(prefix)_l\(count)")
        return names
    }

    /// `value` computed once, by name.
    mutating func bind(_ value: String) -> String { bind([value])[0] }

    /// Keeps only the rows where `condition` holds, evaluated over the bound values (not
    /// pushed below them: `SQLEngine.fenced`).
    mutating func filter(_ condition: String) {
        count += 1
        text = "(SELECT * FROM \(engine.fenced(text, alias: "\(prefix)_f\(count)")) AS \(prefix)_l\(count) WHERE \(condition))"
    }

    /// The final query: `columns` (an SQL select list) over the rows, behind a fence, so a
    /// filter a user writes over the query is not pushed into the layers either.
    func select(_ columns: String) -> String {
        "SELECT \(columns) FROM \(engine.fenced(text, alias: "\(prefix)_f")) AS \(prefix)_rows"
    }
}

/// The bytes a hash reads: a fixed `prefix` (bundle values, known when the query is written),
/// the UTF-8 bytes of the text expression `text`, then a fixed `suffix`.
public struct HashedBytes: Sendable {
    public let prefix: [UInt8]
    public let text: String
    public let suffix: [UInt8]

    public init(prefix: String = "", text: String, suffix: String = "") {
        self.prefix = Array(prefix.utf8)
        self.text = text
        self.suffix = Array(suffix.utf8)
    }
}
