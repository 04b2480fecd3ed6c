/// A config bundle of either shape, as a set of located sections.
///
/// - SDK file shape: sections at the top level (`experiments`, `remote_config` /
///   `feature_flags`, `paywalls`, `onboarding`, `messages`, `surveys`, `screen_index`, `brand`).
///   Map sections may be wrapped once in their own name (`{"experiments": {"experiments": {…}}}`).
/// - API response shape: `bundle_version`, `sdk_min_version`, … and the sections under
///   `content`, named `onboarding_flows` and `in_app_messages` instead of `onboarding` and
///   `messages`. The SDK does not look under `content`.
///
/// Every section keeps its JSON Pointer so findings and diffs can point into the file.
public struct BundleModel {
    public enum Shape: String, Sendable {
        /// What the SDK loads from the app bundle.
        case sdk
        /// The documented API response: sections under `content`.
        case api
    }

    /// A located node.
    public struct Located {
        public let node: JSONNode
        public let pointer: JSONPointer
    }

    public let root: JSONNode
    public let shape: Shape
    /// The object the sections are read from: the root, or `content` for the API shape.
    public let sections: Located
    public let bundleVersion: Located?
    /// The experiments map (after unwrapping `{"experiments": {…}}`), or the section as found
    /// when it is not an object.
    public let experiments: Located?
    /// The flags map the SDK hands the app: `remote_config` when non-empty, else `feature_flags`.
    public let flags: Located?
    /// `onboarding` (SDK) or `onboarding_flows` (API).
    public let onboarding: Located?

    /// Sections that are maps keyed by id in the SDK shape (and may be wrapped in their own name).
    public static let wrappedMapSections = ["experiments", "paywalls", "messages", "surveys"]
    /// Every section name the SDK reads, with the JSON kind it expects.
    public static let sdkSections = ["experiments", "remote_config", "feature_flags", "paywalls", "onboarding",
                                     "messages", "surveys", "screen_index", "brand"]
    /// Members of an experiment and of a variant, in the contract, whose values are objects or
    /// arrays (the others are one node each on a parse's tape): what a reader may leave unopened.
    static let experimentContainerMembers = ["variants", "platforms", "targeting"]
    static let variantContainerMembers = ["payload"]
    /// Section names of the API shape the SDK does not know, and what the SDK calls them.
    public static let apiSectionRenames = [("onboarding_flows", "onboarding"), ("in_app_messages", "messages")]

    public init(root: JSONNode) {
        self.root = root
        if root.kind == .object, let content = root["content"], content.kind == .object {
            shape = .api
            sections = Located(node: content, pointer: JSONPointer(tokens: ["content"]))
        } else {
            shape = .sdk
            sections = Located(node: root, pointer: .root)
        }
        bundleVersion = root["bundle_version"].map { Located(node: $0, pointer: JSONPointer(tokens: ["bundle_version"])) }
        // The SDK's precedence (top level first), shared with bucket, the audit, codegen and
        // the SQL generator through BundleExperiments.
        experiments = BundleExperiments.located(in: root)
        let remote = Self.section("remote_config", in: sections, unwrap: false)
        let feature = Self.section("feature_flags", in: sections, unwrap: false)
        if let remote, remote.node.kind == .object, remote.node.count > 0 {
            flags = remote
        } else if let feature, feature.node.kind == .object, feature.node.count > 0 {
            flags = feature
        } else {
            flags = remote ?? feature
        }
        onboarding = Self.section("onboarding", in: sections, unwrap: false)
            ?? (shape == .api ? Self.section("onboarding_flows", in: sections, unwrap: false) : nil)
    }

    /// The section `name` of `parent`, unwrapping `{"name": {"name": {…}}}` when asked.
    static func section(_ name: String, in parent: Located, unwrap: Bool) -> Located? {
        guard let node = parent.node[name] else { return nil }
        let pointer = parent.pointer.appending(key: name)
        if unwrap, node.kind == .object, let inner = node[name], inner.kind == .object {
            return Located(node: inner, pointer: pointer.appending(key: name))
        }
        return Located(node: node, pointer: pointer)
    }

    /// The experiments as (id, located node), in document order; empty when the section is
    /// missing or not an object.
    public var experimentList: [(id: String, experiment: Located)] {
        guard let experiments, experiments.node.kind == .object else { return [] }
        return experiments.node.members.map { member in
            (member.key, Located(node: member.value, pointer: experiments.pointer.appending(key: member.key)))
        }
    }
}
