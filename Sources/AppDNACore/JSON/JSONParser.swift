/// The iterative RFC 8259 parser that fills a tape. An explicit stack of open containers
/// replaces recursion, so nesting depth is bounded by `maxDepth`, never by the thread's stack.
/// The hot paths work on a raw pointer: no per-byte bounds checks, no String allocation.
struct JSONParser {
    var base: UnsafePointer<UInt8>
    var end: Int
    /// First byte after a byte-order mark, if there was one.
    var contentStart: Int
    /// The scalar parts of the `JSONParseOptions`, held apart: the options carry an array
    /// (`unreadKeys`), and reading a field of them in the hot loop retained and released it.
    let maxDepth: Int
    let keepChildrenAboveDepth: Int
    let unreadKeysFromDepth: Int
    let duplicateKeys: JSONParseOptions.DuplicateKeyPolicy
    var tape: JSONTapeBuilder

    /// One open array or object.
    struct Frame {
        var node: Int32
        var isObject: Bool
        /// Whether this object's keys moved from the linear list into a hash table in `tables`.
        var hasTable: Bool
        /// Where this object's keys start in `keys`.
        var keyBase: Int32
        /// One bit per key fingerprint seen (of 64): a key whose bit is clear repeats no
        /// earlier unescaped key, so most keys skip the comparisons.
        var keyMask: UInt64 = 0
        /// Whether a key so far had escapes (then every key is compared, after unescaping).
        var escapedKeys = false
        /// `reportedCount` when the container opened: if it is unchanged at the close, nothing
        /// inside needs its nodes and a deep container can drop its children.
        var reportedAtOpen: Int32 = 0
    }
    var frames: [Frame] = []
    /// A key of an open object, with a fingerprint so most unequal keys are told apart without
    /// touching their bytes again.
    struct KeyEntry {
        var node: Int32
        var length: Int32
        var fingerprint: UInt64
    }
    /// The keys of every open object that is still small, innermost last.
    var keys: [KeyEntry] = []
    /// Hash tables of the open objects with many keys, innermost last.
    var tables: [JSONKeyTable] = []
    /// Duplicates found under `.record`: tape indexes of the object, the first and the repeated key.
    var duplicates: [(object: Int, first: Int, second: Int)] = []
    /// Integer tokens of 16 or more characters: only these can lie beyond 2^53, so checks for
    /// such integers can skip the walk over the tape when there are none.
    var longIntegerCount = 0
    /// Grows whenever something a whole-document check reports is found (see `Frame`).
    var reportedCount: Int32 { Int32(truncatingIfNeeded: duplicates.count &+ longIntegerCount) }

    /// Objects up to this many keys check duplicates by comparing with each earlier key; bigger
    /// ones switch to a hash table so a 100,000-key object stays linear.
    static let linearKeyLimit = 16

    /// What the value about to be parsed follows, for error messages.
    enum ValueContext { case top, arrayStart, afterComma, afterColon }

    /// `options.unreadKeys` as bytes.
    let unreadKeys: [[UInt8]]

    init(base: UnsafePointer<UInt8>, count: Int, contentStart: Int, options: JSONParseOptions) {
        unreadKeys = options.unreadKeys.map { Array($0.utf8) }
        self.base = base
        self.end = count
        self.contentStart = contentStart
        maxDepth = options.maxDepth
        keepChildrenAboveDepth = options.keepChildrenAboveDepth
        unreadKeysFromDepth = options.unreadKeysFromDepth
        duplicateKeys = options.duplicateKeys
        // A guess at the node count so typical documents never regrow; RSS only counts the
        // pages actually written.
        tape = JSONTapeBuilder(estimatedNodes: count / 8 + 16)
    }

    /// Makes the parser ready for another input (no byte-order mark handling), keeping the
    /// tape's and the stacks' memory: parsing many small documents (queue lines) one after
    /// another then allocates nothing.
    mutating func reset(base: UnsafePointer<UInt8>, count: Int) {
        self.base = base
        self.end = count
        self.contentStart = 0
        tape.reset()
        frames.removeAll(keepingCapacity: true)
        keys.removeAll(keepingCapacity: true)
        tables.removeAll(keepingCapacity: true)
        duplicates.removeAll(keepingCapacity: true)
        longIntegerCount = 0
    }

    // MARK: - Driver

