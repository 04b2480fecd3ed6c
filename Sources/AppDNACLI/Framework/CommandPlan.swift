import AppDNACore

/// A command whose run is split in two, as ripgrep turns its flags into one `HiArgs` value
/// and never looks back: `plan` reads the parsed arguments once (deciding the mode and
/// gathering everything the run needs into one value), the arguments are then closed, and
/// `run` works from the plan alone. A read of the arguments after the plan is built is an
/// internal error (70) that `Runner` reports, as an undeclared read is (`PlanClosedTests`).
enum CommandPlan {
    /// The `run` of a `CommandSpec` made of a plan builder and a run over its plan.
    static func run<Plan>(plan: @escaping @Sendable (Invocation) throws -> Plan,
                          then run: @escaping @Sendable (Plan, Invocation) throws -> ExitStatus) -> @Sendable (Invocation) throws -> ExitStatus {
        { invocation in
            let decided = try plan(invocation)
            invocation.arguments.close()
            return try run(decided, invocation)
        }
    }
}
