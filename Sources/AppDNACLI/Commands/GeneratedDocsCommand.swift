import AppDNACore

/// `appdna completions SHELL` and `appdna manpage`: print what the generators make of the table.
enum GeneratedDocsCommand {
    static func completions(_ invocation: Invocation) throws -> ExitStatus {
        if invocation.arguments.operand(0) == "install" { return try CompletionInstall.run(invocation) }
        if invocation.arguments[CompletionsFlags.shell] != nil {
            throw Failure(.usage, "--shell is for 'appdna completions install'; to print a script, give the shell: appdna completions zsh")
        }
        invocation.stdout.writeVerbatim(CompletionScripts.render(shell: invocation.arguments.operand(0)!, table: .appdna))
        return .success
    }

    static func manpage(_ invocation: Invocation) throws -> ExitStatus {
        invocation.stdout.writeVerbatim(ManPageRenderer(table: .appdna).render())
        return .success
    }
}

/// The three completion generators behind one switch (the shell name is validated by the parser).
public enum CompletionScripts {
    public static let shells = ["bash", "zsh", "fish"]

    /// The committed file each shell's script is kept in, relative to the repository.
    public static func committedPath(shell: String) -> String {
        switch shell {
        case "zsh": return "completions/_appdna"
        case "fish": return "completions/appdna.fish"
        default: return "completions/appdna.bash"
        }
    }

    public static func render(shell: String, table: CommandTable) -> String {
        let model = CompletionModel(table: table)
        switch shell {
        case "zsh": return ZshCompletion(model: model).render()
        case "fish": return FishCompletion(model: model).render()
        default: return BashCompletion(model: model).render()
        }
    }
}
