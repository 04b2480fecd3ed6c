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
            let listing = known.isEmpty ? "it has none" : "it has " + known.prefix(10).joined(separator: ", ") + (known.count > 10 ? ", …" : "")
            throw Failure(.usage, "\(file): no experiment '\(id)' in the bundle; \(listing)")
        }
        return ExperimentDefinition(id: id, node: node)
    }
}
