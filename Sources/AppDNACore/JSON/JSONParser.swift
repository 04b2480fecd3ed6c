/// The iterative RFC 8259 parser that fills a tape. An explicit stack of open containers
/// replaces recursion, so nesting depth is bounded by `maxDepth`, never by the thread's stack.
/// The hot paths work on a raw pointer: no per-byte bounds checks, no String allocation.
struct JSONParser {
    /// The bytes, and the scanning that only reads them.
    var input: JSONInput
    @inline(__always) var base: UnsafePointer<UInt8> { input.base }
    @inline(__always) var end: Int { input.end }
    /// The scalar parts of the `JSONParseOptions`, held apart: the options carry an array
    /// (`unreadKeys`), and reading a field of them in the hot loop retained and released it.
    let maxDepth: Int
    let keepChildrenAboveDepth: Int
    let unreadKeysFromDepth: Int
    let duplicateKeys: JSONParseOptions.DuplicateKeyPolicy
    var tape: JSONTapeBuilder
    /// Where the parse publishes what it has finished, for a reader reading the tape meanwhile.
    let progress: (any JSONParseObserver)?
    /// The tape count from which the next close near the top publishes (never without `progress`).
    var nextPublication = Int.max
    /// The deepest close that may publish: no container open around it can drop its children.
    let publishingDepth: Int

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
    var frames = JSONParserStack<Frame>(capacity: 32)
    /// A key of an open object, with a fingerprint so most unequal keys are told apart without
    /// touching their bytes again.
    struct KeyEntry {
        var node: Int32
        var length: Int32
        var fingerprint: UInt64
    }
    /// The keys of every open object that is still small, innermost last.
    var keys = JSONParserStack<KeyEntry>(capacity: 64)
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
    /// Bit `min(length, 63)` set for the length of each of `unreadKeys`: most closing
    /// containers are told apart from them by their key's length alone.
    let unreadKeyLengths: UInt64

    init(base: UnsafePointer<UInt8>, count: Int, contentStart: Int, options: JSONParseOptions, progress: (any JSONParseObserver)? = nil) {
        unreadKeys = options.unreadKeys.map { Array($0.utf8) }
        unreadKeyLengths = unreadKeys.reduce(0) { $0 | 1 << UInt64(min($1.count, 63)) }
        input = JSONInput(base: base, end: count, contentStart: contentStart)
        maxDepth = options.maxDepth
        keepChildrenAboveDepth = options.keepChildrenAboveDepth
        unreadKeysFromDepth = options.unreadKeysFromDepth
        duplicateKeys = options.duplicateKeys
        self.progress = progress
        // An open container drops its children when it closes at `keepChildrenAboveDepth` (or
        // as an unread key's value from `unreadKeysFromDepth`): a close at depth d publishes
        // only if the containers around it, at depths below d, never do.
        publishingDepth = min(JSONOpenContainers.deepestReportingClose, options.keepChildrenAboveDepth, options.unreadKeysFromDepth)
        if let progress, let reserved = JSONTapeBuilder(reservingFor: count) {
            tape = reserved
            progress.started(tape: reserved.base, capacity: reserved.capacity)
            nextPublication = JSONOpenContainers.nodesBetweenReports
        } else {
            // Without the address space for a tape that never moves, readers get nothing.
            progress?.failed()
            // A guess at the node count so typical documents never regrow; RSS only counts the
            // pages actually written.
            tape = JSONTapeBuilder(estimatedNodes: options.tapeNodes ?? count / 8 + 16)
        }
    }

    /// Makes the parser ready for another input (no byte-order mark handling), keeping the
    /// tape's and the stacks' memory: parsing many small documents (queue lines) one after
    /// another then allocates nothing.
    mutating func reset(base: UnsafePointer<UInt8>, count: Int) {
        input = JSONInput(base: base, end: count, contentStart: 0)
        tape.reset()
        frames.removeAll()
        keys.removeAll()
        tables.removeAll(keepingCapacity: true)
        duplicates.removeAll(keepingCapacity: true)
        longIntegerCount = 0
    }

