/// Long values quoted in findings and notes, shortened to the first and last characters with
/// the length after them, so a 5,000-digit number or a pasted blob stays one readable line and
/// both ends (where typos and cut-offs show) stay visible.
public enum ShortenedText {
    /// `text` itself when it has at most `limit` characters; else e.g.
    /// `10000000000000000…00000000000000000 (5001 characters)`.
    public static func shortened(_ text: String, limit: Int = 60) -> String {
        format(text, limit: limit, quote: "")
    }

    /// `text` in double quotes, shortened the same way with the length after the quotes:
    /// `"exp_xxxxxxxxxxxxxxx…xxxxxxxxxxxxxxx_end" (5008 characters)`.
    public static func quoted(_ text: String, limit: Int = 60) -> String {
        format(text, limit: limit, quote: "\"")
    }

    private static func format(_ text: String, limit: Int, quote: String) -> String {
        let count = text.count
        guard count > limit else { return quote + text + quote }
        let kept = max(1, (limit - 2) / 2)
        return quote + String(text.prefix(kept)) + "…" + String(text.suffix(kept)) + quote + " (\(count) characters)"
    }
}
