import AppDNACore

/// The flags of `appdna warehouse …`, each declared once, in help order: the engine, where the
/// users or exposures live (table and columns), and which experiments.
enum WarehouseFlags {
    static let dialect = Flag.optional("dialect", value: "ENGINE", "The engine the SQL is for (required)", .engine)
    static let table = Flag.defaulted("table", value: "NAME", "The table of users", default: "users", .text)
    static let exposures = Flag.optional("exposures", value: "TABLE", "The table of recorded exposures, one row per exposure (required)", .text)
    static let userColumn = Flag.defaulted("user-column", value: "COLUMN", "The user id column (the id devices hashed: user_id, else anon_id)",
                                           default: "user_id", .text)
    static let eventIDColumn = Flag.defaulted("event-id-column", value: "COLUMN", "The exposures' event id column", default: "event_id", .text)
    static let experimentColumn = Flag.defaulted("experiment-column", value: "COLUMN", "The exposures' experiment id column", default: "experiment", .text)
    static let variantColumn = Flag.defaulted("variant-column", value: "COLUMN", "The exposures' recorded variant column", default: "variant", .text)
    static let sessionColumn = Flag.defaulted("session-column", value: "COLUMN", "The exposures' session id column", default: "session_id", .text)
    static let platformColumn = Flag.optional("platform-column", value: "COLUMN", "The platform column (unmapped: unknown)", .text)
    static let countryColumn = Flag.optional("country-column", value: "COLUMN", "The country column (unmapped: unknown)", .text)
    static let appVersionColumn = Flag.optional("app-version-column", value: "COLUMN", "The app version column (unmapped: unknown)", .text)
    static let installedAtColumn = Flag.optional("installed-at-column", value: "COLUMN", "The install time column, ms since 1970 (unmapped: unknown)", .text)
    static let traitColumn = Flag.repeated("trait-column", value: "TRAIT=COLUMN", "The column of a user trait (unmapped: unknown)", .keyValue)
    static let sdkVersionColumn = Flag.optional("sdk-version-column", value: "COLUMN",
                                                "The SDK version column (unmapped: the newest SDK, and old-iOS causes not claimed)", .text)
    static let bundleVersionColumn = Flag.optional("bundle-version-column", value: "COLUMN",
                                                   "The bundle_version the device ran (unmapped: bundle-version not claimed)", .text)
    static let experiment = Flag.repeated("experiment", value: "ID", "Only this experiment (default: every one in the bundle)", .text)
    static let scheme = Flag.defaulted("scheme", value: "SCHEME", "sdk (what devices compute) or docs (the documented formula)",
                                       default: "sdk", .choice(BucketingScheme.self))

    /// The user context columns, shared by the assignment and the audit.
    static let contextSpecs: [FlagSpec] = [platformColumn.spec, countryColumn.spec, appVersionColumn.spec, installedAtColumn.spec, traitColumn.spec]

    static let assignment: [FlagSpec] = [dialect.spec, scheme.spec, experiment.spec, table.spec, userColumn.spec] + contextSpecs + APIFlags.wholeCommand
    static let audit: [FlagSpec] = [dialect.spec, exposures.spec, userColumn.spec, eventIDColumn.spec, experimentColumn.spec, variantColumn.spec]
        + contextSpecs + [sdkVersionColumn.spec, bundleVersionColumn.spec] + APIFlags.wholeCommand
    static let srm: [FlagSpec] = [dialect.spec, experiment.spec, exposures.spec, userColumn.spec, experimentColumn.spec, variantColumn.spec]
        + APIFlags.wholeCommand
    static let duplicates: [FlagSpec] = [dialect.spec, experiment.spec, exposures.spec, userColumn.spec, experimentColumn.spec, sessionColumn.spec]
        + APIFlags.wholeCommand

    /// The engine `--dialect` names; a usage error listing them when it is missing.
    static func engine(_ arguments: ParsedArguments) throws -> any SQLEngine {
        guard let engine = arguments[dialect] else {
            throw Failure(.usage, "give the engine the SQL is for: --dialect \(SQLEngines.names.joined(separator: "|"))")
        }
        return engine
    }

    /// The user context columns the flags name, over `table`, checked to be plain identifiers (64 otherwise).
    static func columns(_ arguments: ParsedArguments, table: String, tableIs role: WarehouseName, sdkVersion: String? = nil) throws -> WarehouseColumns {
        try WarehouseColumns(table: table, user: arguments[userColumn], platform: arguments[platformColumn],
                             country: arguments[countryColumn], appVersion: arguments[appVersionColumn],
                             installedAt: arguments[installedAtColumn],
                             traits: arguments[traitColumn].map { ($0.key, $0.value) }, sdkVersion: sdkVersion).validated(tableIs: role)
    }

    /// The experiments of the bundle `document` (read from `path`) named in `wanted` (all,
    /// in bundle order, when none is named), and how many rule-level errors the validator
    /// finds in it; an unknown id is a usage error with the closest id suggested, or the
    /// normalisation form it differs in. A bundle with rule-level errors still becomes SQL (it
    /// does what devices do with them, as `bucket --bundle` does); the run says how many on
    /// stderr, the SQL alone goes to stdout.
    static func experiments(in document: JSONDocument, bundlePath path: String, wanted: [String]) throws -> (experiments: [ExperimentDefinition], errors: Int) {
        guard let map = BundleExperiments.map(in: document.root) else {
            throw Failure(.malformedInput, "\(path): the bundle has no experiments")
        }
        let errors = BundleValidator.validate(document: document).filter { $0.severity == .error }.count
        let all = map.members.filter { $0.value.kind == .object }.map { ExperimentDefinition(id: $0.key, node: $0.value) }
        if wanted.isEmpty { return (all, errors) }
        return (try wanted.map { id in
            guard let found = all.first(where: { ByteIdentity.same($0.id, id) }) else {
                throw BundleExperiments.notFound(id, among: all.map(\.id), file: path)
            }
            return found
        }, errors)
    }

    /// How each table or column name is given, for the message about a bad one.
    static func flag(for name: WarehouseName) -> String {
        switch name {
        case .usersTable: return "--table"
        case .exposuresTable: return "--exposures"
        case .userColumn: return "--user-column"
        case .platformColumn: return "--platform-column"
        case .countryColumn: return "--country-column"
        case .appVersionColumn: return "--app-version-column"
        case .installedAtColumn: return "--installed-at-column"
        case .sdkVersionColumn: return "--sdk-version-column"
        case .bundleVersionColumn: return "--bundle-version-column"
        case .experimentColumn: return "--experiment-column"
        case .variantColumn: return "--variant-column"
        case .sessionColumn: return "--session-column"
        case .eventIDColumn: return "--event-id-column"
        case .traitColumn(let trait): return "--trait-column \(trait)=…"
        }
    }
}

extension FlagValue where Value == any SQLEngine {
    /// One of the engines of `SQLEngines.all`, by name: help lists them from there.
    static var engine: FlagValue<any SQLEngine> {
        .named(SQLEngines.all.map { (name: $0.name, value: $0) })
    }
}
