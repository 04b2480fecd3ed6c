import AppDNACore

/// `appdna completions SHELL` and `appdna manpage`: print what the generators make of the table.
enum GeneratedDocsCommand {
    static func completions(_ invocation: Invocation) throws -> ExitStatus {
        if invocation.arguments.operand(0) == "install" { return try CompletionInstall.run(invocation) }
        if invocation.arguments[CompletionsFlags.shell] != nil {
            throw Failure(.usage, "--shell is for 'appdna completions install'; to print a script, give the shell: appdna completions zsh")
        }
        // The parser allows only the shells and install as SHELL.
        guard let shell = invocation.arguments.operand(0).flatMap(CompletionShell.init(rawValue:)) else {
            throw Failure(.usage, "give a shell (bash, zsh or fish) or install")
        }
        invocation.stdout.writeVerbatim(shell.script(for: .appdna))
        return .success
    }

    static func manpage(_ invocation: Invocation) throws -> ExitStatus {
        invocation.stdout.writeVerbatim(ManPageRenderer(table: .appdna).render())
        return .success
    }
}