    /// Frees the stacks (and the tape unless `finish()` handed it over): call it once the
    /// parser is no longer needed.
    func deallocate(keepingTape: Bool) {
        frames.deallocate()
        keys.deallocate()
        if !keepingTape { tape.discard() }
    }

    // MARK: - Driver

    mutating func parse() throws(JSONSyntaxError) {
        var p = input.skipWhitespace(input.contentStart)
        if p == end { throw input.fail(.emptyInput, at: input.contentStart) }
        var context = ValueContext.top
        valueLoop: while true {
            guard p < end else { throw endOfInput(expected: context.expected) }
            let c = base[p]
            switch c {
            case UInt8(ascii: "\""):
                let (stop, escaped) = try input.scanString(p)
                tape.append(kind: .string, flags: escaped ? JSONTapeFlag.escaped : 0,
                            tag: JSONTapeNode.tag(base, from: p + 1, to: stop - 1), start: p, end: stop)
                p = stop
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                let scan = JSONNumberGrammar.scan(base, from: p, limit: end)
                if let problem = scan.problem {
                    if scan.end == end && problem != .leadingZero {
                        throw endOfInput(expected: "a digit")
                    }
                    if base[scan.end] >= 0x80 && input.decodeScalar(at: scan.end) == nil { throw input.invalidUTF8(at: scan.end) }
                    throw input.fail(.invalidNumber(problem.text), at: scan.end)
                }
                tape.append(kind: .number, flags: scan.isInteger ? 0 : JSONTapeFlag.nonInteger, start: p, end: scan.end)
                if scan.isInteger && scan.end - p >= 16 { longIntegerCount += 1 }
                p = scan.end
            case UInt8(ascii: "{"):
                try open(at: p, isObject: true)
                p = input.skipWhitespace(p + 1)
                guard p < end else { throw endOfInput(expected: "a string key or '}'") }
                if base[p] == UInt8(ascii: "}") {
                    closeContainer(end: p + 1)
                    p += 1
                } else if base[p] == UInt8(ascii: "\"") {
                    p = try parseKey(p)
                    context = .afterColon
                    continue valueLoop
                } else {
                    throw input.unexpected(at: p, expected: "a string key or '}'")
                }
            case UInt8(ascii: "["):
                try open(at: p, isObject: false)
                p = input.skipWhitespace(p + 1)
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
                throw input.unexpected(at: p, expected: context.expected)
            }

            // A value just ended: close containers until one continues or the document ends.
            while true {
                guard !frames.isEmpty else {
                    p = input.skipWhitespace(p)
                    if p != end { throw input.trailing(at: p) }
                    return
                }
                p = input.skipWhitespace(p)
                if frames.topPointer.pointee.isObject {
                    guard p < end else { throw endOfInput(expected: "',' or '}' after an object member") }
                    let c = base[p]
                    if c == UInt8(ascii: ",") {
                        p = input.skipWhitespace(p + 1)
                        guard p < end else { throw endOfInput(expected: "a string key after ','") }
                        guard base[p] == UInt8(ascii: "\"") else { throw input.unexpected(at: p, expected: "a string key after ','") }
                        p = try parseKey(p)
                        context = .afterColon
                        continue valueLoop
                    }
                    guard c == UInt8(ascii: "}") else { throw input.unexpected(at: p, expected: "',' or '}' after an object member") }
                } else {
                    guard p < end else { throw endOfInput(expected: "',' or ']' after an array element") }
                    let c = base[p]
                    if c == UInt8(ascii: ",") {
                        p = input.skipWhitespace(p + 1)
                        context = .afterComma
                        continue valueLoop
                    }
                    guard c == UInt8(ascii: "]") else { throw input.unexpected(at: p, expected: "',' or ']' after an array element") }
                }
                closeContainer(end: p + 1)
                p += 1
            }
        }
    }

    // MARK: - Containers

