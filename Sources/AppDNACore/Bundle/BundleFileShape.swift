/// The SDK file shape of a config bundle (what the SDK loads from the app), produced from
/// either shape the API may return: a `content` wrapper is unwrapped, `onboarding_flows`
/// becomes `onboarding` and `in_app_messages` becomes `messages`. Keys stay in the server's
/// order and values are copied as written, so the same response always gives the same bytes.
public enum BundleFileShape {
    public static let renames = ["onboarding_flows": "onboarding", "in_app_messages": "messages"]

    /// Whether the document is the API response shape (a `content` object at the top).
    public static func isWrapped(_ root: JSONNode) -> Bool { root["content"]?.kind == .object }

    /// The top-level members of the SDK file, in order: the wrapper's members with `content`
    /// replaced by its own members (renamed) and `size_bytes` dropped (it describes the
    /// response, not this file). A name already emitted is not repeated.
    public static func members(_ root: JSONNode) -> [(key: String, value: JSONNode)] {
        var result: [(key: String, value: JSONNode)] = []
        var seen = Set<String>()
        func add(_ key: String, _ value: JSONNode) {
            let name = renames[key] ?? key
            if seen.insert(name).inserted { result.append((name, value)) }
        }
        let wrapped = isWrapped(root)
        for member in root.members {
            if wrapped && member.key == "content" {
                for inner in member.value.members { add(inner.key, inner.value) }
            } else if wrapped && member.key == "size_bytes" {
                continue
            } else {
                add(member.key, member.value)
            }
        }
        return result
    }

    /// 2-space pretty JSON with a final newline.
    public static func sdkFileBytes(_ root: JSONNode) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(root.document.byteCount * 2 + 64)
        let members = members(root)
        out.append(UInt8(ascii: "{"))
        for (i, member) in members.enumerated() {
            out.append(contentsOf: i == 0 ? [0x0A, 0x20, 0x20] : [UInt8(ascii: ","), 0x0A, 0x20, 0x20])
            JSONWriter.appendQuoted(member.key, to: &out)
            out.append(contentsOf: [UInt8(ascii: ":"), 0x20])
            JSONReindent.append(member.value, indent: 2, depth: 1, to: &out)
        }
        if !members.isEmpty { out.append(0x0A) }
        out.append(contentsOf: [UInt8(ascii: "}"), 0x0A])
        return out
    }

    /// A section of either shape (`remote_config`, `experiments`…), looked up at the top and
    /// under `content`, with the API names tried too.
    public static func section(_ name: String, in root: JSONNode) -> JSONNode? {
        let apiName = renames.first { $0.value == name }?.key
        for candidate in [root, root["content"]].compactMap({ $0 }) {
            if let node = candidate[name] { return node }
            if let apiName, let node = candidate[apiName] { return node }
        }
        return nil
    }

    /// What the summary line counts.
    public struct Counts: Sendable, Equatable {
        public var bundleVersion: Int64?
        public var experiments: Int
        public var flags: Int
    }

    public static func counts(_ root: JSONNode) -> Counts {
        let experiments = BundleExperiments.map(in: root)?.count ?? 0
        // remote_config wins when non-empty, as in the SDK.
        var flags = 0
        if let remote = section("remote_config", in: root), remote.kind == .object, remote.count > 0 {
            flags = remote.count
        } else if let legacy = section("feature_flags", in: root), legacy.kind == .object {
            flags = legacy.count
        }
        return Counts(bundleVersion: root["bundle_version"]?.int64, experiments: experiments, flags: flags)
    }
}
