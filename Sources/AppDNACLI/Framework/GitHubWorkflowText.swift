import AppDNACore

/// Text inside a GitHub Actions workflow command (`::error file=F,line=L::MESSAGE`,
/// `::warning::MESSAGE`): `bundle validate --format github`, `bundle fetch --keep-on-failure`.
enum GitHubWorkflowText {
    /// A workflow command's data: `%`, CR and LF percent-encoded as the runner decodes them,
    /// and every other control or bidi character shown escaped (`VisibleText`), so the log
    /// line holds nothing raw.
    static func escapeData(_ text: String) -> String {
        var out = ""
        for c in text.unicodeScalars {
            switch c {
            case "%": out += "%25"
            case "\r": out += "%0D"
            case "\n": out += "%0A"
            default: out.unicodeScalars.append(c)
            }
        }
        return VisibleText.escaped(out)
    }

    /// A workflow command's property value (`file=`, `title=`): its data escaping, and `:`
    /// and `,`, which end a property.
    static func escapeProperty(_ text: String) -> String {
        var out = ""
        for c in escapeData(text).unicodeScalars {
            switch c {
            case ":": out += "%3A"
            case ",": out += "%2C"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }
}
