import AppDNACore

/// `appdna completions install [--shell S]`: writes the completion script where the running
/// user's shell looks for it, in the home directory (no root), and says what, if anything, the
/// rc file needs. The places, per shell:
/// - bash: bash-completion's user directory (`$BASH_COMPLETION_USER_DIR/completions`, else
///   `${XDG_DATA_HOME:-~/.local/share}/bash-completion/completions`), loaded on demand;
/// - zsh: the first writable directory of `$FPATH` under the home directory when the shell
///   exported one, else `${ZDOTDIR:-~}/.zsh/completions`, which `.zshrc` must add to `fpath`;
/// - fish: `${XDG_CONFIG_HOME:-~/.config}/fish/completions`, read by every fish.
enum CompletionInstall {
    struct Plan: Equatable {
        let shell: CompletionShell
        let path: String
        /// Lines for the rc file (empty when nothing is needed) and which file.
        let rcLines: [String]
        let rcFile: String
        let note: String
    }

    static func shell(given: CompletionShell?, environment: [String: String]) throws -> CompletionShell {
        if let given { return given }
        guard let login = environment["SHELL"].flatMap(CompletionShell.init(loginShell:)) else {
            throw Failure(.usage, "cannot tell which shell to install for (SHELL is '\(environment["SHELL"] ?? "")'): give --shell bash, zsh or fish")
        }
        return login
    }

    static func plan(shell: CompletionShell, environment: [String: String]) throws -> Plan {
        guard let home = environment["HOME"], !home.isEmpty else {
            throw Failure(.configuration, "HOME is not set: completions install writes under the home directory")
        }
        func variable(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        switch shell {
        case .zsh:
            let zdot = variable("ZDOTDIR") ?? home
            let exported = (variable("FPATH") ?? "").split(separator: ":").map(String.init)
            if let writable = exported.first(where: { ($0 == home || $0.hasPrefix(home + "/")) && isWritableDirectory($0) }) {
                return Plan(shell: shell, path: writable + "/_appdna", rcLines: [], rcFile: zdot + "/.zshrc",
                            note: "\(writable) is on your fpath: a new zsh (with compinit) completes appdna")
            }
            let directory = zdot + "/.zsh/completions"
            return Plan(shell: shell, path: directory + "/_appdna",
                        rcLines: ["fpath=(\(directory) $fpath)", "autoload -Uz compinit && compinit"], rcFile: zdot + "/.zshrc",
                        note: "the fpath line goes before compinit; leave out the second line if your .zshrc already runs compinit")
        case .fish:
            let config = variable("XDG_CONFIG_HOME") ?? home + "/.config"
            return Plan(shell: shell, path: config + "/fish/completions/appdna.fish", rcLines: [], rcFile: config + "/fish/config.fish",
                        note: "fish reads this directory by itself: a new fish completes appdna")
        case .bash:
            let directory = variable("BASH_COMPLETION_USER_DIR").map { $0 + "/completions" }
                ?? (variable("XDG_DATA_HOME") ?? home + "/.local/share") + "/bash-completion/completions"
            let path = directory + "/appdna"
            return Plan(shell: shell, path: path, rcLines: [], rcFile: home + "/.bashrc",
                        note: "bash-completion loads it on demand (Debian: apt-get install bash-completion); without that package, add to \(home)/.bashrc: [ -r \(path) ] && . \(path)")
        }
    }

    static func isWritableDirectory(_ path: String) -> Bool {
        FileStatus.kind(path: path) == .directory && (try? FileSystem.checkCanCreateFiles(in: path)) != nil
    }

    /// `mkdir -p`, mode 0755 for what it creates.
    static func makeDirectories(_ path: String) throws {
        var built = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            built += "/" + component
            do {
                try FileSystem.makeDirectory(built, permissions: 0o755)
            } catch where error != .exists {
                throw Failure(.cannotCreateOutput, "\(built): cannot create the directory: \(error)")
            } catch {}
        }
    }

    static func run(_ invocation: Invocation) throws -> ExitStatus {
        let shell = try shell(given: invocation.arguments[CompletionsFlags.shell], environment: invocation.io.environment)
        let plan = try plan(shell: shell, environment: invocation.io.environment)
        let directory = String(plan.path[..<plan.path.lastIndex(of: "/")!])
        try makeDirectories(directory)
        try AtomicFile.replace(path: plan.path, with: Array(plan.shell.script(for: .appdna).utf8))
        let out = invocation.stdout
        out.writeLine("installed \(plan.shell.rawValue) completions: \(plan.path)")
        if plan.rcLines.isEmpty {
            out.writeLine("nothing to add to your shell's startup file; \(plan.note)")
        } else {
            out.writeLine("add to \(plan.rcFile):")
            for line in plan.rcLines { out.writeLine("  " + line) }
            out.writeLine("\(plan.note); then open a new shell")
        }
        return .success
    }
}

enum CompletionsFlags {
    static let shell = Flag.optional("shell", value: "SHELL", "With install: the shell to install for (default: the one SHELL names)", .choice(CompletionShell.self))

    static let all: [FlagSpec] = [shell.spec]
}
