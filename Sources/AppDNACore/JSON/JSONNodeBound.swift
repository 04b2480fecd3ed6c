/// The most nodes (values and keys) a JSON text can parse to, counted without parsing it, so
/// that the parse's memory (16 bytes a node, `JSONTapeNode`) can be budgeted before it starts
/// (`api serve`'s ingest; `JSONParseOptions.tapeNodes`). Every node but the first follows a `[`,
/// a `{`, a `,` or a `:`, and each of those precedes at most one: so one plus their count,
/// wherever they are (inside strings too: an over-count, never an under-count).
public enum JSONNodeBound {
    /// What a node takes on the tape.
    public static let bytesPerNode = MemoryLayout<JSONTapeNode>.stride

    public static func of(_ bytes: [UInt8]) -> Int {
        bytes.withUnsafeBufferPointer { buffer in
            var marks = 0
            for byte in buffer where byte == 0x2C || byte == 0x3A || byte == 0x5B || byte == 0x7B { marks += 1 }
            return marks + 1
        }
    }
}
