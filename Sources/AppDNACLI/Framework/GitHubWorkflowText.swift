import AppDNACore

/// Text inside a GitHub Actions workflow command (`::error file=F,line=L::MESSAGE`,
/// `::warning::MESSAGE`), and the annotations made of them. Under GitHub Actions
/// (`GITHUB_ACTIONS` set) every error the runner reports and every warning a command gives is
/// one (`Runner.report`, `Invocation.warn`, `Invocation.error`): the runner shows them on the
/// pull request, where a plain stderr line is only in the log. `bundle validate --format github`
/// writes its findings the same way.
enum GitHubWorkflowText {
    enum Severity: String { case error, warning }

    /// What an annotation points at: a file, with its line and column when known.
    struct Place: Sendable, Equatable {
        let file: String
        var line: Int? = nil
        var column: Int? = nil
    }

    /// Whether errors and warnings are written as workflow commands: GitHub Actions sets
    /// `GITHUB_ACTIONS=true` in every step.
    static func isActive(_ environment: [String: String]) -> Bool {
        guard let value = environment["GITHUB_ACTIONS"] else { return false }
        return !value.isEmpty
    }

    /// `::error file=F,line=L,col=C,title=T::MESSAGE`, each property only when known. A
    /// multi-line message (a hint after the error) stays one command: its line breaks are
    /// encoded and the runner shows them.
    static func annotation(_ severity: Severity, _ message: String, place: Place? = nil, title: String? = nil) -> String {
        var properties: [String] = []
        if let place {
            properties.append("file=" + escapeProperty(place.file))
            if let line = place.line { properties.append("line=\(line)") }
            if let column = place.column { properties.append("col=\(column)") }
        }
        if let title { properties.append("title=" + escapeProperty(title)) }
        return "::\(severity.rawValue)" + (properties.isEmpty ? "" : " " + properties.joined(separator: ",")) + "::" + escapeData(message)
    }

    /// A workflow command's data: `%`, CR and LF percent-encoded as the runner decodes them,
    /// and every other control or bidi character shown escaped (`VisibleText`), so the log
    /// line holds nothing raw.
    static func escapeData(_ text: String) -> String {
        VisibleText.escaped(percentEncoding(text, ["%": "%25", "\r": "%0D", "\n": "%0A"]))
    }

    /// A workflow command's property value (`file=`, `title=`): its data escaping, and `:`
    /// and `,`, which end a property.
    static func escapeProperty(_ text: String) -> String {
        percentEncoding(escapeData(text), [":": "%3A", ",": "%2C"])
    }

    /// `text` with each scalar in `codes` replaced by its code.
    private static func percentEncoding(_ text: String, _ codes: [Unicode.Scalar: String]) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            if let code = codes[scalar] { out += code } else { out.unicodeScalars.append(scalar) }
        }
        return out
    }
}
