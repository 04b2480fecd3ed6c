/// The remote-config keys the generated accessors expose, read as the SDK reads them:
/// `remote_config` when it is a non-empty object, else `feature_flags` (the same precedence as
/// `BundleFileShape.counts`). Each key gets the type its value has; a key whose type differs
/// between the two sections is reported, never guessed silently.
public struct RemoteConfigEntries: Sendable {
    /// The type an accessor returns. JSON objects, arrays and null fall back to `.json`
    /// (the source hands back the JSON text; documented in docs/codegen.md).
    public enum ValueType: String, Sendable, Equatable {
        case bool, int, double, string, json
    }

    public struct Entry: Sendable, Equatable {
        public let key: String
        public let type: ValueType
        /// The bundle's value, as written (JSON text): the default the accessor returns.
        public let defaultValue: JSONValue
    }

    /// A key present in both sections with different types.
    public struct TypeChange: Sendable, Equatable {
        public let key: String
        public let remoteConfigType: ValueType
        public let featureFlagsType: ValueType
    }

    /// The section the entries come from: "remote_config", "feature_flags", or nil if neither.
    public let section: String?
    public let entries: [Entry]
    public let typeChanges: [TypeChange]

    public init(root: JSONNode) {
        let remote = BundleFileShape.section("remote_config", in: root).flatMap { $0.kind == .object ? $0 : nil }
        let legacy = BundleFileShape.section("feature_flags", in: root).flatMap { $0.kind == .object ? $0 : nil }
        let chosen: (name: String, node: JSONNode)?
        if let remote, remote.count > 0 {
            chosen = ("remote_config", remote)
        } else if let legacy {
            chosen = ("feature_flags", legacy)
        } else {
            chosen = remote.map { ("remote_config", $0) }
        }
        section = chosen?.name
        entries = chosen.map { Self.entries(of: $0.node) } ?? []

        // Compare by bytes: a key equal only under canonical equivalence is another key.
        var changes: [TypeChange] = []
        if let remote, let legacy, remote.count > 0 {
            var legacyTypes: [[UInt8]: ValueType] = [:]
            for member in legacy.members { legacyTypes[Array(member.key.utf8)] = Self.type(of: member.value) }
            for member in remote.members {
                if let old = legacyTypes[Array(member.key.utf8)] {
                    let new = Self.type(of: member.value)
                    if old != new { changes.append(TypeChange(key: member.key, remoteConfigType: new, featureFlagsType: old)) }
                }
            }
        }
        typeChanges = changes
    }

    /// One entry per key, in UTF-8 byte order of the keys (the generated file's order), the
    /// last occurrence winning when a key repeats (as the SDK's dictionary does).
    static func entries(of object: JSONNode) -> [Entry] {
        var byKey: [[UInt8]: Entry] = [:]
        for member in object.members {
            byKey[Array(member.key.utf8)] = Entry(key: member.key, type: type(of: member.value), defaultValue: member.value.value)
        }
        return byKey.sorted { $0.key.lexicographicallyPrecedes($1.key) }.map(\.value)
    }

    static func type(of node: JSONNode) -> ValueType {
        switch node.kind {
        case .bool: return .bool
        case .number: return node.isInteger && node.int64 != nil ? .int : .double
        case .string: return .string
        case .null, .array, .object: return .json
        }
    }
}
