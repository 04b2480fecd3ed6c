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
        /// The directories to make before the script is written, outermost first: what
        /// `mkdir -p` would make, found by the plan, which also checked that the directory
        /// above them takes new files.
        var directories: [String] = []
    }

    static func shell(given: CompletionShell?, environment: [String: String]) throws -> CompletionShell {
        if let given { return given }
        guard let login = environment["SHELL"].flatMap(CompletionShell.init(loginShell:)) else {
            throw Failure(.usage, "cannot tell which shell to install for (SHELL is '\(environment["SHELL"] ?? "")'): give --shell bash, zsh or fish")
        }
        return login
    }

    /// Where the script goes and what it takes, checked before anything is made: the shell
    /// (64 when SHELL names none), the home directory (78), and that the file can be created
    /// there (73, with no directory made yet).
    static func plan(given: CompletionShell?, environment: [String: String], files: any FileAccess) throws -> Plan {
        var plan = try plan(shell: shell(given: given, environment: environment), environment: environment, files: files)
        plan.directories = try directoriesToMake(for: plan.path, files: files)
        return plan
    }

    static func plan(shell: CompletionShell, environment: [String: String], files: any FileAccess) throws -> Plan {
        guard let home = environment["HOME"], !home.isEmpty else {
            throw Failure(.configuration, "HOME is not set: completions install writes under the home directory")
        }
        func variable(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        switch shell {
        case .zsh:
            let zdot = variable("ZDOTDIR") ?? home
            let exported = (variable("FPATH") ?? "").split(separator: ":").map(String.init)
            if let writable = exported.first(where: { ($0 == home || $0.hasPrefix(home + "/")) && isWritableDirectory($0, files: files) }) {
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

    static func isWritableDirectory(_ path: String, files: any FileAccess) -> Bool {
        (try? files.kind(path: path)) == .directory && (try? files.checkCanCreateFiles(inDirectory: path)) != nil
    }

    /// The directories above `path` that do not exist yet, outermost first, once the first one
    /// that does is known to be a directory this process may create files in; the script's
    /// own directory when it exists, and the script itself, are checked as the write checks them.
    static func directoriesToMake(for path: String, files: any FileAccess) throws -> [String] {
        var missing: [String] = []
        var directory = parent(of: path)
        while true {
            let isDirectory: Bool
            do {
                isDirectory = try files.kind(path: directory) == .directory
            } catch where error == .notFound {
                // Up to the root (or "."), which is there: one that is not cannot be made either.
                let above = parent(of: directory)
                if above == directory { throw Failure(.cannotCreateOutput, "\(directory): \(error)") }
                missing.insert(directory, at: 0)
                directory = above
                continue
            } catch {
                throw Failure(.cannotCreateOutput, "\(directory): \(error)")
            }
            guard isDirectory else { throw Failure(.cannotCreateOutput, "\(directory): not a directory") }
            break
        }
        guard let first = missing.first else {
            try files.checkWritable(path: path)
            return []
        }
        do {
            try files.checkCanCreateFiles(inDirectory: directory)
        } catch {
            throw Failure(.cannotCreateOutput, "\(first): cannot create the directory: \(error)")
        }
        return missing
    }

    /// The directory `path` is in ("/" for a name at the root, "." for a bare name).
    static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    static func perform(_ plan: Plan, _ invocation: Invocation) throws -> ExitStatus {
        let files = invocation.io.files
        for directory in plan.directories {
            do {
                try files.makeDirectory(directory, permissions: 0o755)
            } catch where error != .exists {
                throw Failure(.cannotCreateOutput, "\(directory): cannot create the directory: \(error)")
            } catch {}
        }
        try files.replace(path: plan.path, with: Array(plan.shell.script(for: .appdna).utf8), timeout: nil)
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
