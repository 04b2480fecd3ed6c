import AppDNACore

/// Text inside a GitHub Actions workflow command (`::error file=F,line=L::MESSAGE`,
/// `::warning::MESSAGE`): `bundle validate --format github`, `bundle fetch --keep-on-failure`.
enum GitHubWorkflowText {
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
