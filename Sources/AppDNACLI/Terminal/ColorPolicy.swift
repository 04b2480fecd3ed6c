/// When to colour output: only for a terminal, never with `NO_COLOR` or `TERM=dumb`,
/// always with `--color always` (which beats the environment: the user asked explicitly).
public enum ColorPolicy {
    public static func enabled(flag: String?, environment: [String: String], isTerminal: Bool) -> Bool {
        switch flag {
        case "always": return true
        case "never": return false
        default:
            if let noColor = environment["NO_COLOR"], !noColor.isEmpty { return false }
            if environment["TERM"] == "dumb" { return false }
            return isTerminal
        }
    }
}

/// ANSI styles, applied only when colour is on.
public struct Styler: Sendable {
    public let enabled: Bool

    public init(enabled: Bool) { self.enabled = enabled }

    public enum Style: String, Sendable {
        case bold = "1", dim = "2", red = "31", green = "32", yellow = "33", cyan = "36"
    }

    public func apply(_ style: Style, _ text: String) -> String {
        // The sink turns the marker into ESC (and escapes any ESC that came with `text`).
        enabled ? "\(TerminalText.escape)[\(style.rawValue)m\(text)\(TerminalText.escape)[0m" : text
    }
}
