import AppDNACore

/// What every command of the table is: a plan and a perform, as ripgrep turns its flags into
/// one `HiArgs` value and never looks back. `plan` reads the parsed arguments once (deciding
/// the mode, checking every flag and operand, gathering everything the run needs into one
/// value) and has no effect: no file written, no socket bound, no request sent. The arguments
/// are then closed, and `perform` works from the plan alone: it is not given the arguments
/// (an `Invocation` does not carry them), and a read through a copy the plan kept is an
/// internal error (70) that `Runner` reports (`PlanClosedTests`, `EveryCommandPlansTests`).
public struct CommandRun: Sendable {
    /// Plan, close the arguments, perform.
    let run: @Sendable (ParsedArguments, Invocation) throws -> ExitStatus
    /// The plan alone, for the tests that walk the table: it must succeed or refuse without
    /// an effect, and the value it builds must not hold the arguments.
    let planOnly: @Sendable (ParsedArguments, Invocation) throws -> Any

    /// The only way to make a command's run.
    static func planned<Plan>(plan: @escaping @Sendable (ParsedArguments, Invocation) throws -> Plan,
                              perform: @escaping @Sendable (Plan, Invocation) throws -> ExitStatus) -> CommandRun {
        CommandRun(run: { arguments, invocation in
            let decided = try plan(arguments, invocation)
            arguments.close()
            return try perform(decided, invocation)
        }, planOnly: { arguments, invocation in try plan(arguments, invocation) })
    }
}
