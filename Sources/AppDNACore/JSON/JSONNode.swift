/// A handle to one value in a `JSONDocument`: the document plus a tape index. Copying it is
/// cheap; reading it decodes only what is asked for.
public struct JSONNode {
    public let document: JSONDocument
    /// Index of the node on the document's tape (0 is the root).
    public let index: Int

    init(document: JSONDocument, index: Int) {
        self.document = document
        self.index = index
    }

    @inline(__always) var node: JSONTapeNode { document.tape[index] }

    /// Index just past this value's subtree.
    var subtreeEnd: Int { Int(node.next) }

    public var kind: JSONKind { JSONKind(rawValue: node.kind)! }

    /// The bytes of the value in `document.bytes`, quotes and brackets included.
    public var byteRange: Range<Int> { Int(node.start)..<Int(node.end) }

    public var location: SourceLocation { document.location(ofByteOffset: Int(node.start)) }

    public var isNull: Bool { kind == .null }

    public var bool: Bool? {
        guard kind == .bool else { return nil }
        return node.flags & JSONTapeFlag.isTrue != 0
    }

    /// The unescaped value of a string.
    public var string: String? {
        let n = node
        guard n.kind == JSONKind.string.rawValue else { return nil }
        return document.withBytes {
            JSONStringDecoding.decode($0, from: Int(n.start) + 1, to: Int(n.end) - 1, escaped: n.flags & JSONTapeFlag.escaped != 0)
        }
    }

    /// A number exactly as written in the document.
    public var numberText: String? {
        let n = node
        guard n.kind == JSONKind.number.rawValue else { return nil }
        return document.withBytes {
            String(decoding: UnsafeBufferPointer(rebasing: $0[Int(n.start)..<Int(n.end)]), as: UTF8.self)
        }
    }

    /// A number written without fraction or exponent.
    public var isInteger: Bool { kind == .number && node.flags & JSONTapeFlag.nonInteger == 0 }

    /// The nearest Double, or nil if not a number or too large for a Double (e.g. `1e400`).
    public var double: Double? {
        let n = node
        guard n.kind == JSONKind.number.rawValue else { return nil }
        let exact = document.withBytes {
            JSONNumber.exactDouble(UnsafeBufferPointer(rebasing: $0[Int(n.start)..<Int(n.end)]))
        }
        return exact ?? numberText.flatMap { JSONNumber.double(fromValidText: $0) }
    }

    /// The exact value of an integer-written number that fits; nil otherwise (never rounds).
    public var int64: Int64? {
        guard isInteger, let text = numberText else { return nil }
        return Int64(text)
    }

    public var number: JSONNumber? { numberText.map { JSONNumber(validatedText: $0) } }

    /// Elements of an array or members of an object; 0 for anything else.
    public var count: Int {
        noteChildrenRead()
        var n = 0
        var i = index + 1
        let stop = subtreeEnd
        while i < stop {
            n += 1
            i = Int(document.tape[i].next)
        }
        return kind == .object ? n / 2 : (kind == .array ? n : 0)
    }

    /// The elements of an array (nothing for other kinds).
    public var elements: Elements {
        noteChildrenRead()
        return Elements(node: kind == .array ? self : nil)
    }

    /// The members of an object in document order (nothing for other kinds).
    public var members: Members {
        noteChildrenRead()
        return Members(node: kind == .object ? self : nil)
    }

    /// In a debug build, notes a read inside a container the parse kept without its children
    /// (`JSONParseOptions.keepChildrenAboveDepth`, `unreadKeys`): such a reader sees it empty.
    /// `bundle validate`'s runner stops on one (a rule read what it did not declare). `value`
    /// does not note: it reads a container whole, and sees one kept without children empty.
    @inline(__always)
    func noteChildrenRead() {
        #if DEBUG
        if node.flags & JSONTapeFlag.childrenDropped != 0 { document.droppedChildrenReads.append(index) }
        #endif
    }

    /// The value of `key` in an object. If the key is repeated (only possible under
    /// `.record`) the last one wins, as in most JSON readers.
    public subscript(key: String) -> JSONNode? {
        guard kind == .object else { return nil }
        noteChildrenRead()
        var key = key
        return key.withUTF8 { wanted -> JSONNode? in
            let wantedTag = wanted.isEmpty ? 0 : UInt16(wanted[0]) | UInt16(wanted[wanted.count - 1]) << 8
            return document.withBytes { bytes -> JSONNode? in
                var found: JSONNode?
                var i = index + 1
                let stop = subtreeEnd
                while i < stop {
                    let k = document.tape[i]
                    let valueIndex = i + 1
                    let start = Int(k.start) + 1, end = Int(k.end) - 1
                    let matches: Bool
                    if k.flags & JSONTapeFlag.escaped == 0 {
                        // Keys are short: a byte loop beats a call to memcmp.
                        matches = end - start == wanted.count && k.tag == wantedTag && Self.equal(bytes.baseAddress! + start, wanted)
                    } else {
                        var decoded: [UInt8] = []
                        JSONStringDecoding.appendUnescaped(bytes, from: start, to: end, into: &decoded)
                        matches = decoded.elementsEqual(wanted)
                    }
                    if matches { found = JSONNode(document: document, index: valueIndex) }
                    i = Int(document.tape[valueIndex].next)
                }
                return found
            }
        }
    }