    mutating func parse() throws(JSONSyntaxError) {
        var p = skipWhitespace(contentStart)
        if p == end { throw fail(.emptyInput, at: contentStart) }
        var context = ValueContext.top
        valueLoop: while true {
            guard p < end else { throw endOfInput(expected: context.expected) }
            let c = base[p]
            switch c {
            case UInt8(ascii: "\""):
                let (stop, escaped) = try scanString(p)
                tape.append(kind: .string, flags: escaped ? JSONTapeFlag.escaped : 0,
                            tag: JSONTapeNode.tag(base, from: p + 1, to: stop - 1), start: p, end: stop)
                p = stop
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                let scan = JSONNumberGrammar.scan(base, from: p, limit: end)
                if let problem = scan.problem {
                    if scan.end == end && problem != .leadingZero {
                        throw fail(.unexpectedEndOfInput(expected: "a digit", open: innermostOpen), at: end)
                    }
                    if base[scan.end] >= 0x80 && decodeScalar(at: scan.end) == nil { throw invalidUTF8(at: scan.end) }
                    throw fail(.invalidNumber(problem.text), at: scan.end)
                }
                tape.append(kind: .number, flags: scan.isInteger ? 0 : JSONTapeFlag.nonInteger, start: p, end: scan.end)
                if scan.isInteger && scan.end - p >= 16 { longIntegerCount += 1 }
                p = scan.end
            case UInt8(ascii: "{"):
                try open(at: p, isObject: true)
                p = skipWhitespace(p + 1)
                guard p < end else { throw endOfInput(expected: "a string key or '}'") }
                if base[p] == UInt8(ascii: "}") {
                    closeContainer(end: p + 1)
                    p += 1
                } else if base[p] == UInt8(ascii: "\"") {
                    p = try parseKey(p)
                    context = .afterColon
                    continue valueLoop
                } else {
                    throw unexpected(at: p, expected: "a string key or '}'")
                }
            case UInt8(ascii: "["):
                try open(at: p, isObject: false)
                p = skipWhitespace(p + 1)
                guard p < end else { throw endOfInput(expected: "a value or ']'") }
                if base[p] == UInt8(ascii: "]") {
                    closeContainer(end: p + 1)
                    p += 1
                } else {
                    context = .arrayStart
                    continue valueLoop
                }
            case UInt8(ascii: "t"):
                p = try literal(p, "true", kind: .bool, flags: JSONTapeFlag.isTrue)
            case UInt8(ascii: "f"):
                p = try literal(p, "false", kind: .bool, flags: 0)
            case UInt8(ascii: "n"):
                p = try literal(p, "null", kind: .null, flags: 0)
            default:
                throw unexpected(at: p, expected: context.expected)
            }

            // A value just ended: close containers until one continues or the document ends.
            while true {
                guard let top = frames.last else {
                    p = skipWhitespace(p)
                    if p != end { throw trailing(at: p) }
                    return
                }
                p = skipWhitespace(p)
                if top.isObject {
                    guard p < end else { throw endOfInput(expected: "',' or '}' after an object member") }
                    let c = base[p]
                    if c == UInt8(ascii: ",") {
                        p = skipWhitespace(p + 1)
                        guard p < end else { throw endOfInput(expected: "a string key after ','") }
                        guard base[p] == UInt8(ascii: "\"") else { throw unexpected(at: p, expected: "a string key after ','") }
                        p = try parseKey(p)
                        context = .afterColon
                        continue valueLoop
                    }
                    guard c == UInt8(ascii: "}") else { throw unexpected(at: p, expected: "',' or '}' after an object member") }
                } else {
                    guard p < end else { throw endOfInput(expected: "',' or ']' after an array element") }
                    let c = base[p]
                    if c == UInt8(ascii: ",") {
                        p = skipWhitespace(p + 1)
                        context = .afterComma
                        continue valueLoop
                    }
                    guard c == UInt8(ascii: "]") else { throw unexpected(at: p, expected: "',' or ']' after an array element") }
                }
                closeContainer(end: p + 1)
                p += 1
            }
        }
    }

    // MARK: - Containers

    @inline(__always)
    mutating func open(at p: Int, isObject: Bool) throws(JSONSyntaxError) {
        if frames.count >= maxDepth { throw fail(.tooDeep(limit: maxDepth), at: p) }
        frames.append(Frame(node: Int32(truncatingIfNeeded: tape.count), isObject: isObject, hasTable: false,
                            keyBase: Int32(truncatingIfNeeded: keys.count), reportedAtOpen: reportedCount))
        tape.append(kind: isObject ? .object : .array, flags: 0, start: p, end: p + 1)
    }

