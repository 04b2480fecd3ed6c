/// The integer and list operations MurmurHash3 needs, for an engine that has no such hash
/// built in and spells it out in plain SQL (nothing to deploy on the cluster). An engine
/// conforming to this gives every primitive (none has a default) and answers
/// `murmurHash3(_:in:)` with `SpelledMurmurHash3.hash(_:engine:in:)`.
public protocol SQLMurmurPrimitives: SQLEngine {
    /// The UTF-8 bytes of the text expression `text`, as the engine's byte-string type.
    func utf8Bytes(of text: String) -> String
    /// A byte-string literal of `bytes` (any bytes: a prefix may end inside a UTF-8 sequence).
    func bytesLiteral(_ bytes: [UInt8]) -> String
    /// The byte strings `parts`, one after the other.
    func concatenated(_ parts: [String]) -> String
    /// How many bytes the byte string `bytes` holds.
    func byteCount(_ bytes: String) -> String
    /// The big-endian 32-bit words of the byte string `bytes` (whose length is the bound name
    /// `count`): a list of its whole 4-byte blocks, and the last `count % 4` bytes padded with
    /// zero bytes to one word (0 when there are none). Reading them must take time linear in
    /// the length; the engine may bind what it needs in `rows`.
    func words(of bytes: String, count: String, in rows: inout SQLRelation) -> (blocks: String, tail: String)
    /// `list` with `body` (over the element named `element`) applied to each element.
    func mapped(_ list: String, _ element: String, _ body: String) -> String
    /// `list` folded from `initial`: `body` over the accumulator `accumulator` and the element `element`.
    func folded(_ list: String, from initial: String, _ accumulator: String, _ element: String, _ body: String) -> String
    /// (x × c) mod 2^32 for 0 ≤ x < 2^32, never overflowing the engine's integers (ANSI
    /// engines fail on overflow instead of wrapping). May read `x` more than once.
    func multipliedMod32(_ x: String, _ c: UInt32) -> String
    func xor(_ a: String, _ b: String) -> String
    func shiftedLeft(_ a: String, _ bits: Int) -> String
    func shiftedRight(_ a: String, _ bits: Int) -> String
}

/// MurmurHash3_x86_32 (seed 0) spelled in SQL over `SQLMurmurPrimitives`, as
/// `MurmurHash3.x86_32` computes it: the bundle's fixed prefix is hashed here, when the query is
/// written (its whole blocks become the starting state), so a row hashes only its own bytes;
/// the row's blocks are read once as words, mixed with the engine's list functions, and the
/// tail and the finaliser are columns bound one after the other (each read several times).
/// All values stay below 2^49 in signed 64-bit integers.
public enum SpelledMurmurHash3 {
    private static let mask = "4294967295"

    public static func hash<Engine: SQLMurmurPrimitives>(_ input: HashedBytes, engine: Engine, in rows: inout SQLRelation) -> String {
        let wholePrefix = input.prefix.count & ~3
        let state = input.prefix.withUnsafeBytes { MurmurHash3.state(afterBlocksOf: $0) }
        var parts = [engine.utf8Bytes(of: input.text)]
        if wholePrefix < input.prefix.count { parts.insert(engine.bytesLiteral(Array(input.prefix[wholePrefix...])), at: 0) }
        if !input.suffix.isEmpty { parts.append(engine.bytesLiteral(input.suffix)) }
        let bytes = rows.bind(parts.count == 1 ? parts[0] : engine.concatenated(parts))
        let count = rows.bind(engine.byteCount(bytes))
        let (blocks, tail) = engine.words(of: bytes, count: count, in: &rows)

        // Every whole block: read little-endian, mixed, folded into the state.
        let (h, k) = ("appdna_h", "appdna_k")  // lambda parameters: they shadow any column so named
        var keys = engine.mapped(blocks, k, littleEndian(k, engine))
        keys = engine.mapped(keys, k, engine.multipliedMod32(k, c1))
        keys = engine.mapped(keys, k, rotated(k, 15, engine))
        keys = engine.mapped(keys, k, engine.multipliedMod32(k, c2))
        let mixed = engine.xor(h, k)
        let fold = "((\(engine.multipliedMod32(rotated(mixed, 13, engine), 5)) + \(0xe654_6b64)) & \(mask))"
        let folded = rows.bind(engine.folded(keys, from: String(state), h, k, fold))

        // The tail (a zero word mixes to zero, so no test for its absence), length, finaliser.
        var key = rows.bind(littleEndian(rows.bind(tail), engine))
        key = rows.bind(engine.multipliedMod32(key, c1))
        key = rows.bind(rotated(key, 15, engine))
        key = rows.bind(engine.multipliedMod32(key, c2))
        var hash = rows.bind(engine.xor(engine.xor(folded, key), "(\(count) + \(wholePrefix))"))
        let finaliser: [(String) -> String] = [{ engine.xor($0, engine.shiftedRight($0, 16)) }, { engine.multipliedMod32($0, 0x85eb_ca6b) },
                                               { engine.xor($0, engine.shiftedRight($0, 13)) }, { engine.multipliedMod32($0, 0xc2b2_ae35) },
                                               { engine.xor($0, engine.shiftedRight($0, 16)) }]
        for step in finaliser { hash = rows.bind(step(hash)) }
        return hash
    }

    private static let (c1, c2): (UInt32, UInt32) = (0xcc9e_2d51, 0x1b87_3593)

    private static func littleEndian<Engine: SQLMurmurPrimitives>(_ word: String, _ engine: Engine) -> String {
        let byte = { (shift: Int) in "(\(engine.shiftedRight(word, shift)) & 255)" }
        return "(\(engine.shiftedLeft("(\(word) & 255)", 24)) | \(engine.shiftedLeft(byte(8), 16)) | \(engine.shiftedLeft(byte(16), 8)) | \(engine.shiftedRight(word, 24)))"
    }

    private static func rotated<Engine: SQLMurmurPrimitives>(_ x: String, _ bits: Int, _ engine: Engine) -> String {
        "((\(engine.shiftedLeft(x, bits)) | \(engine.shiftedRight(x, 32 - bits))) & \(mask))"
    }
}
