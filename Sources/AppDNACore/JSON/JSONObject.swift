/// The members of a JSON object in a fixed order (insertion order, or the document's), so the
/// same object always serialises to the same bytes. Lookups go through a key index, by the
/// key's bytes: `"café"` and `"cafe\u{301}"` are two members, as they are in the JSON text.
public struct JSONObject: Equatable, Sendable, Sequence, ExpressibleByDictionaryLiteral {
    public struct Member: Equatable, Sendable {
        public var key: String
        public var value: JSONValue
        public init(key: String, value: JSONValue) {
            self.key = key
            self.value = value
        }

        /// By the key's bytes, as the object's index is.
        public static func == (a: Member, b: Member) -> Bool { ByteIdentity.same(a.key, b.key) && a.value == b.value }
    }

    public private(set) var members: [Member] = []
    private var positions: [ByteKey: Int] = [:]

    public init() {}

    public init(_ pairs: [(String, JSONValue)]) {
        for (key, value) in pairs { self[key] = value }
    }

    public init(dictionaryLiteral elements: (String, JSONValue)...) { self.init(elements) }

    public var count: Int { members.count }
    public var isEmpty: Bool { members.isEmpty }
    public var keys: [String] { members.map(\.key) }

    /// Reading: the value or nil. Writing: replaces in place, appends a new key at the end,
    /// and removes the key when given nil.
    public subscript(key: String) -> JSONValue? {
        get { positions[ByteKey(key)].map { members[$0].value } }
        set {
            if let newValue {
                if let i = positions[ByteKey(key)] {
                    members[i].value = newValue
                } else {
                    positions[ByteKey(key)] = members.count
                    members.append(Member(key: key, value: newValue))
                }
            } else {
                removeValue(forKey: key)
            }
        }
    }

    /// Adds `key` as the last member; an existing member with that key is removed first.
    public mutating func append(key: String, value: JSONValue) {
        if positions[ByteKey(key)] != nil { removeValue(forKey: key) }
        self[key] = value
    }

    @discardableResult
    public mutating func removeValue(forKey key: String) -> JSONValue? {
        guard let i = positions.removeValue(forKey: ByteKey(key)) else { return nil }
        let removed = members.remove(at: i)
        for j in i..<members.count { positions[ByteKey(members[j].key)] = j }
        return removed.value
    }

    public func makeIterator() -> IndexingIterator<[Member]> { members.makeIterator() }

    /// Equal when the same keys map to the same values in the same order: order is part of
    /// the value because it decides the serialised bytes.
    public static func == (a: JSONObject, b: JSONObject) -> Bool { a.members == b.members }
}
