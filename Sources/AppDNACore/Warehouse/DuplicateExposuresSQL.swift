/// `appdna warehouse duplicates`: exposures
/// repeated within a session. The SDK records one exposure per experiment per session, so every
/// exposure of an experiment after the first in a session (of a user) is a duplicate — the
/// most reported exposure problem, and one that inflates counts an SRM check relies on.
/// Columns: `experiment, sessions, exposures, duplicate_exposures, users_with_duplicates`, one row
/// per experiment of the bundle that has exposures, the counts 64-bit integers on every engine.
/// `queue inspect --bundle` counts the same in a device's queue (`RepeatedExposures`).
public struct DuplicateExposuresSQL {
    public let engine: any SQLEngine
    public let exposures: ExposuresTable

    public init(engine: any SQLEngine, exposures: ExposuresTable) {
        self.engine = engine
        self.exposures = exposures
    }

    public func query(_ experiments: [ExperimentDefinition]) -> String {
        let sql = WarehouseSQL(engine: engine)
        // The bundle's experiments only, compared as the engine compares strings: byte for byte.
        let ids = experiments.map { sql.literal($0.id) }
        let (table, experimentColumn, sessionColumn, userColumn) = (exposures.table, exposures.experiment, exposures.session, exposures.user)
        // Rows without a session or a user are not counted, as the queue audit skips such events.
        let filter = (ids.isEmpty ? "1 = 0" : "\(experimentColumn) IN (\(ids.joined(separator: ", ")))")
            + " AND \(sessionColumn) IS NOT NULL AND \(userColumn) IS NOT NULL"
        return """
        SELECT experiment, \(engine.integer("count(*)")) AS sessions, \(engine.integer("sum(n)")) AS exposures,
          \(engine.integer("sum(n - 1)")) AS duplicate_exposures,
          \(engine.integer("count(DISTINCT CASE WHEN n > 1 THEN user_id END)")) AS users_with_duplicates
        FROM (SELECT \(experimentColumn) AS experiment, \(sessionColumn) AS session_id, \(userColumn) AS user_id, count(*) AS n
          FROM \(table) WHERE \(filter) GROUP BY \(experimentColumn), \(sessionColumn), \(userColumn)) AS per_session
        GROUP BY experiment
        ORDER BY experiment

        """
    }
}
