/// What `bundle validate`'s rules read below each experiment, declared for the runner
/// (`BundleValidationRunner.parseOptions`): the parse keeps on its tape only the children of
/// what is read, so the rules' memory is the bundle's structure, not its payloads. A rule that
/// reads more must say so here: in a debug build (every test) a read inside a container the
/// parse kept without its children stops the program (`JSONDocument.droppedChildrenReads`),
/// where it would otherwise see an empty object and report nothing.
///
/// The rules read an experiment through `ExperimentMembers`, `VariantMembers` and
/// `TargetingMembers`, which look up the members named here; a trait rule is read whole
/// (`JSONNode.value`), its `value` list one level deep.
struct BundleRuleReads: Sendable {
    /// What is read of one value.
    indirect enum Part: Sendable {
        /// The value itself (its kind, a scalar's text), not opened.
        case value
        /// An object's members, by name.
        case members([(name: String, part: Part)])
        /// An array's elements.
        case elements(Part)

        /// How many levels below this value are read.
        var levels: Int {
            switch self {
            case .value: return 0
            case let .elements(part): return 1 + part.levels
            case let .members(members): return 1 + (members.map(\.part.levels).max() ?? 0)
            }
        }

        /// What is read of the member `name` of an object, if it is read.
        func member(_ name: String) -> Part? {
            guard case let .members(members) = self else { return nil }
            return members.first { $0.name == name }?.part  // not an id: member names of the contract, ASCII
        }
    }

    /// What is read of each experiment.
    let experiment: Part

    /// What the rules read today.
    static let rules = BundleRuleReads(experiment: .members([
        ("status", .value), ("salt", .value), ("traffic_allocation", .value),
        ("variants", .elements(.members([("id", .value), ("weight", .value)]))),
        ("platforms", .elements(.value)),
        ("targeting", .members([
            ("countries", .elements(.value)), ("min_app_version", .value), ("new_users_only", .value),
            ("user_traits", .elements(.members([("trait", .value), ("operator", .value), ("value", .elements(.value))]))),
        ])),
    ]))

    /// The depth of an experiment (the top-level value is at depth 0) where the map is wrapped
    /// in its own name, `{"experiments": {"experiments": {…}}}`, in the SDK shape and under the
    /// API shape's `content`; a flat SDK map puts it at 2.
    static let experimentDepth = (flat: 2, sdk: 3, api: 4)

    /// The shallowest depth of a variant's members (`variants`, an element, a member, below an
    /// experiment of a flat map): every experiment, whose key is an id that may be anything,
    /// even `payload`, is above it, so pruning by name from there never takes one.
    static var variantMemberDepth: Int { experimentDepth.flat + 3 }

    /// The depth of the deepest value read, in the deeper shape: containers there or deeper
    /// need no children.
    var deepestReadDepth: Int { Self.experimentDepth.api + experiment.levels }

    /// The contract's members of an experiment and of a variant that hold objects or arrays
    /// (`BundleModel.experimentContainerMembers`, `variantContainerMembers`) and are not read
    /// (left off from `variantMemberDepth`: an experiment's own are there in the deeper shapes).
    var unreadContractMembers: [String] {
        let variant: Part? = {
            guard case let .elements(part)? = experiment.member("variants") else { return nil }
            return part
        }()
        return BundleModel.experimentContainerMembers.filter { experiment.member($0) == nil }
            + BundleModel.variantContainerMembers.filter { variant?.member($0) == nil }
    }
}
