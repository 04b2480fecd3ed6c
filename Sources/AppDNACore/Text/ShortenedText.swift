/// Long values quoted in findings and notes, shortened to the first and last characters with
/// the length between, so a 5,000-digit number or a pasted blob stays one readable line and
/// both ends (where typos and cut-offs show) stay visible.
public enum ShortenedText {
    /// `text` itself when it has at most `limit` characters; else e.g.
    /// `10000000000000000…00000000000000000 (5001 characters)`.
    public static func shortened(_ text: String, limit: Int = 60) -> String {
        let count = text.count
        guard count > limit else { return text }
        let kept = max(1, (limit - 2) / 2)
        return String(text.prefix(kept)) + "…" + String(text.suffix(kept)) + " (\(count) characters)"
    }
}
