/// What `bundle codegen` generates, decided once for every language: the remote-config
/// accessors, the experiments with their variant cases, and the id constants of paywalls,
/// onboarding flows, in-app messages and surveys, each with its identifier
/// (`CodegenIdentifiers`). Ids are deduplicated and ordered by their UTF-8 bytes, so the same
/// bundle gives the same bytes in every language.
public struct CodegenModel: Sendable {
    public struct Experiment: Sendable {
        public let id: String
        /// The accessor's name; the type's name is the same with a capital (`typeName`) unless
        /// that is taken (`CodegenIdentifiers.typeNames`).
        public let name: String
        public let typeName: String
        /// Each variant's Swift case (`name`) and Kotlin case object (`typeName`).
        public let variants: [(id: String, name: String, typeName: String)]
    }

    /// The types every generated file declares or names (both languages), which no generated
    /// type may shadow: a nested `String` or `AppDNAValueSource` would capture the file's own
    /// uses of the name.
    static let declaredAndUsedTypes: Set<String> = [  // not an id: generated ASCII identifiers
        "AppDNAValueSource", "AppDNAConfig", "AppDNAExperiments", "AppDNAIDs", "Paywalls", "OnboardingFlows", "Messages",
        "Surveys", "String", "Bool", "Int", "Double", "Array", "Equatable", "Sendable", "Optional", "Swift",
        "Boolean", "Long", "Unit", "Nothing", "Suppress", "Unknown", "Companion",
    ]

    /// One group of id constants (`Paywalls`, `OnboardingFlows`, `Messages`, `Surveys`).
    public struct IDGroup: Sendable {
        public let typeName: String
        /// The bundle section it comes from, for the doc comment.
        public let section: String
        public let ids: [(id: String, name: String)]
    }

    public let bundleVersion: String
    public let config: RemoteConfigEntries
    /// The accessor name of each `config.entries` element, in the same order.
    public let configNames: [String]
    public let experiments: [Experiment]
    public let idGroups: [IDGroup]

    public init(root: JSONNode) {
        bundleVersion = root["bundle_version"]?.numberText ?? root["content"]?["bundle_version"]?.numberText ?? "unknown"
        config = RemoteConfigEntries(root: root)
        // AppDNAConfig's own members: the source and the experiments.
        configNames = CodegenIdentifiers.names(for: config.entries.map(\.key), reserved: ["source", "experiments"])

        var found: [(id: String, variants: [String])] = []
        var seen = Set<ByteKey>()
        if let map = BundleExperiments.map(in: root) {
            for member in map.members where member.value.kind == .object && seen.insert(ByteKey(member.key)).inserted {
                found.append((member.key, ExperimentDefinition(id: member.key, node: member.value).variants.map(\.variant)))
            }
        }
        found.sort { ByteKey($0.id) < ByteKey($1.id) }
        // AppDNAExperiments declares `source`, a property per experiment and a type per
        // experiment; each type declares its cases, `unknown`, `id` and (Kotlin) `of`.
        let names = CodegenIdentifiers.names(for: found.map(\.id), reserved: ["source"])
        let typeNames = CodegenIdentifiers.typeNames(for: names, members: Set(names + ["source"]), types: Self.declaredAndUsedTypes)
        experiments = zip(found, zip(names, typeNames)).map { experiment, naming in
            let variants = Self.unique(experiment.variants)
            let cases = CodegenIdentifiers.names(for: variants, reserved: ["unknown", "id", "of", naming.1])
            let objects = CodegenIdentifiers.typeNames(for: cases, members: ["id", "of"], types: Self.declaredAndUsedTypes.union([naming.1]))
            return Experiment(id: experiment.id, name: naming.0, typeName: naming.1,
                              variants: (0..<variants.count).map { (variants[$0], cases[$0], objects[$0]) })
        }

        var groups: [IDGroup] = []
        for (section, typeName) in [("paywalls", "Paywalls"), ("onboarding", "OnboardingFlows"), ("messages", "Messages"), ("surveys", "Surveys")] {
            guard var node = BundleFileShape.section(section, in: root), node.kind == .object else { continue }
            if section == "onboarding" {
                guard let flows = node["flows"], flows.kind == .object else { continue }
                node = flows
            } else if let inner = node[section], inner.kind == .object {
                node = inner  // {"paywalls": {"paywalls": {…}}}
            }
            let ids = Self.unique(node.members.map(\.key))
            guard !ids.isEmpty else { continue }
            groups.append(IDGroup(typeName: typeName, section: section == "onboarding" ? "onboarding.flows" : section,
                                  ids: Array(zip(ids, CodegenIdentifiers.names(for: ids)))))
        }
        idGroups = groups
    }

    /// The bundle's value of `entry` as a literal of the target language, for the accessor's
    /// default: `literal` quotes text (strings, and JSON text for objects, arrays and null),
    /// `integer` writes an integer's text, `infinity` names a Double beyond the largest. Doubles are written as Swift
    /// prints them (`1.5`, `1e+100`), which both languages read.
    public static func defaultLiteral(_ entry: RemoteConfigEntries.Entry, literal: (String) -> String, integer: (String) -> String,
                                      infinity: (_ negative: Bool) -> String) -> String {
        switch (entry.type, entry.defaultValue) {
        case (.bool, .bool(let value)): return value ? "true" : "false"
        case (.int, .number(let number)): return integer(number.text)
        case (.double, .number(let number)):
            // `1e400` is beyond Double and reads as infinity, which has no literal in either language.
            guard let double = number.double else { return "0.0" }
            return double.isInfinite ? infinity(double < 0) : "\(double)"
        case (.string, .string(let text)): return literal(text)
        default: return literal(JSONWriter(sortKeys: false).writeString(entry.defaultValue))
        }
    }

    /// Distinct by bytes, in byte order.
    static func unique(_ ids: [String]) -> [String] {
        var seen = Set<ByteKey>()
        return ids.filter { seen.insert(ByteKey($0)).inserted }.sorted { ByteKey($0) < ByteKey($1) }
    }
}
