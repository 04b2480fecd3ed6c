import AppDNACore

/// `appdna warehouse assignment|audit|srm|duplicates`: one query for a warehouse engine on
/// stdout, and nothing else there; the validator's error count (rule-level errors the SQL
/// reproduces as devices do) goes to stderr. The queries are built in Core (`AssignmentSQL`,
/// `ExposureAuditSQL`, `SampleRatioSQL`, `DuplicateExposuresSQL`) over the engine's spellings.
enum WarehouseCommand {
    static let bundleOperand = OperandSpec("BUNDLE", "The config bundle: a file, '-' for standard input, or @remote for the live bundle",
                                           completion: .file)

    /// "clickhouse, spark, duckdb", from the engines the tool knows.
    static var engineList: String { SQLEngines.names.joined(separator: ", ") }

    @Sendable static func assignment(_ invocation: Invocation) throws -> ExitStatus {
        let arguments = invocation.arguments
        let engine = try WarehouseFlags.engine(arguments)
        let columns = try WarehouseFlags.columns(arguments, table: arguments[WarehouseFlags.table], tableIs: .usersTable)
        let (_, experiments) = try bundle(invocation, wanted: arguments[WarehouseFlags.experiment])
        write(AssignmentSQL(engine: engine, scheme: arguments[WarehouseFlags.scheme], columns: columns).query(experiments), invocation)
        return .success
    }

    @Sendable static func audit(_ invocation: Invocation) throws -> ExitStatus {
        let arguments = invocation.arguments
        let engine = try WarehouseFlags.engine(arguments)
        let exposures = try ExposuresTable(table: exposuresTable(arguments), user: arguments[WarehouseFlags.userColumn],
                                           experiment: arguments[WarehouseFlags.experimentColumn], variant: arguments[WarehouseFlags.variantColumn],
                                           eventID: arguments[WarehouseFlags.eventIDColumn],
                                           bundleVersion: arguments[WarehouseFlags.bundleVersionColumn])
        let context = try WarehouseFlags.columns(arguments, table: exposures.table, tableIs: .exposuresTable,
                                                 sdkVersion: arguments[WarehouseFlags.sdkVersionColumn])
        // Every experiment of the file: an exposure of any other is experiment-missing.
        let (document, experiments) = try bundle(invocation, wanted: [])
        let query = ExposureAuditSQL(engine: engine, exposures: exposures, context: context,
                                     bundleVersion: document.root["bundle_version"]?.numberText).query(experiments)
        write(query, invocation)
        return .success
    }

    @Sendable static func srm(_ invocation: Invocation) throws -> ExitStatus {
        let variant = invocation.arguments[WarehouseFlags.variantColumn]
        return try perExperiment(invocation, { try ExposuresTable(table: $0, user: $1, experiment: $2, variant: variant) }) { engine, exposures, experiments in
            SampleRatioSQL(engine: engine, exposures: exposures).query(experiments)
        }
    }

    @Sendable static func duplicates(_ invocation: Invocation) throws -> ExitStatus {
        let session = invocation.arguments[WarehouseFlags.sessionColumn]
        return try perExperiment(invocation, { try ExposuresTable(table: $0, user: $1, experiment: $2, session: session) }) { engine, exposures, experiments in
            DuplicateExposuresSQL(engine: engine, exposures: exposures).query(experiments)
        }
    }

    /// A query over the exposures table for the experiments --experiment names (all when none
    /// is named); `exposures` makes the table from its name, user and experiment columns
    /// (and the column the query reads besides them).
    private static func perExperiment(_ invocation: Invocation, _ exposures: (String, String, String) throws -> ExposuresTable,
                                      query: (any SQLEngine, ExposuresTable, [ExperimentDefinition]) -> String) throws -> ExitStatus {
        let arguments = invocation.arguments
        let engine = try WarehouseFlags.engine(arguments)
        let exposures = try exposures(exposuresTable(arguments), arguments[WarehouseFlags.userColumn], arguments[WarehouseFlags.experimentColumn])
        let (_, experiments) = try bundle(invocation, wanted: arguments[WarehouseFlags.experiment])
        write(query(engine, exposures, experiments), invocation)
        return .success
    }

    /// `--exposures TABLE`, which the exposure queries need.
    private static func exposuresTable(_ arguments: ParsedArguments) throws -> String {
        guard let table = arguments[WarehouseFlags.exposures] else {
            throw Failure(.usage, "the query reads recorded exposures from a warehouse table: give --exposures TABLE")
        }
        return table
    }

    /// The bundle BUNDLE names (read once: '-' is standard input, @remote a download) and the
    /// experiments `wanted` of it (all when empty).
    private static func bundle(_ invocation: Invocation, wanted: [String]) throws -> (JSONDocument, [ExperimentDefinition]) {
        let path = invocation.arguments.operand(0)!
        let document = try BundleArgument.document(path, invocation)
        return (document, try WarehouseFlags.experiments(invocation, in: document, bundlePath: path, wanted: wanted))
    }

    private static func write(_ query: String, _ invocation: Invocation) {
        invocation.stdout.writeVerbatim(query)  // SQL: its literals are escaped for the engine, every byte kept
    }
}
