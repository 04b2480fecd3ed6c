/// `--json`, the switch most commands share: one name, each command's own sentence about
/// what the document holds.
enum OutputFlags {
    static func json(_ summary: String = "Print one JSON document") -> Flag<Bool> {
        .switch("json", summary)
    }
}
