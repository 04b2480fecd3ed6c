import AppDNACore
import AppDNANet

/// Everything one `warehouse` run needs, read from the flags once: the query (the engine, the
/// tables and columns, checked to be plain identifiers) and the bundle: a file or standard
/// input read and its experiments picked here, or `@remote` with its key and URL checked here
/// (78) and fetched by the run. The run reads this, never the arguments.
struct WarehousePlan {
    let sql: SQL
    let bundle: Bundle

    /// The query, with every name it needs; the bundle's experiments are all it lacks.
    enum SQL {
        case assignment(AssignmentSQL)
        /// The audit also names the bundle's version (from the bundle).
        case audit(engine: any SQLEngine, exposures: ExposuresTable, context: WarehouseColumns)
        case srm(SampleRatioSQL)
        case duplicates(DuplicateExposuresSQL)

        func query(_ document: JSONDocument, _ experiments: [ExperimentDefinition]) -> String {
            switch self {
            case .assignment(let sql): return sql.query(experiments)
            case .audit(let engine, let exposures, let context):
                return ExposureAuditSQL(engine: engine, exposures: exposures, context: context,
                                        bundleVersion: document.root["bundle_version"]?.numberText).query(experiments)
            case .srm(let sql): return sql.query(experiments)
            case .duplicates(let sql): return sql.query(experiments)
            }
        }
    }

    /// BUNDLE and the experiments wanted of it (all when none is named).
    struct Bundle {
        let path: String
        let wanted: [String]
        let source: Source

        enum Source {
            /// A file or standard input, read, with the experiments chosen and the validator's
            /// error count.
            case read(JSONDocument, experiments: [ExperimentDefinition], errors: Int)
            /// `@remote`: the connection, its configuration checked; fetched by the run.
            case remote(LiveBundleConnection)
        }

        /// The bundle, its chosen experiments and its rule-level error count (an `@remote`
        /// bundle is fetched now).
        func chosen() throws -> (document: JSONDocument, experiments: [ExperimentDefinition], errors: Int) {
            switch source {
            case .read(let document, let experiments, let errors):
                return (document, experiments, errors)
            case .remote(let connection):
                let document = try BundleArgument.liveBundle(over: connection)
                let (experiments, errors) = try WarehouseFlags.experiments(in: document, bundlePath: path, wanted: wanted)
                return (document, experiments, errors)
            }
        }
    }

    /// Reads the flags `query` declares (each query its own: `WarehouseFlags`), in the order
    /// their errors are reported: the engine, the names, then the bundle.
    init(_ query: WarehouseQuery, _ arguments: ParsedArguments, _ invocation: Invocation) throws {
        let engine = try WarehouseFlags.engine(arguments)
        let wanted: [String]
        switch query {
        case .assignment:
            let columns = try WarehouseFlags.columns(arguments, table: arguments[WarehouseFlags.table], tableIs: .usersTable)
            sql = .assignment(AssignmentSQL(engine: engine, scheme: arguments[WarehouseFlags.scheme], columns: columns))
            wanted = arguments[WarehouseFlags.experiment]
        case .audit:
            let exposures = try ExposuresTable(table: Self.exposuresTable(arguments), user: arguments[WarehouseFlags.userColumn],
                                               experiment: arguments[WarehouseFlags.experimentColumn], variant: arguments[WarehouseFlags.variantColumn],
                                               eventID: arguments[WarehouseFlags.eventIDColumn],
                                               bundleVersion: arguments[WarehouseFlags.bundleVersionColumn])
            let context = try WarehouseFlags.columns(arguments, table: exposures.table, tableIs: .exposuresTable,
                                                     sdkVersion: arguments[WarehouseFlags.sdkVersionColumn])
            sql = .audit(engine: engine, exposures: exposures, context: context)
            // Every experiment of the file: an exposure of any other is experiment-missing.
            wanted = []
        case .srm:
            sql = .srm(SampleRatioSQL(engine: engine, exposures: try ExposuresTable(
                table: Self.exposuresTable(arguments), user: arguments[WarehouseFlags.userColumn],
                experiment: arguments[WarehouseFlags.experimentColumn], variant: arguments[WarehouseFlags.variantColumn])))
            wanted = arguments[WarehouseFlags.experiment]
        case .duplicates:
            sql = .duplicates(DuplicateExposuresSQL(engine: engine, exposures: try ExposuresTable(
                table: Self.exposuresTable(arguments), user: arguments[WarehouseFlags.userColumn],
                experiment: arguments[WarehouseFlags.experimentColumn], session: arguments[WarehouseFlags.sessionColumn])))
            wanted = arguments[WarehouseFlags.experiment]
        }
        bundle = try Self.bundle(arguments.operand(0)!, wanted: wanted, api: try APISettings(arguments, bundle: arguments.operand(0)), invocation)
    }

    /// `--exposures TABLE`, which the exposure queries need.
    private static func exposuresTable(_ arguments: ParsedArguments) throws -> String {
        guard let table = arguments[WarehouseFlags.exposures] else {
            throw Failure(.usage, "the query reads recorded exposures from a warehouse table: give --exposures TABLE")
        }
        return table
    }

    /// BUNDLE: read once ('-' is standard input), or for @remote the connection, with the key
    /// (read through `CommandIO.files`) and the URL checked.
    private static func bundle(_ path: String, wanted: [String], api: APISettings, _ invocation: Invocation) throws -> Bundle {
        try BundleArgument.checkSpelling(path)
        if path == BundleArgument.remote {
            let io = invocation.io
            let key = try APIAccess.key(keyFile: api.keyFile, environment: io.environment, files: io.files)
            return Bundle(path: path, wanted: wanted,
                          source: .remote(try LiveBundleConnection(invocation, key: key, timeout: api.timeout, retries: api.retries)))
        }
        let document = try BundleArgument.document(path, invocation)
        let (experiments, errors) = try WarehouseFlags.experiments(in: document, bundlePath: path, wanted: wanted)
        return Bundle(path: path, wanted: wanted, source: .read(document, experiments: experiments, errors: errors))
    }
}