    @inline(__always)
    mutating func open(at p: Int, isObject: Bool) throws(JSONSyntaxError) {
        if frames.count >= maxDepth { throw input.fail(.tooDeep(limit: maxDepth), at: p) }
        frames.push(Frame(node: Int32(truncatingIfNeeded: tape.count), isObject: isObject, hasTable: false,
                            keyBase: Int32(truncatingIfNeeded: keys.count), reportedAtOpen: reportedCount))
        tape.append(kind: isObject ? .object : .array, flags: 0, start: p, end: p + 1)
    }

    @inline(__always)
    mutating func closeContainer(end: Int) {
        // The frame stays readable after it is dropped: nothing is pushed before it is last read.
        let frame = frames.topPointer
        let node = Int(frame.pointee.node)
        frames.truncate(to: frames.count - 1)
        if (frames.count >= keepChildrenAboveDepth || isUnreadKeyValue(node: node))
            && frame.pointee.reportedAtOpen == reportedCount {
            tape.dropChildren(of: node, end: end)
        } else {
            tape.close(node, end: end)
        }
        if frame.pointee.isObject {
            keys.truncate(to: Int(frame.pointee.keyBase))
            if frame.pointee.hasTable { tables.removeLast() }
        }
        if tape.count >= nextPublication { publishProgress() }
    }

    /// Tells `progress` how far the tape is final, if this close is near enough the top.
    @inline(never)
    mutating func publishProgress() {
        guard let progress, frames.count <= publishingDepth else { return }
        var open = JSONOpenContainers()
        for depth in 0..<frames.count { open.append(node: frames[depth].node, isObject: frames[depth].isObject) }
        progress.publish(count: tape.count, open: open)
        nextPublication = tape.count + JSONOpenContainers.nodesBetweenReports
    }

    /// Whether the container at tape index `node` (just closed) is an object member named in
    /// `options.unreadKeys`, at `options.unreadKeysFromDepth` or deeper.
    @inline(__always)
    func isUnreadKeyValue(node: Int) -> Bool {
        guard frames.count >= unreadKeysFromDepth, frames.topPointer.pointee.isObject else { return false }
        let key = tape[node - 1]
        guard key.flags & JSONTapeFlag.escaped == 0 else { return false }
        let start = Int(key.start) + 1, length = Int(key.end) - 1 - start
        guard unreadKeyLengths & 1 << UInt64(min(length, 63)) != 0 else { return false }
        for name in unreadKeys where name.count == length {
            if name.withUnsafeBufferPointer({ RawMemory.compare($0.baseAddress!, base + start, count: length) == 0 }) { return true }
        }
        return false
    }

    /// Parses `"key"` and the colon after it; returns the position of the value.
    @inline(__always)
    mutating func parseKey(_ q: Int) throws(JSONSyntaxError) -> Int {
        let (stop, escaped) = try input.scanString(q)
        let keyIndex = tape.count
        tape.append(kind: .string, flags: escaped ? JSONTapeFlag.escaped : 0,
                    tag: JSONTapeNode.tag(base, from: q + 1, to: stop - 1), start: q, end: stop)
        try checkDuplicate(keyIndex, escaped: escaped)
        var p = input.skipWhitespace(stop)
        guard p < end else { throw endOfInput(expected: "':' after an object key") }
        guard base[p] == UInt8(ascii: ":") else { throw input.unexpected(at: p, expected: "':' after an object key") }
        p = input.skipWhitespace(p + 1)
        return p
    }

    // MARK: - Scalars

    mutating func literal(_ p: Int, _ word: StaticString, kind: JSONKind, flags: UInt8) throws(JSONSyntaxError) -> Int {
        let n = word.utf8CodeUnitCount
        let text = word.utf8Start
        for k in 1..<n {
            guard p + k < end else {
                throw endOfInput(expected: "'\(word)'")
            }
            if base[p + k] != text[k] { throw input.unexpected(at: p + k, expected: "'\(word)'") }
        }
        tape.append(kind: kind, flags: flags, start: p, end: p + n)
        return p + n
    }

    // MARK: - Duplicate keys

