/// The one seeded mutator every fuzz test in this target uses: a few random edits per call —
/// flip a bit, insert a random byte, delete a span, duplicate a span elsewhere, splice in a
/// token that matters to the parser under test, or cut the input short.
struct ByteMutator {
    /// Byte strings the parser under test treats specially (`{`, `\r\n`, `sha256=` …).
    let tokens: [[UInt8]]
    var maxEdits = 4
    var maxDelete = 32
    var maxDuplicate = 64

    init(tokens: [String], maxEdits: Int = 4, maxDelete: Int = 32, maxDuplicate: Int = 64) {
        self.tokens = tokens.map { Array($0.utf8) }
        self.maxEdits = maxEdits
        self.maxDelete = maxDelete
        self.maxDuplicate = maxDuplicate
    }

    func mutate(_ input: [UInt8], using generator: inout SplitMix64) -> [UInt8] {
        var bytes = input
        for _ in 0..<Int.random(in: 1...maxEdits, using: &generator) {
            let position = bytes.isEmpty ? 0 : Int.random(in: 0...bytes.count, using: &generator)
            switch Int.random(in: 0..<6, using: &generator) {
            case 0 where position < bytes.count:
                bytes[position] ^= UInt8(1 << Int.random(in: 0..<8, using: &generator))
            case 1:
                bytes.insert(UInt8.random(in: 0...255, using: &generator), at: position)
            case 2 where position < bytes.count:
                bytes.removeSubrange(position..<min(bytes.count, position + Int.random(in: 1...maxDelete, using: &generator)))
            case 3 where position < bytes.count:
                let end = min(bytes.count, position + Int.random(in: 1...maxDuplicate, using: &generator))
                bytes.insert(contentsOf: Array(bytes[position..<end]), at: Int.random(in: 0...bytes.count, using: &generator))
            case 4:
                bytes.insert(contentsOf: tokens[Int.random(in: 0..<tokens.count, using: &generator)], at: position)
            default:
                bytes = Array(bytes.prefix(position))
            }
        }
        return bytes
    }
}
