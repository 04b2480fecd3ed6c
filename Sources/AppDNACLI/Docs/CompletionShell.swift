/// The shells appdna writes completion scripts for (issue 35.4: a shell is a value the
/// compiler checks, not a string compared in three places). A switch over it lists every
/// shell, so a fourth one is a compile error until each place says what it does for it.
public enum CompletionShell: String, CaseIterable, Sendable {
    case bash, zsh, fish

    /// The committed file its script is kept in, relative to the repository.
    public var committedPath: String {
        switch self {
        case .bash: return "completions/appdna.bash"
        case .zsh: return "completions/_appdna"
        case .fish: return "completions/appdna.fish"
        }
    }

    /// The script for `table`.
    public func script(for table: CommandTable) -> String {
        let model = CompletionModel(table: table)
        switch self {
        case .bash: return BashCompletion(model: model).render()
        case .zsh: return ZshCompletion(model: model).render()
        case .fish: return FishCompletion(model: model).render()
        }
    }

    /// The shell a login shell's path names (`/usr/bin/zsh`), when it is one of these.
    init?(loginShell path: String) {
        self.init(rawValue: String(path.split(separator: "/").last ?? ""))
    }
}
