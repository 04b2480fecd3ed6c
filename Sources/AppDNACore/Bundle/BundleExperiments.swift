/// Finds the experiments in a config bundle of either shape: the SDK file shape
/// (`experiments` as `{"experiments": {…}}` or a flat map) or the API response shape, where
/// everything sits under `content`.
public enum BundleExperiments {
    /// The experiments map node, or nil when the bundle has none.
    public static func map(in root: JSONNode) -> JSONNode? {
        let section = root["experiments"] ?? root["content"]?["experiments"]
        guard let section, section.kind == .object else { return nil }
        if let nested = section["experiments"], nested.kind == .object { return nested }
        return section
    }

    /// The experiment called `id`, or a usage error listing the ones that exist.
    public static func experiment(_ id: String, in root: JSONNode, file: String) throws(Failure) -> ExperimentDefinition {
        guard let experiments = map(in: root) else {
            throw Failure(.malformedInput, "\(file): the bundle has no experiments")
        }
        guard let node = experiments[id], node.kind == .object else {
            let known = experiments.members.map(\.key)
            // Looked up by bytes; an id that reads like one in the bundle is said to differ.
            let lookalike = known.lazy.compactMap { ByteIdentity.normalisationDifference(id, from: $0) }.first
                .map { " ('\(id)' \($0); devices hash the bytes)" } ?? ""
            let shown = ByteIdentity.labelled(Array(known.prefix(10)))
            let listing = known.isEmpty ? "it has none" : "it has " + shown.joined(separator: ", ") + (known.count > 10 ? ", …" : "")
            throw Failure(.usage, "\(file): no experiment '\(id)' in the bundle\(lookalike); \(listing)")
        }
        return ExperimentDefinition(id: id, node: node)
    }
}
