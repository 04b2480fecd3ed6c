/// A help page that belongs to no command: `appdna help environment`. The tool's own help
/// names each topic in a line instead of printing it, so that `appdna --help` stays a page about
/// commands (its 20 environment variables took most of its lines: issue 34.8).
public enum HelpTopic: String, CaseIterable, Sendable {
    case environment

    /// The page's title.
    public var title: String {
        switch self {
        case .environment: return "The environment variables appdna reads"
        }
    }

    /// The line `appdna --help` gives it.
    public var summary: String {
        switch self {
        case .environment: return "The environment variables appdna reads (key, API URL, webhook secret, proxies, CA certificates, libraries, threads, colour, completions install)"
        }
    }

    /// The topic `words` name (`help environment`), when they name one and no command.
    static func named(_ words: [String], in table: CommandTable) -> HelpTopic? {
        guard words.count == 1, table.command(words) == nil, table.group(words[0]) == nil else { return nil }
        return HelpTopic(rawValue: words[0])
    }
}
