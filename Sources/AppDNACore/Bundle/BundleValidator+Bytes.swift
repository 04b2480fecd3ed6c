/// Tests the rules make straight on a string node's bytes, without making a `String`: they run
/// per experiment, variant, platform or country of a big bundle, where a `String` each cost
/// the validator a good part of its time.
extension BundleValidator {
    /// Whether `node` is written exactly as one of the statuses, byte for byte (an all-ASCII
    /// word: no other spelling is canonically equivalent, so this agrees with the Set lookup).
    static func isKnownStatus(_ node: JSONNode) -> Bool {
        rawUnescaped(node) { raw in
            switch raw.count {
            case 7: return JSONNode.isKey(raw, "running")
            case 6: return JSONNode.isKey(raw, "paused")
            case 9: return JSONNode.isKey(raw, "completed")
            default: return false
            }
        }
    }

    /// Whether a string is written without escapes and holds a printable ASCII character: then
    /// it is not blank (no such character is white space), known without making a String.
    static func hasPrintableASCII(_ node: JSONNode) -> Bool {
        rawUnescaped(node) { raw in raw.contains { $0 > 0x20 && $0 < 0x7F } }
    }

    /// Whether a string is written without escapes, upper-case letters or non-ASCII bytes (so
    /// it is its own lower case, without making a String: this runs per platform name).
    static func isPlainLowercase(_ node: JSONNode) -> Bool {
        rawUnescaped(node) { raw in !raw.contains { $0 >= 0x80 || ($0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z")) } }
    }

    /// Whether a string is written as digit runs of 1 to 18 digits joined by single dots, with
    /// no escape: a version `Targeting.versionParts` reads, found without making a String (this
    /// runs per experiment). Anything else takes the full check.
    static func isPlainVersion(_ node: JSONNode) -> Bool {
        rawUnescaped(node) { raw in
            var digits = 0
            for byte in raw {
                if byte == UInt8(ascii: ".") {
                    guard digits > 0 else { return false }
                    digits = 0
                } else if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") && digits < 18 {
                    digits += 1
                } else {
                    return false
                }
            }
            return digits > 0
        }
    }

    /// `test` of a string node's bytes between its quotes; false for anything else, or a
    /// string written with escapes.
    static func rawUnescaped(_ node: JSONNode, _ test: (UnsafeBufferPointer<UInt8>) -> Bool) -> Bool {
        let n = node.node
        guard n.kind == JSONKind.string.rawValue, n.flags & JSONTapeFlag.escaped == 0 else { return false }
        return node.document.withBytes { bytes in test(UnsafeBufferPointer(rebasing: bytes[(Int(n.start) + 1)..<(Int(n.end) - 1)])) }
    }

    /// Stores `value` at `index` of `list`, which holds at least `index` values (the rest are
    /// left from an earlier experiment: writing over them keeps the list's storage).
    @inline(__always)
    static func put<T>(_ value: T, at index: Int, in list: inout [T]) {
        if index < list.count { list[index] = value } else { list.append(value) }
    }

    /// Whether a string node is `""` (written with or without escapes).
    static func isEmptyString(_ node: JSONNode) -> Bool {
        let n = node.node
        return n.end - n.start == 2
    }

    /// The unescaped bytes of the string at tape index `index`.
    func stringBytes(_ index: Int) -> [UInt8] {
        let n = document.tape[index]
        return document.withBytes { bytes in
            var out: [UInt8] = []
            JSONStringDecoding.appendUnescaped(bytes, from: Int(n.start) + 1, to: Int(n.end) - 1, into: &out)
            return out
        }
    }

    /// The variant whose id is the same bytes as `idNode`'s, among the first `count` in
    /// `scratchSeenIDs`, or in `dictionary` once that is in use.
    func firstEarlierVariant(withIDOf idNode: JSONNode, among count: Int, dictionary: [[UInt8]: Int]) -> Int? {
        if !dictionary.isEmpty { return dictionary[stringBytes(idNode.index)] }
        let n = idNode.node
        for entry in scratchSeenIDs[..<count] {
            let other = document.tape[entry.node]
            if (n.flags | other.flags) & JSONTapeFlag.escaped != 0 {
                if stringBytes(idNode.index) == stringBytes(entry.node) { return entry.variant }
                continue
            }
            guard n.end - n.start == other.end - other.start, n.tag == other.tag else { continue }
            let same = document.withBytes { bytes in
                let a = bytes.baseAddress! + Int(n.start), b = bytes.baseAddress! + Int(other.start)
                for k in 0..<Int(n.end - n.start) where a[k] != b[k] { return false }
                return true
            }
            if same { return entry.variant }
        }
        return nil
    }

    /// Whether a string is written without escapes and only ASCII bytes.
    static func isPlainASCII(_ node: JSONNode) -> Bool {
        rawUnescaped(node) { raw in !raw.contains { $0 >= 0x80 } }
    }

    /// Whether an id has a byte beyond ASCII (only such ids can have look-alikes).
    @inline(__always)
    static func hasNonASCII(_ text: String) -> Bool {
        text.utf8.contains { $0 >= 0x80 }
    }
}
