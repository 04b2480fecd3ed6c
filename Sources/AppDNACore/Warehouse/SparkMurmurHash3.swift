/// MurmurHash3_x86_32 (seed 0) in Spark SQL, with Spark's own `hash()` doing the work that
/// grows with the id: it is MurmurHash3_x86_32 too, generated code over the bytes in one
/// pass, but with seed 42, chained over its arguments, and with a non-standard tail. So:
///
/// - the seed: `hash(i, bytes)` hashes `bytes` with the seed `hashInt(i, 42)`, and every step
///   of `hashInt` can be inverted, so `i` is chosen (when the query is written) to make that
///   seed the state after the bundle's fixed prefix;
/// - the tail: Spark hashes only the row's whole 4-byte blocks (its tail never runs), and the
///   last `count % 4` bytes are mixed here in plain column expressions;
/// - the finaliser: Spark's result is `fmix(h ^ length)` over the blocks it saw, which is
///   undone (`fmix` can be inverted too) to get the state, then the tail, the whole length
///   and `fmix` are applied as the standard hash does.
///
/// No list function, lambda or UDF: every column is an expression Spark generates code for,
/// and time is linear in the id's length. Values stay below 2^49 (Spark's ANSI mode fails a
/// query on overflow).
enum SparkMurmurHash3 {
    private static let mask = "4294967295"
    private static let (c1, c2) = (MurmurHash3.Constants.c1, MurmurHash3.Constants.c2)
    private static let (f1, f2) = (MurmurHash3.Constants.f1, MurmurHash3.Constants.f2)
    /// Spark's `hash()` starts from this seed.
    static let sparkSeed: UInt32 = 42

    static func hash(_ inputs: [HashedBytes], engine: SparkEngine, in rows: inout SQLRelation) -> [String] {
        guard !inputs.isEmpty else { return [] }
        let plans = inputs.map { input -> (seed: Int32, folded: Int, bytes: String, fixedCount: Int) in
            let folded = input.prefix.count & ~3
            let rest = Array(input.prefix[folded...])
            let state = input.prefix.withUnsafeBytes { MurmurHash3.state(afterBlocksOf: $0) }
            var parts = [engine.bytes(of: input.text)]
            if !rest.isEmpty { parts.insert(engine.bytesLiteral(rest), at: 0) }
            parts.append(engine.bytesLiteral(input.suffix + [0, 0, 0]))
            return (Int32(bitPattern: intHashedTo(state)), folded, "concat(" + parts.joined(separator: ", ") + ")", rest.count + input.suffix.count)
        }
        // The bytes (after the folded prefix, then three zero bytes) and how many are hashed.
        let bound = rows.bind(zip(plans, inputs).flatMap { plan, input in
            [plan.bytes, "(octet_length(\(input.text)) + \(plan.fixedCount))"]
        })
        let bytes = stride(from: 0, to: bound.count, by: 2).map { bound[$0] }
        let count = stride(from: 1, to: bound.count, by: 2).map { bound[$0] }
        let blockBytes = count.map { "((\($0) div 4) * 4)" }
        // Spark's hash of the whole blocks, unsigned; the tail's word (zero bytes after it).
        let hashedAndTail = rows.bind((0..<inputs.count).flatMap { input in
            ["(CAST(hash(CAST(\(plans[input].seed) AS INT), substr(\(bytes[input]), 1, \(blockBytes[input]))) AS BIGINT) & \(mask))",
             "CAST(conv(hex(substr(\(bytes[input]), \(blockBytes[input]) + 1, 4)), 16, 10) AS BIGINT)"]
        })
        let hashed = stride(from: 0, to: hashedAndTail.count, by: 2).map { hashedAndTail[$0] }
        let tail = stride(from: 1, to: hashedAndTail.count, by: 2).map { hashedAndTail[$0] }
        // fmix undone in two layers (its last xor-shift by 16 is its own inverse); the tail's
        // key in two layers beside it.
        let first = rows.bind((0..<inputs.count).flatMap { input in
            [multiplied(xorShifts(hashed[input], [16]), inverse(f2)), multiplied(littleEndian(tail[input]), c1)]
        })
        let second = rows.bind((0..<inputs.count).flatMap { input in
            [multiplied(xorShifts(first[2 * input], [13, 26]), inverse(f1)), multiplied(rotated(first[2 * input + 1], 15), c2)]
        })
        // The state after the blocks, Spark's length out and the tail key and the whole length in.
        var hashes = rows.bind((0..<inputs.count).map { input in
            let state = xorShifts(second[2 * input], [16])
            return "(\(state) ^ \(blockBytes[input]) ^ \(second[2 * input + 1]) ^ (\(count[input]) + \(plans[input].folded)))"
        })
        // fmix, each xor-shift cheap enough to write twice.
        hashes = rows.bind(hashes.map { multiplied(xorShifts($0, [16]), f1) })
        hashes = rows.bind(hashes.map { multiplied(xorShifts($0, [13]), f2) })
        return hashes.map { xorShifts($0, [16]) }
    }

    /// The 32-bit integer whose Spark `hash()` (seed 42: `fmix(mixH1(42, mixK1(i)), 4)`) is
    /// `seed`, so that `hash(i, bytes)` hashes `bytes` starting from `seed`.
    static func intHashedTo(_ seed: UInt32) -> UInt32 {
        let h = unmixed(seed) ^ 4
        let rotatedKey = (h &- 0xe654_6b64) &* inverse(5)
        let key = ((rotatedKey >> 13) | (rotatedKey << 19)) ^ sparkSeed
        let multiplied = key &* inverse(c2)
        return ((multiplied >> 15) | (multiplied << 17)) &* inverse(c1)
    }

    /// The inverse of MurmurHash3's `fmix32`.
    static func unmixed(_ hash: UInt32) -> UInt32 {
        var h = hash
        h ^= h >> 16
        h = h &* inverse(f2)
        h ^= (h >> 13) ^ (h >> 26)
        h = h &* inverse(f1)
        h ^= h >> 16
        return h
    }

    /// The multiplicative inverse of an odd `value` modulo 2^32 (Newton's iteration).
    static func inverse(_ value: UInt32) -> UInt32 {
        var x = value
        for _ in 0..<5 { x = x &* (2 &- value &* x) }
        return x
    }

    // MARK: 32-bit arithmetic in BIGINT columns

    /// `x ^ (x >> b1) ^ (x >> b2) …`
    private static func xorShifts(_ x: String, _ bits: [Int]) -> String {
        "(" + ([x] + bits.map { "shiftright(\(x), \($0))" }).joined(separator: " ^ ") + ")"
    }

    /// (x × c) mod 2^32 in two halves, so no product reaches 2^49.
    private static func multiplied(_ x: String, _ c: UInt32) -> String {
        "(((\(x) * \(c & 0xffff)) + shiftleft((\(x) * \(c >> 16)) & 65535, 16)) & \(mask))"
    }

    private static func rotated(_ x: String, _ bits: Int) -> String {
        "((shiftleft(\(x), \(bits)) | shiftright(\(x), \(32 - bits))) & \(mask))"
    }

    /// A big-endian word read little-endian.
    private static func littleEndian(_ word: String) -> String {
        "(shiftleft(\(word) & 255, 24) | shiftleft(shiftright(\(word), 8) & 255, 16) | shiftleft(shiftright(\(word), 16) & 255, 8) | shiftright(\(word), 24))"
    }
}
