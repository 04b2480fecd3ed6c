/// A string literal of some language that holds exactly the scalars of a text: the one loop
/// behind Swift and Kotlin literals in generated code and backslash-escaped SQL literals. Each
/// language gives its quote, the scalars it escapes and how it writes a control character;
/// everything else (non-ASCII included) is written as it is, never normalised.
public enum QuotedLiteral {
    /// With `invisible`, the characters `VisibleText` escapes beyond C0 and DEL (C1 controls,
    /// bidi controls, line separators) are written by `control` too: a literal in output that
    /// lands in CI logs and review diffs (SQL) must not reorder or hide what a reader sees.
    public static func quoted(_ text: String, quote: Character, escapes: [Unicode.Scalar: String],
                              invisible: Bool = false, control: (UInt32) -> String) -> String {
        var out = String(quote)
        for scalar in text.unicodeScalars {
            if let escaped = escapes[scalar] {
                out += escaped
            } else if scalar.value < 0x20 || scalar.value == 0x7F || (invisible && VisibleText.mustEscape(scalar.value)) {
                out += control(scalar.value)
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        out.append(quote)
        return out
    }

    /// `value` as `digits` hexadecimal digits, zero-padded.
    public static func hex(_ value: UInt32, digits: Int) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
