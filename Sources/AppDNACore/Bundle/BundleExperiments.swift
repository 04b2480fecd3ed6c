/// Finds the experiments in a config bundle of either shape: the SDK file shape
/// (`experiments` as `{"experiments": {…}}` or a flat map) or the API response shape, where
/// everything sits under `content`.
public enum BundleExperiments {
    /// The experiments section as the SDK finds it, with its pointer: the top-level
    /// `experiments` (the SDK file shape, the only place devices look), else `content.experiments`
    /// (the API response shape, for files saved from the API); unwrapped once from
    /// `{"experiments": {…}}`. Every command reads experiments through this one function, so a
    /// file holding both reads the same everywhere: the top-level one, as on devices.
    public static func located(in root: JSONNode) -> BundleModel.Located? {
        let (section, pointer): (JSONNode?, JSONPointer)
        if let top = root["experiments"] {
            (section, pointer) = (top, JSONPointer(tokens: ["experiments"]))
        } else {
            (section, pointer) = (root["content"]?["experiments"], JSONPointer(tokens: ["content", "experiments"]))
        }
        guard let section else { return nil }
        if section.kind == .object, let nested = section["experiments"], nested.kind == .object {
            return BundleModel.Located(node: nested, pointer: pointer.appending(key: "experiments"))
        }
        return BundleModel.Located(node: section, pointer: pointer)
    }

    /// The experiments map node, or nil when the bundle has none.
    public static func map(in root: JSONNode) -> JSONNode? {
        guard let located = located(in: root), located.node.kind == .object else { return nil }
        return located.node
    }

    /// Every experiment of the map, in bundle order (entries that are not objects skipped, as
    /// devices skip them); empty when the bundle has none.
    public static func all(in root: JSONNode) -> [ExperimentDefinition] {
        guard let map = map(in: root) else { return [] }
        return map.members.filter { $0.value.kind == .object }.map { ExperimentDefinition(id: $0.key, node: $0.value) }
    }

    /// The experiment called `id`, or a usage error listing the ones that exist.
    public static func experiment(_ id: String, in root: JSONNode, file: String) throws(Failure) -> ExperimentDefinition {
        guard let experiments = map(in: root) else {
            throw Failure(.malformedInput, "\(file): the bundle has no experiments")
        }
        guard let node = experiments[id], node.kind == .object else {
            throw notFound(id, among: experiments.members.map(\.key), file: file)
        }
        return ExperimentDefinition(id: id, node: node)
    }

    /// The one wording of an experiment id the bundle does not have (`bucket`, `warehouse
    /// --experiment`): "FILE: no experiment 'ID' in the bundle; it has A, B, …; did you mean
    /// 'A'?". An id that differs from one of `known` only in Unicode normalisation says so
    /// instead of suggesting it, and ids that read alike are labelled (café (NFC), café (NFD)).
    public static func notFound(_ id: String, among known: [String], file: String) -> Failure {
        let lookalike = lookalikeNote(id, among: known)
        let labelled = ByteIdentity.labelled(known)
        let shown = labelled.prefix(10)
        let listing = known.isEmpty ? "it has none" : "it has " + shown.joined(separator: ", ") + (known.count > 10 ? ", …" : "")
        let suggestion = lookalike.isEmpty ? Suggestions.closestIndices(to: id, among: known).first.map { "; did you mean '\(labelled[$0])'?" } : nil
        return Failure(.usage, "\(file): no experiment '\(id)' in the bundle\(lookalike); \(listing)\(suggestion ?? "")")
    }

    /// Ids are looked up by bytes: for an id that reads like one of `known` but is another
    /// normalisation form, " ('ID' differs from ID2 only in Unicode normalisation: NFD vs NFC;
    /// devices hash the bytes)", else "".
    public static func lookalikeNote(_ id: String, among known: [String]) -> String {
        known.lazy.compactMap { ByteIdentity.normalisationDifference(id, from: $0) }.first
            .map { " ('\(id)' \($0); devices hash the bytes)" } ?? ""
    }
}
