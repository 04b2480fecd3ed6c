/// The integer and list operations MurmurHash3 needs, for an engine that has no such hash
/// built in and spells it out in plain SQL (nothing to deploy on the cluster). An engine
/// conforming to this gives every primitive (none has a default) and answers
/// `murmurHash3(_:in:)` with `SpelledMurmurHash3.hash(_:engine:in:)`.
public protocol SQLMurmurPrimitives: SQLEngine {
    /// The UTF-8 bytes of the text expression `text`, as the engine's byte-string type.
    func utf8Bytes(of text: String) -> String
    /// How many bytes the UTF-8 form of the text expression `text` has.
    func utf8Count(of text: String) -> String
    /// A byte-string literal of `bytes` (any bytes: a prefix may end inside a UTF-8 sequence).
    func bytesLiteral(_ bytes: [UInt8]) -> String
    /// The byte strings `parts`, one after the other.
    func concatenated(_ parts: [String]) -> String
    /// The form the words of the byte string `padded` are read from (the bytes themselves,
    /// or their hex form), bound once per row. `padded` holds the hashed bytes and three zero
    /// bytes.
    func wordSource(ofPadded padded: String) -> String
    /// The big-endian 32-bit words of a bound `wordSource`, four bytes at a time: its whole
    /// blocks, then the last `count % 4` bytes padded with zero bytes to a word (`count` is
    /// how many bytes are hashed, also bound). The list may stop after the whole blocks when
    /// `count % 4` is 0. Reading the words must take time linear in the length.
    func words(_ source: String, count: String) -> String
    /// The `index`th element (1-based, an SQL expression) of `list`, or 0 past its end.
    func element(_ list: String, _ index: String) -> String
    /// The first `count` elements of `list`.
    func prefix(_ list: String, _ count: String) -> String
    /// `list` with `body` (over the element named `element`) applied to each element.
    func mapped(_ list: String, _ element: String, _ body: String) -> String
    /// `list` folded from `initial`: `body` over the accumulator `accumulator` and the element `element`.
    func folded(_ list: String, from initial: String, _ accumulator: String, _ element: String, _ body: String) -> String
    /// ⌊a / b⌋ for non-negative integers.
    func dividedDown(_ a: String, _ b: Int) -> String
    /// (x × c) mod 2^32 for 0 ≤ x < 2^32, never overflowing the engine's integers (ANSI
    /// engines fail on overflow instead of wrapping). May read `x` more than once.
    func multipliedMod32(_ x: String, _ c: UInt32) -> String
    func xor(_ a: String, _ b: String) -> String
    func shiftedLeft(_ a: String, _ bits: Int) -> String
    func shiftedRight(_ a: String, _ bits: Int) -> String
}

/// MurmurHash3_x86_32 (seed 0) spelled in SQL over `SQLMurmurPrimitives`, as
/// `MurmurHash3.x86_32` computes it. The bundle's fixed prefix is hashed here, when the query
/// is written (its whole blocks become the starting state), so a row hashes only its own
/// bytes. Per row, in five bound layers shared by every input hashed at once: the bytes and
/// their count; the words, each read little-endian and mixed with the engine's list
/// functions; the blocks folded into the state with the tail and the length; two steps of
/// the finaliser. All values stay below 2^49 in signed 64-bit integers.
public enum SpelledMurmurHash3 {
    private static let mask = "4294967295"
    private static let (c1, c2) = (MurmurHash3.Constants.c1, MurmurHash3.Constants.c2)

    public static func hash<Engine: SQLMurmurPrimitives>(_ inputs: [HashedBytes], engine: Engine, in rows: inout SQLRelation) -> [String] {
        guard !inputs.isEmpty else { return [] }
        let plans = inputs.map { input -> (state: UInt32, folded: Int, parts: [String], fixedCount: Int) in
            let folded = input.prefix.count & ~3
            let rest = Array(input.prefix[folded...])
            var parts = [engine.utf8Bytes(of: input.text)]
            if !rest.isEmpty { parts.insert(engine.bytesLiteral(rest), at: 0) }
            parts.append(engine.bytesLiteral(input.suffix + [0, 0, 0]))
            let state = input.prefix.withUnsafeBytes { MurmurHash3.state(afterBlocksOf: $0) }
            return (state, folded, parts, rest.count + input.suffix.count)
        }
        // The bytes (after the folded prefix, padded) as the words are read, and how many there are.
        let bound = rows.bind(zip(plans, inputs).flatMap { plan, input in
            [engine.wordSource(ofPadded: engine.concatenated(plan.parts)), "(\(engine.utf8Count(of: input.text)) + \(plan.fixedCount))"]
        })
        let (padded, count) = (stride(from: 0, to: bound.count, by: 2).map { bound[$0] }, stride(from: 1, to: bound.count, by: 2).map { bound[$0] })
        // Every word read little-endian and mixed (the last one is the tail's).
        let key = "appdna_k"  // a lambda parameter: it shadows any column so named
        let keys = rows.bind(zip(padded, count).map { padded, count in
            var list = engine.mapped(engine.words(padded, count: count), key, littleEndian(key, engine))
            for step in [{ engine.multipliedMod32($0, c1) }, { rotated($0, 15, engine) }, { engine.multipliedMod32($0, c2) }] as [(String) -> String] {
                list = engine.mapped(list, key, step(key))
            }
            return list
        })
        // The whole blocks folded into the state, then the tail key and the length.
        let h = "appdna_h"
        let step = "((\(engine.multipliedMod32(rotated(engine.xor(h, key), 13, engine), 5)) + \(0xe654_6b64)) & \(mask))"
        var hashes = rows.bind((0..<inputs.count).map { index in
            let whole = engine.dividedDown(count[index], 4)
            let folded = engine.folded(engine.prefix(keys[index], whole), from: String(plans[index].state), h, key, step)
            return engine.xor(engine.xor(folded, engine.element(keys[index], "\(whole) + 1")), "(\(count[index]) + \(plans[index].folded))")
        })
        // The finaliser: each xor-shift is cheap enough to write twice, so two layers.
        hashes = rows.bind(hashes.map { engine.multipliedMod32(xorShift($0, 16, engine), MurmurHash3.Constants.f1) })
        hashes = rows.bind(hashes.map { engine.multipliedMod32(xorShift($0, 13, engine), MurmurHash3.Constants.f2) })
        return hashes.map { xorShift($0, 16, engine) }
    }

    private static func xorShift<Engine: SQLMurmurPrimitives>(_ x: String, _ bits: Int, _ engine: Engine) -> String {
        engine.xor(x, engine.shiftedRight(x, bits))
    }

    private static func littleEndian<Engine: SQLMurmurPrimitives>(_ word: String, _ engine: Engine) -> String {
        let byte = { (shift: Int) in "(\(engine.shiftedRight(word, shift)) & 255)" }
        return "(\(engine.shiftedLeft("(\(word) & 255)", 24)) | \(engine.shiftedLeft(byte(8), 16)) | \(engine.shiftedLeft(byte(16), 8)) | \(engine.shiftedRight(word, 24)))"
    }

    private static func rotated<Engine: SQLMurmurPrimitives>(_ x: String, _ bits: Int, _ engine: Engine) -> String {
        "((\(engine.shiftedLeft(x, bits)) | \(engine.shiftedRight(x, 32 - bits))) & \(mask))"
    }
}
