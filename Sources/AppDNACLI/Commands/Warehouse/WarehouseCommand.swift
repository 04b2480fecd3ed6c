import AppDNACore

/// `appdna warehouse assignment|audit|srm|duplicates`: one query for a warehouse engine on
/// stdout, and nothing else there; the validator's error count (rule-level errors the SQL
/// reproduces as devices do) goes to stderr. The queries are built in Core (`AssignmentSQL`,
/// `ExposureAuditSQL`, `SampleRatioSQL`, `DuplicateExposuresSQL`) over the engine's spellings.
enum WarehouseCommand {
    /// The run of one query: its plan (`WarehousePlan`), then the SQL.
    static func run(_ query: WarehouseQuery) -> CommandRun {
        CommandRun.planned(plan: { arguments, invocation in try WarehousePlan(query, arguments, invocation) }, perform: perform)
    }

    /// Fetches an @remote bundle, picks its experiments, and writes the SQL; the validator's
    /// error count goes to stderr.
    @Sendable static func perform(_ plan: WarehousePlan, _ invocation: Invocation) throws -> ExitStatus {
        let chosen = try plan.bundle.chosen()
        if chosen.errors > 0 {
            let path = plan.bundle.path, errors = chosen.errors
            invocation.io.stderr.writeLine("appdna: warning: \(path): \(errors) validation error\(errors == 1 ? "" : "s"); the SQL does what devices do "
                                           + "with them (run \(ShellWord.line(["appdna", "bundle", "validate", path])) to list them)")
        }
        // SQL: its literals are escaped for the engine, every byte kept.
        invocation.stdout.writeVerbatim(plan.sql.query(chosen.document, chosen.experiments))
        return .success
    }
}