    @inline(__always)
    mutating func closeContainer(end: Int) {
        let frame = frames.removeLast()
        if (frames.count >= keepChildrenAboveDepth || isUnreadKeyValue(frame))
            && frame.reportedAtOpen == reportedCount {
            tape.dropChildren(of: Int(frame.node), end: end)
        } else {
            tape.close(Int(frame.node), end: end)
        }
        if frame.isObject {
            let extra = keys.count - Int(frame.keyBase)
            if extra > 0 { keys.removeLast(extra) }
            if frame.hasTable { tables.removeLast() }
        }
    }

    /// Whether the container of `frame` (just closed) is an object member named in
    /// `options.unreadKeys`, at `options.unreadKeysFromDepth` or deeper.
    @inline(__always)
    func isUnreadKeyValue(_ frame: Frame) -> Bool {
        guard frames.count >= unreadKeysFromDepth, let parent = frames.last, parent.isObject else { return false }
        let key = tape[Int(frame.node) - 1]
        guard key.flags & JSONTapeFlag.escaped == 0 else { return false }
        let start = Int(key.start) + 1, length = Int(key.end) - 1 - start
        for name in unreadKeys where name.count == length {
            if name.withUnsafeBufferPointer({ RawMemory.compare($0.baseAddress!, base + start, count: length) == 0 }) { return true }
        }
        return false
    }

    /// Parses `"key"` and the colon after it; returns the position of the value.
    @inline(__always)
    mutating func parseKey(_ q: Int) throws(JSONSyntaxError) -> Int {
        let (stop, escaped) = try scanString(q)
        let keyIndex = tape.count
        tape.append(kind: .string, flags: escaped ? JSONTapeFlag.escaped : 0,
                    tag: JSONTapeNode.tag(base, from: q + 1, to: stop - 1), start: q, end: stop)
        try checkDuplicate(keyIndex)
        var p = skipWhitespace(stop)
        guard p < end else { throw endOfInput(expected: "':' after an object key") }
        guard base[p] == UInt8(ascii: ":") else { throw unexpected(at: p, expected: "':' after an object key") }
        p = skipWhitespace(p + 1)
        return p
    }

    // MARK: - Scalars

    @inline(__always)
    func skipWhitespace(_ start: Int) -> Int {
        var p = start
        while p < end {
            let c = base[p]
            // Space, \t, \n, \r: one compare rejects everything above space.
            guard c <= 0x20, c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 else { break }
            p += 1
            // Pretty-printed files indent with runs of spaces: skip them eight at a time.
            if c == 0x0A {
                while p + 8 <= end && UnsafeRawPointer(base).loadUnaligned(fromByteOffset: p, as: UInt64.self) == 0x2020_2020_2020_2020 {
                    p += 8
                }
            }
        }
        return p
    }

    mutating func literal(_ p: Int, _ word: StaticString, kind: JSONKind, flags: UInt8) throws(JSONSyntaxError) -> Int {
        let n = word.utf8CodeUnitCount
        let text = word.utf8Start
        for k in 1..<n {
            guard p + k < end else {
                throw fail(.unexpectedEndOfInput(expected: "'\(word)'", open: innermostOpen), at: end)
            }
            if base[p + k] != text[k] { throw unexpected(at: p + k, expected: "'\(word)'") }
        }
        tape.append(kind: kind, flags: flags, start: p, end: p + n)
        return p + n
    }

