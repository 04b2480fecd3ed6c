/// The aligned `label  value` blocks of the text reports (`bucket`, `queue inspect`,
/// `queue replay`'s plan, `webhook verify`): labels padded to the longest one plus two
/// spaces, an empty label continuing the row above, and a row with neither label nor value
/// written as an empty line (a break between sections). The one writer of that shape.
enum LabelValueBlock {
    static func write(_ rows: [(String, String)], to sink: OutputSink, indent: String = "") {
        let width = rows.map(\.0.count).max() ?? 0
        for (label, value) in rows {
            if label.isEmpty && value.isEmpty { sink.writeLine(); continue }
            sink.writeLine(indent + label + String(repeating: " ", count: width - label.count + 2) + value)
        }
    }
}