    /// Calls `body` with each member's key (its UTF-8 bytes, unescaped) and value, in document
    /// order: one walk for a reader that wants several keys of an object, where each `self[key]`
    /// walks the members again. A repeated key is seen each time (the last is `self[key]`'s).
    public func forEachMember(_ body: (_ key: UnsafeBufferPointer<UInt8>, _ value: JSONNode) -> Void) {
        forEachMemberIndex { key, value in body(key, JSONNode(document: document, index: value)) }
    }

    /// `forEachMember` with each value's tape index instead of a node: no reference to the
    /// document is counted per member (for readers that keep only a few of them).
    func forEachMemberIndex(_ body: (_ key: UnsafeBufferPointer<UInt8>, _ value: Int) -> Void) {
        guard kind == .object else { return }
        noteChildrenRead()
        document.withBytes { bytes in
            var i = index + 1
            let stop = subtreeEnd
            while i < stop {
                let k = document.tape[i]
                let start = Int(k.start) + 1, end = Int(k.end) - 1
                if k.flags & JSONTapeFlag.escaped == 0 {
                    body(UnsafeBufferPointer(start: bytes.baseAddress! + start, count: end - start), i + 1)
                } else {
                    var decoded: [UInt8] = []
                    JSONStringDecoding.appendUnescaped(bytes, from: start, to: end, into: &decoded)
                    decoded.withUnsafeBufferPointer { body($0, i + 1) }
                }
                i = Int(document.tape[i + 1].next)
            }
        }
    }

    /// Whether `key` (bytes from `forEachMember`) is `name`.
    @inline(__always)
    public static func isKey(_ key: UnsafeBufferPointer<UInt8>, _ name: StaticString) -> Bool {
        guard key.count == name.utf8CodeUnitCount else { return false }
        let text = name.utf8Start
        for k in 0..<key.count where key[k] != text[k] { return false }
        return true
    }

    @inline(__always)
    static func equal(_ p: UnsafePointer<UInt8>, _ wanted: UnsafeBufferPointer<UInt8>) -> Bool {
        var k = 0
        while k < wanted.count {
            if p[k] != wanted[k] { return false }
            k += 1
        }
        return true
    }

    /// The element at `index` of an array; nil when out of range or not an array.
    public subscript(index position: Int) -> JSONNode? {
        guard kind == .array, position >= 0 else { return nil }
        var n = 0
        for element in elements {
            if n == position { return element }
            n += 1
        }
        return nil
    }

    /// Same as `self[index:]`.
    public subscript(position: Int) -> JSONNode? { self[index: position] }

    /// Follows an RFC 6901 pointer from this node.
    public func resolve(_ pointer: JSONPointer) -> JSONNode? {
        var current = self
        for token in pointer.tokens {
            switch current.kind {
            case .object:
                guard let next = current[token] else { return nil }
                current = next
            case .array:
                guard let i = JSONPointer.arrayIndex(token), let next = current[index: i] else { return nil }
                current = next
            default:
                return nil
            }
        }
        return current
    }

    /// An owned copy of the value (for a repeated key, the last value at the first position).
    public var value: JSONValue {
        switch kind {
        case .null: return .null
        case .bool: return .bool(bool!)
        case .number: return .number(number!)
        case .string: return .string(string!)
        case .array: return .array(Elements(node: self).map(\.value))
        case .object:
            var object = JSONObject()
            for member in Members(node: self) { object[member.key] = member.value.value }
            return .object(object)
        }
    }
}

extension JSONNode {
    public struct Elements: Sequence {
        let node: JSONNode?

        public func makeIterator() -> Iterator {
            guard let node else { return Iterator(document: nil, cursor: 0, stop: 0) }
            return Iterator(document: node.document, cursor: node.index + 1, stop: node.subtreeEnd)
        }

        public struct Iterator: IteratorProtocol {
            let document: JSONDocument?
            var cursor: Int
            let stop: Int

            public mutating func next() -> JSONNode? {
                guard let document, cursor < stop else { return nil }
                let current = cursor
                cursor = Int(document.tape[current].next)
                return JSONNode(document: document, index: current)
            }
        }
    }

    /// A run of an object's members, from the key at tape index `start` to the key before
    /// `stop` (the object's `subtreeEnd` for the rest of it): for reading parts of one object
    /// separately.
    struct MemberRun: Sequence {
        let document: JSONDocument
        let start: Int
        let stop: Int

        init(document: JSONDocument, keysFrom start: Int, to stop: Int) {
            self.document = document
            self.start = start
            self.stop = stop
        }

        func makeIterator() -> Members.Iterator {
            Members.Iterator(children: Elements.Iterator(document: document, cursor: start, stop: stop))
        }
    }

    /// An object's members: its children taken two at a time (key, then value), which is how
    /// the tape stores them.
    public struct Members: Sequence {
        let node: JSONNode?

        public func makeIterator() -> Iterator {
            Iterator(children: Elements(node: node).makeIterator())
        }

        public struct Iterator: IteratorProtocol {
            var children: Elements.Iterator

            public mutating func next() -> (key: String, keyNode: JSONNode, value: JSONNode)? {
                guard let keyNode = children.next(), let value = children.next() else { return nil }
                return (keyNode.string ?? "", keyNode, value)
            }
        }
    }
}