    /// Scans a string from its opening quote; returns the offset after the closing quote and
    /// whether it contains escapes. Validates UTF-8, escapes and the absence of raw controls.
    @inline(__always)
    func scanString(_ quote: Int) throws(JSONSyntaxError) -> (Int, Bool) {
        var p = quote + 1
        var escaped = false
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        let raw = UnsafeRawPointer(base)
        while true {
            // Eight bytes at a time while all are plain printable ASCII (no quote, backslash,
            // control or non-ASCII byte): the usual case for keys and values.
            while p + 8 <= end {
                let w = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: p, as: UInt64.self))
                let q = w ^ (ones &* 0x22)
                let b = w ^ (ones &* 0x5C)
                let special = ((q &- ones) & ~q) | ((b &- ones) & ~b) | ((w &- ones &* 0x20) & ~w) | w
                let flagged = special & highs
                if flagged != 0 {
                    // Go straight to the first special byte. Borrows only run upwards, so the
                    // lowest flagged byte is always a real one (a higher flag may be false).
                    p += flagged.trailingZeroBitCount >> 3
                    break
                }
                p += 8
            }
            guard p < end else { throw fail(.unexpectedEndOfInput(expected: "'\"'", open: .string(locate(quote))), at: end) }
            let c = base[p]
            if c == UInt8(ascii: "\"") { return (p + 1, escaped) }
            if c == UInt8(ascii: "\\") {
                escaped = true
                p = try scanEscape(p, quote: quote)
            } else if c < 0x20 {
                throw fail(.controlCharacterInString(c), at: p)
            } else if c < 0x80 {
                p += 1
            } else {
                p = try scanNonASCIIRun(p)
            }
        }
    }

    /// Validates a run of multi-byte UTF-8 sequences from the lead byte at `p`; returns the
    /// offset of the first ASCII byte after it. Text in one script ("日本語", "спасибо") is runs
    /// of two- and three-byte sequences: the common leads are checked here without a trip back
    /// through the string loop; the rarer ones (E0, ED, four bytes, errors) go to `scanUTF8`.
    @inline(__always)
    func scanNonASCIIRun(_ start: Int) throws(JSONSyntaxError) -> Int {
        var p = start
        while p < end {
            let lead = base[p]
            if lead < 0x80 { return p }
            if lead >= 0xC2 && lead <= 0xDF && p + 1 < end && base[p + 1] & 0xC0 == 0x80 {
                p += 2
            } else if lead >= 0xE1 && lead <= 0xEF && lead != 0xED && p + 2 < end
                        && base[p + 1] & 0xC0 == 0x80 && base[p + 2] & 0xC0 == 0x80 {
                p += 3
            } else {
                p = try scanUTF8(p)
            }
        }
        return p
    }

    /// Validates one escape at the backslash `p`; returns the offset after it.
    func scanEscape(_ p: Int, quote: Int) throws(JSONSyntaxError) -> Int {
        guard p + 1 < end else { throw fail(.unexpectedEndOfInput(expected: "'\"'", open: .string(locate(quote))), at: end) }
        switch base[p + 1] {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
             UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            return p + 2
        case UInt8(ascii: "u"):
            let unit = try hex4(p + 2, escape: p, quote: quote)
            if unit >= 0xDC00 && unit < 0xE000 {
                throw fail(.invalidEscape("lone low surrogate \(escapeText(p, 6))"), at: p)
            }
            guard unit >= 0xD800 && unit < 0xDC00 else { return p + 6 }
            // A high surrogate must be followed at once by an escaped low surrogate.
            let q = p + 6
            if q + 1 < end && base[q] == UInt8(ascii: "\\") && base[q + 1] == UInt8(ascii: "u") {
                let low = try hex4(q + 2, escape: q, quote: quote)
                if low >= 0xDC00 && low < 0xE000 { return q + 6 }
            } else if q >= end || (q + 1 >= end && base[q] == UInt8(ascii: "\\")) {
                throw fail(.unexpectedEndOfInput(expected: "'\"'", open: .string(locate(quote))), at: end)
            }
            throw fail(.invalidEscape("lone high surrogate \(escapeText(p, 6)) is not followed by a low surrogate"), at: p)
        default:
            guard let found = decodeScalar(at: p + 1) else { throw invalidUTF8(at: p + 1) }
            throw fail(.invalidEscape("'\\' followed by \(JSONSyntaxError.describe(found)) is not a JSON escape"), at: p)
        }
    }

    func hex4(_ at: Int, escape: Int, quote: Int) throws(JSONSyntaxError) -> UInt32 {
        var v: UInt32 = 0
        for k in 0..<4 {
            guard at + k < end else { throw fail(.unexpectedEndOfInput(expected: "'\"'", open: .string(locate(quote))), at: end) }
            guard let d = JSONStringDecoding.hexValue(base[at + k]) else {
                throw fail(.invalidEscape("'\\u' must be followed by four hexadecimal digits"), at: escape)
            }
            v = v << 4 | d
        }
        return v
    }

    func escapeText(_ p: Int, _ n: Int) -> String {
        String(decoding: UnsafeBufferPointer(start: base + p, count: min(n, end - p)), as: UTF8.self)
    }

    /// Validates the multi-byte UTF-8 sequence whose lead byte is at `p` (Unicode table 3-7:
    /// no overlong forms, no surrogates, nothing above U+10FFFF); returns the offset after it.
    @inline(__always)
    func scanUTF8(_ p: Int) throws(JSONSyntaxError) -> Int {
        let lead = base[p]
        let length: Int
        var low: UInt8 = 0x80
        var high: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; low = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; high = 0x9F
        case 0xF0: length = 4; low = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; high = 0x8F
        default: throw fail(.invalidUTF8(byte: lead), at: p)
        }
        // A sequence cut off by the end of input is reported at its lead byte.
        guard p + length <= end else { throw fail(.invalidUTF8(byte: lead), at: p) }
        // A byte that is no continuation byte at all means the sequence was cut short: that is
        // reported at the lead byte. A continuation byte outside the allowed range (overlong
        // form, surrogate, beyond U+10FFFF) is itself the error.
        let second = base[p + 1]
        guard second & 0xC0 == 0x80 else { throw fail(.invalidUTF8(byte: lead), at: p) }
        guard second >= low && second <= high else { throw fail(.invalidUTF8(byte: second), at: p + 1) }
        var k = 2
        while k < length {
            guard base[p + k] & 0xC0 == 0x80 else { throw fail(.invalidUTF8(byte: lead), at: p) }
            k += 1
        }
        return p + length
    }

    /// The scalar at `p` for an error message, or nil where the bytes are not valid UTF-8.
    func decodeScalar(at p: Int) -> Unicode.Scalar? {
        guard p < end else { return nil }
        let lead = base[p]
        if lead < 0x80 { return Unicode.Scalar(lead) }
        guard let stop = try? scanUTF8(p) else { return nil }
        var value = UInt32(lead) & (stop - p == 2 ? 0x1F : stop - p == 3 ? 0x0F : 0x07)
        for k in (p + 1)..<stop { value = value << 6 | UInt32(base[k] & 0x3F) }
        return Unicode.Scalar(value)
    }

    // MARK: - Duplicate keys

    mutating func checkDuplicate(_ keyIndex: Int) throws(JSONSyntaxError) {
        let f = frames.count - 1
        if !frames[f].hasTable {
            let keyBase = Int(frames[f].keyBase)
            let entry = keyEntry(keyIndex)
            let escaped = tape[keyIndex].flags & JSONTapeFlag.escaped != 0
            let bit: UInt64 = 1 << ((entry.fingerprint &* 0x9E37_79B9_7F4A_7C15) >> 58)
            let mayRepeat = escaped || frames[f].escapedKeys || frames[f].keyMask & bit != 0
            frames[f].keyMask |= bit
            if escaped { frames[f].escapedKeys = true }
            var j = mayRepeat ? keyBase : keys.count
            while j < keys.count {
                let other = keys[j]
                // Unescaped keys with different lengths or fingerprints cannot be equal.
                if escaped || (other.length == entry.length && other.fingerprint == entry.fingerprint)
                    || tape[Int(other.node)].flags & JSONTapeFlag.escaped != 0 {
                    if keysEqual(Int(other.node), keyIndex) {
                        try duplicate(first: Int(other.node), second: keyIndex)
                        return
                    }
                }
                j += 1
            }
            if keys.count - keyBase < JSONParser.linearKeyLimit {
                keys.append(entry)
                return
            }
            // Too many keys to keep comparing one by one: move them into a hash table.
            var table = JSONKeyTable(expected: 64)
            for k in keyBase..<keys.count { table.insertNew(hash: keyHash(Int(keys[k].node)), node: keys[k].node) }
            keys.removeLast(keys.count - keyBase)
            tables.append(table)
            frames[f].hasTable = true
        }
        let hash = keyHash(keyIndex)
        let t = tables.count - 1
        var slot = tables[t].firstSlot(hash)
        while true {
            let occupant = tables[t].nodes[slot]
            if occupant < 0 {
                tables[t].insert(at: slot, hash: hash, node: Int32(truncatingIfNeeded: keyIndex))
                return
            }
            if tables[t].hashes[slot] == hash && keysEqual(Int(occupant), keyIndex) {
                try duplicate(first: Int(occupant), second: keyIndex)
                return
            }
            slot = tables[t].nextSlot(slot)
        }
    }

    mutating func duplicate(first: Int, second: Int) throws(JSONSyntaxError) {
        switch duplicateKeys {
        case .reject:
            let key = decodedKey(second)
            throw fail(.duplicateKey(key: key, firstAt: locate(Int(tape[first].start))), at: Int(tape[second].start))
        case .record:
            duplicates.append((object: Int(frames[frames.count - 1].node), first: first, second: second))
        }
    }

    /// Length and first/last eight bytes of a key's raw text (quotes included, so the loads
    /// stay inside the token once it is at least eight bytes long).
    @inline(__always)
    func keyEntry(_ index: Int) -> KeyEntry {
        let node = tape[index]
        let start = Int(node.start), length = Int(node.end) - start
        var fingerprint: UInt64 = 0
        if length >= 8 {
            let raw = UnsafeRawPointer(base)
            fingerprint = raw.loadUnaligned(fromByteOffset: start, as: UInt64.self)
                ^ (raw.loadUnaligned(fromByteOffset: start + length - 8, as: UInt64.self) &* 31)
        } else {
            for k in 0..<length { fingerprint = fingerprint << 8 | UInt64(base[start + k]) }
        }
        return KeyEntry(node: Int32(truncatingIfNeeded: index), length: Int32(truncatingIfNeeded: length), fingerprint: fingerprint)
    }

    /// Keys are equal when their unescaped values are; raw bytes suffice unless one has escapes.
    func keysEqual(_ a: Int, _ b: Int) -> Bool {
        let x = tape[a], y = tape[b]
        if (x.flags | y.flags) & JSONTapeFlag.escaped == 0 {
            let n = Int(x.end - x.start)
            guard n == Int(y.end - y.start) else { return false }
            return RawMemory.compare(base + Int(x.start), base + Int(y.start), count: n) == 0
        }
        return keyBytes(a) == keyBytes(b)
    }

    func keyBytes(_ index: Int) -> [UInt8] {
        let node = tape[index]
        var out: [UInt8] = []
        JSONStringDecoding.appendUnescaped(UnsafeBufferPointer(start: base, count: end),
                                           from: Int(node.start) + 1, to: Int(node.end) - 1, into: &out)
        return out
    }

    func decodedKey(_ index: Int) -> String { String(decoding: keyBytes(index), as: UTF8.self) }

    /// FNV-1a over the key's value bytes (raw when unescaped, so no decoding on the fast path).
    func keyHash(_ index: Int) -> UInt32 {
        let node = tape[index]
        if node.flags & JSONTapeFlag.escaped != 0 {
            return keyBytes(index).withUnsafeBufferPointer { JSONKeyTable.hash($0) }
        }
        return JSONKeyTable.hash(UnsafeBufferPointer(start: base + Int(node.start) + 1, count: Int(node.end - node.start) - 2))
    }

    // MARK: - Errors

    func locate(_ offset: Int) -> SourceLocation {
        SourceLocation.scan(UnsafeBufferPointer(start: base, count: end), to: offset, contentStart: contentStart)
    }

    func fail(_ reason: JSONSyntaxError.Reason, at offset: Int) -> JSONSyntaxError {
        let at = locate(offset)
        return JSONSyntaxError(reason: reason, byteOffset: offset, line: at.line, column: at.column)
    }

    var innermostOpen: JSONSyntaxError.OpenConstruct? {
        guard let top = frames.last else { return nil }
        let at = locate(Int(tape[Int(top.node)].start))
        return top.isObject ? .object(at) : .array(at)
    }

    func endOfInput(expected: String) -> JSONSyntaxError {
        fail(.unexpectedEndOfInput(expected: expected, open: innermostOpen), at: end)
    }

    /// A character that does not fit; bytes that are not UTF-8 are reported as such.
    func unexpected(at p: Int, expected: String) -> JSONSyntaxError {
        guard let scalar = decodeScalar(at: p) else { return invalidUTF8(at: p) }
        return fail(.unexpectedCharacter(found: scalar, expected: expected), at: p)
    }

    func trailing(at p: Int) -> JSONSyntaxError {
        guard let scalar = decodeScalar(at: p) else { return invalidUTF8(at: p) }
        return fail(.trailingContent(found: scalar), at: p)
    }

    func invalidUTF8(at p: Int) -> JSONSyntaxError {
        do {
            _ = try scanUTF8(p)
        } catch {
            return error
        }
        return fail(.invalidUTF8(byte: base[p]), at: p)
    }
}

extension JSONParser.ValueContext {
    var expected: String {
        switch self {
        case .top: return "a value"
        case .arrayStart: return "a value or ']'"
        case .afterComma: return "a value after ','"
        case .afterColon: return "a value after ':'"
        }
    }
}
