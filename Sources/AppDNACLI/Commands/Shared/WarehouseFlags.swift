import AppDNACore

/// The flags that make `bucket` and `queue inspect` write warehouse SQL instead of answering
/// themselves: the dialect, and where the user context lives (table and columns).
enum WarehouseFlags {
    static let sql = Flag.optional("sql", value: "DIALECT", "Print SQL for a warehouse instead (clickhouse, spark, duckdb): see docs/warehouse.md",
                                   .choice(SQLDialect.self))
    static let table = Flag.defaulted("table", value: "NAME", "With --sql: the table of users", default: "users", .text)
    static let userColumn = Flag.defaulted("user-column", value: "COLUMN", "With --sql: the user id column", default: "user_id", .text)
    static let platformColumn = Flag.optional("platform-column", value: "COLUMN", "With --sql: the platform column (unmapped: unknown)", .text)
    static let countryColumn = Flag.optional("country-column", value: "COLUMN", "With --sql: the country column (unmapped: unknown)", .text)
    static let appVersionColumn = Flag.optional("app-version-column", value: "COLUMN", "With --sql: the app version column (unmapped: unknown)", .text)
    static let installedAtColumn = Flag.optional("installed-at-column", value: "COLUMN",
                                                 "With --sql: the install time column, ms since 1970 (unmapped: unknown)", .text)
    static let traitColumn = Flag.repeated("trait-column", value: "TRAIT=COLUMN", "With --sql: the column of a user trait", .keyValue)
    static let experiment = Flag.repeated("experiment", value: "ID", "With --sql: only this experiment (default: all)", .text)

    /// The context columns, shared by every --sql mode.
    static let contextSpecs: [FlagSpec] = [userColumn.spec, platformColumn.spec, countryColumn.spec, appVersionColumn.spec,
                                           installedAtColumn.spec, traitColumn.spec]

    /// The columns the flags name, checked to be plain identifiers (64 otherwise).
    static func columns(_ arguments: ParsedArguments, table: String, sdkVersion: String? = nil) throws -> WarehouseColumns {
        try WarehouseColumns(table: table, user: arguments[userColumn], platform: arguments[platformColumn],
                             country: arguments[countryColumn], appVersion: arguments[appVersionColumn],
                             installedAt: arguments[installedAtColumn],
                             traits: arguments[traitColumn].map { ($0.key, $0.value) }, sdkVersion: sdkVersion).validated()
    }

    /// The experiments of the bundle at `path` named by --experiment (all, in bundle order,
    /// when none is named); an unknown id is a usage error with the closest id suggested.
    static func experiments(_ invocation: Invocation, bundlePath path: String) throws -> [ExperimentDefinition] {
        try experiments(invocation, in: try BundleArgument.document(path, invocation), bundlePath: path)
    }

    /// The same, for a bundle already read (one read: `-` is standard input, `@remote` a download).
    /// A bundle with rule-level errors still becomes SQL (it does what devices do with them, as
    /// `bucket --bundle` does); the validator's error count goes to stderr, the SQL alone to stdout.
    static func experiments(_ invocation: Invocation, in document: JSONDocument, bundlePath path: String) throws -> [ExperimentDefinition] {
        let arguments = invocation.arguments
        guard let map = BundleExperiments.map(in: document.root) else {
            throw Failure(.malformedInput, "\(path): the bundle has no experiments")
        }
        let errors = BundleValidator.validate(document: document).filter { $0.severity == .error }.count
        if errors > 0 {
            invocation.io.stderr.writeLine("appdna: warning: \(path): \(errors) validation error\(errors == 1 ? "" : "s"); the SQL does what devices do "
                                           + "with them (appdna bundle validate \(path) lists them)")
        }
        let all = map.members.filter { $0.value.kind == .object }.map { ExperimentDefinition(id: $0.key, node: $0.value) }
        let wanted = arguments[experiment]
        if wanted.isEmpty { return all }
        return try wanted.map { id in
            guard let found = all.first(where: { ByteIdentity.same($0.id, id) }) else {
                throw Failure(.usage, "\(path): no experiment '\(id)' in the bundle" + Suggestions.phrase(for: id, among: all.map(\.id)))
            }
            return found
        }
    }
}
