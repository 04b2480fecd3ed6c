import AppDNACore

/// `appdna completions SHELL` and `appdna manpage`: print what the generators make of the table.
enum GeneratedDocsCommand {
    /// What `completions` does, decided once: print a shell's script, or install it (where,
    /// and what to make first: `CompletionInstall.Plan`).
    enum CompletionsPlan: Equatable {
        case print(CompletionShell)
        case install(CompletionInstall.Plan)
    }

    @Sendable static func completionsPlan(_ arguments: ParsedArguments, _ invocation: Invocation) throws -> CompletionsPlan {
        let shell = arguments[CompletionsFlags.shell]
        if arguments.operand(0) == "install" {
            return .install(try CompletionInstall.plan(given: shell, environment: invocation.io.environment, files: invocation.io.files))
        }
        if shell != nil {
            throw Failure(.usage, "--shell is for 'appdna completions install'; to print a script, give the shell: appdna completions zsh")
        }
        // The parser allows only the shells and install as SHELL.
        guard let printed = arguments.operand(0).flatMap(CompletionShell.init(rawValue:)) else {
            throw Failure(.usage, "give a shell (bash, zsh or fish) or install")
        }
        return .print(printed)
    }

    @Sendable static func completions(_ plan: CompletionsPlan, _ invocation: Invocation) throws -> ExitStatus {
        switch plan {
        case .install(let install): return try CompletionInstall.perform(install, invocation)
        case .print(let shell):
            invocation.stdout.writeVerbatim(shell.script(for: .appdna))
            return .success
        }
    }

    /// `manpage` reads nothing but the table: its plan is empty.
    struct ManpagePlan: Equatable {}

    @Sendable static func manpagePlan(_ arguments: ParsedArguments, _ invocation: Invocation) -> ManpagePlan { ManpagePlan() }

    @Sendable static func manpage(_ plan: ManpagePlan, _ invocation: Invocation) throws -> ExitStatus {
        invocation.stdout.writeVerbatim(ManPageRenderer(table: .appdna).render())
        return .success
    }
}
