import AppDNACore

/// A changed value as `bundle diff` shows it in its text and in its markdown: compact JSON,
/// cut at 80 characters.
enum DiffValueText {
    static func of(_ node: JSONNode?) -> String { BundleDiff.show(node, limit: 80) }
}