    /// Checks the key just appended at `keyIndex` against the earlier keys of its object.
    /// Kept small enough to inline into `parseKey`: the common case (a small object whose new
    /// key's fingerprint bit is fresh) is a few loads and stores; comparisons, the switch to a
    /// hash table and the table itself are out of line.
    @inline(__always)
    mutating func checkDuplicate(_ keyIndex: Int, escaped: Bool) throws(JSONSyntaxError) {
        let frame = frames.topPointer
        if frame.pointee.hasTable { return try checkDuplicateInTable(keyIndex) }
        let entry = keyEntry(keyIndex)
        let bit: UInt64 = 1 << ((entry.fingerprint &* 0x9E37_79B9_7F4A_7C15) >> 58)
        let mayRepeat = escaped || frame.pointee.escapedKeys || frame.pointee.keyMask & bit != 0
        frame.pointee.keyMask |= bit
        if escaped { frame.pointee.escapedKeys = true }
        let keyBase = Int(frame.pointee.keyBase)
        if mayRepeat, let first = earlierEqualKey(entry, escaped: escaped, from: keyBase) {
            return try duplicate(first: first, second: keyIndex)
        }
        if keys.count - keyBase < JSONParser.linearKeyLimit {
            keys.push(entry)
            return
        }
        moveKeysToTable(from: keyBase)
        try checkDuplicateInTable(keyIndex)
    }

    /// The tape index of an earlier key of the innermost small object (its keys start at
    /// `keyBase` in `keys`) equal to `entry`'s, if there is one.
    @inline(never)
    func earlierEqualKey(_ entry: KeyEntry, escaped: Bool, from keyBase: Int) -> Int? {
        for j in keyBase..<keys.count {
            let other = keys[j]
            // Unescaped keys with different lengths or fingerprints cannot be equal.
            if escaped || (other.length == entry.length && other.fingerprint == entry.fingerprint)
                || tape[Int(other.node)].flags & JSONTapeFlag.escaped != 0 {
                if keysEqual(Int(other.node), Int(entry.node)) { return Int(other.node) }
            }
        }
        return nil
    }

    /// Too many keys to keep comparing one by one: moves the innermost object's keys into a
    /// hash table.
    @inline(never)
    mutating func moveKeysToTable(from keyBase: Int) {
        var table = JSONKeyTable(expected: 64)
        for k in keyBase..<keys.count { table.insertNew(hash: keyHash(Int(keys[k].node)), node: keys[k].node) }
        keys.truncate(to: keyBase)
        tables.append(table)
        frames.topPointer.pointee.hasTable = true
    }

    @inline(never)
    mutating func checkDuplicateInTable(_ keyIndex: Int) throws(JSONSyntaxError) {
        let hash = keyHash(keyIndex)
        let t = tables.count - 1
        var slot = tables[t].firstSlot(hash)
        while true {
            guard let occupant = tables[t].node(at: slot) else {
                tables[t].insert(at: slot, hash: hash, node: Int32(truncatingIfNeeded: keyIndex))
                return
            }
            if tables[t].hash(at: slot) == hash && keysEqual(Int(occupant), keyIndex) {
                try duplicate(first: Int(occupant), second: keyIndex)
                return
            }
            slot = tables[t].nextSlot(slot)
        }
    }

    @inline(never)
    mutating func duplicate(first: Int, second: Int) throws(JSONSyntaxError) {
        switch duplicateKeys {
        case .reject:
            let key = decodedKey(second)
            throw input.fail(.duplicateKey(key: key, firstAt: input.locate(Int(tape[first].start))), at: Int(tape[second].start))
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

    var innermostOpen: JSONSyntaxError.OpenConstruct? {
        guard !frames.isEmpty else { return nil }
        let top = frames.top
        let at = input.locate(Int(tape[Int(top.node)].start))
        return top.isObject ? .object(at) : .array(at)
    }

    /// The end of the input where `expected` was, naming the innermost open container.
    /// `mutating` though it changes nothing: called from the parse loop, a non-mutating method
    /// made Swift copy the whole parser first (see `JSONInput`).
    @inline(never)
    mutating func endOfInput(expected: String) -> JSONSyntaxError {
        input.fail(.unexpectedEndOfInput(expected: expected, open: innermostOpen), at: end)
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
