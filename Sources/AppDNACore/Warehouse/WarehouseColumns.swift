/// Where the user context lives in the warehouse: the table and the columns the SQL reads.
/// A context column left nil is unknown for every row, exactly as a context flag not given to
/// `bucket` is; a NULL in a mapped column is unknown for that row.
///
/// A column may be text or an integer (a CSV loaded as text, an install time as BIGINT, a
/// numeric trait): the queries read every context column as text (`carried`), the form the
/// CLI's flags give, and the rules parse what they compare as numbers from that text. So an
/// install time of 1767225600000 and '1767225600000' are the same, and the query never asks
/// an engine to compare text with a number (which ClickHouse and DuckDB refuse).
public struct WarehouseColumns: Sendable {
    public var table: String
    public var user: String
    public var platform: String?
    public var country: String?
    public var appVersion: String?
    /// Install time in milliseconds since 1970.
    public var installedAt: String?
    /// Trait name → column.
    public var traits: [(trait: String, column: String)]
    /// The SDK version that recorded the row (the exposure audit's `--sdk-version-column`):
    /// traffic allocation is applied only by iOS SDKs from 1.0.78. Unmapped: the newest.
    public var sdkVersion: String?

    public init(table: String = "users", user: String = "user_id", platform: String? = nil, country: String? = nil,
                appVersion: String? = nil, installedAt: String? = nil, traits: [(trait: String, column: String)] = [],
                sdkVersion: String? = nil) {
        self.table = table
        self.user = user
        self.platform = platform
        self.country = country
        self.appVersion = appVersion
        self.installedAt = installedAt
        self.traits = traits
        self.sdkVersion = sdkVersion
    }

    /// A usage failure when a table or column name is not a plain identifier (names are not
    /// quoted: see `SQLQuoting.isPlainIdentifier`); `table` is the table of users or, for the
    /// audit, of exposures.
    public func validated(tableIs tableRole: WarehouseName = .usersTable) throws(Failure) -> WarehouseColumns {
        _ = try WarehouseName.checked(table, as: tableRole)
        _ = try WarehouseName.checked(user, as: .userColumn)
        let roles: [(WarehouseName, String?)] = [(.platformColumn, platform), (.countryColumn, country), (.appVersionColumn, appVersion),
                                                 (.installedAtColumn, installedAt), (.sdkVersionColumn, sdkVersion)]
        for (role, name) in roles {
            if let name { _ = try WarehouseName.checked(name, as: role) }
        }
        for entry in traits { _ = try WarehouseName.checked(entry.column, as: .traitColumn(trait: entry.trait)) }
        return self
    }

    /// The select list that carries the context columns from the table to the rules: each
    /// once, as text, under its own name (`, CAST(country AS VARCHAR) AS country`), leaving out
    /// `except` (the user column, which the query carries under its own name).
    func carried(by engine: any SQLEngine, except: String? = nil) -> String {
        contextColumns.filter { $0 != except }.map { ", \(engine.text($0)) AS \($0)" }.joined()  // not ids: plain ASCII column names
    }

    /// The context columns a query carries from the table to the rules, each once.
    var contextColumns: [String] {
        var seen: [String] = []
        // Not ids: plain ASCII column names (SQLQuoting.isPlainIdentifier).
        for name in [platform, country, appVersion, installedAt, sdkVersion].compactMap({ $0 }) + traits.map(\.column) where !seen.contains(name) {
            seen.append(name)
        }
        return seen
    }

    /// The column of `trait`, if mapped (the last mapping wins, as with repeated `--trait`).
    func column(ofTrait trait: String) -> String? {
        traits.last { Array($0.trait.utf8) == Array(trait.utf8) }?.column
    }
}
