/// `--inspect PORT`, `--inspect-keep N` and `--inspect-max-bytes SIZE`, shared by `webhook listen` (deliveries) and
/// `api serve` (requests): one name and range each, worded for what each listener keeps.
enum InspectorFlags {
    static func port(_ what: String) -> Flag<Int?> {
        .optional("inspect", value: "PORT", "Serve a page listing the last \(what) on http://127.0.0.1:PORT/ (always loopback; 0 picks a free port)",
                  details: "The page updates by itself and shows each one in full. Its JSON is under /api/ (docs/schemas/inspector-*.schema.json). It keeps the last --inspect-keep in memory, each with at most 64 KiB of its body and 4 KiB of its answer.",
                  .integer(0...65535))
    }

    static func keep(_ what: String) -> Flag<Int> {
        .defaulted("inspect-keep", value: "N", "How many \(what) the --inspect page keeps in memory (the oldest go first)",
                   default: "500", .integer(1...100_000))
    }

    /// The inspector's memory is bounded by bytes too: `--inspect-keep 100000` of fat requests
    /// would otherwise hold gigabytes.
    static func maxBytes(_ what: String) -> Flag<Int> {
        .defaulted("inspect-max-bytes", value: "SIZE", "The most memory the --inspect page's \(what) may hold (the oldest go first, whatever --inspect-keep says)",
                   default: "64MiB", .size((1 << 20)...(4 << 30)))
    }
}
