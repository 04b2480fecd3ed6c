/// The members of an experiment, a variant and a targeting object that `BundleValidator` reads
/// (declared in `BundleRuleReads`, so the parse keeps them: a member added here is added there),
/// each set found in one walk over the object's members (`JSONNode.forEachMemberIndex`) instead
/// of one walk per key: the validator reads 20,000 experiments of a large bundle this way. A
/// repeated key keeps its last value, as `JSONNode[key]` does.
///
/// Each set holds tape indexes and the document unowned, and makes a `JSONNode` only when a
/// member is read: holding six nodes, each a counted reference to the document, made every copy
/// of the set six retains and six releases, a third of the validator's instructions. The sets
/// live only while the validator, which owns the document, checks one object.
struct DocumentNodes {
    private unowned(unsafe) let document: JSONDocument

    init(_ object: JSONNode) { document = object.document }

    /// The node at `index`, nil for -1 (the member is absent).
    @inline(__always)
    func node(_ index: Int) -> JSONNode? { index < 0 ? nil : JSONNode(document: document, index: index) }
}

struct ExperimentMembers {
    private let nodes: DocumentNodes
    private var indexes = (status: -1, salt: -1, trafficAllocation: -1, variants: -1, platforms: -1, targeting: -1)

    var status: JSONNode? { nodes.node(indexes.status) }
    var salt: JSONNode? { nodes.node(indexes.salt) }
    var trafficAllocation: JSONNode? { nodes.node(indexes.trafficAllocation) }
    var variants: JSONNode? { nodes.node(indexes.variants) }
    var platforms: JSONNode? { nodes.node(indexes.platforms) }
    var targeting: JSONNode? { nodes.node(indexes.targeting) }

    init(_ experiment: JSONNode) {
        nodes = DocumentNodes(experiment)
        experiment.forEachMemberIndex { key, value in
            switch key.count {
            case 4 where JSONNode.isKey(key, "salt"): indexes.salt = value
            case 6 where JSONNode.isKey(key, "status"): indexes.status = value
            case 8 where JSONNode.isKey(key, "variants"): indexes.variants = value
            case 9 where JSONNode.isKey(key, "platforms"): indexes.platforms = value
            case 9 where JSONNode.isKey(key, "targeting"): indexes.targeting = value
            case 18 where JSONNode.isKey(key, "traffic_allocation"): indexes.trafficAllocation = value
            default: break
            }
        }
    }
}

struct VariantMembers {
    private let nodes: DocumentNodes
    private var indexes = (id: -1, weight: -1)

    var id: JSONNode? { nodes.node(indexes.id) }
    var weight: JSONNode? { nodes.node(indexes.weight) }

    init(_ variant: JSONNode) {
        nodes = DocumentNodes(variant)
        variant.forEachMemberIndex { key, value in
            if JSONNode.isKey(key, "id") {
                indexes.id = value
            } else if JSONNode.isKey(key, "weight") {
                indexes.weight = value
            }
        }
    }
}

struct TargetingMembers {
    private let nodes: DocumentNodes
    private var indexes = (countries: -1, minAppVersion: -1, newUsersOnly: -1, userTraits: -1)

    var countries: JSONNode? { nodes.node(indexes.countries) }
    var minAppVersion: JSONNode? { nodes.node(indexes.minAppVersion) }
    var newUsersOnly: JSONNode? { nodes.node(indexes.newUsersOnly) }
    var userTraits: JSONNode? { nodes.node(indexes.userTraits) }

    init(_ targeting: JSONNode) {
        nodes = DocumentNodes(targeting)
        targeting.forEachMemberIndex { key, value in
            switch key.count {
            case 9 where JSONNode.isKey(key, "countries"): indexes.countries = value
            case 11 where JSONNode.isKey(key, "user_traits"): indexes.userTraits = value
            case 14 where JSONNode.isKey(key, "new_users_only"): indexes.newUsersOnly = value
            case 15 where JSONNode.isKey(key, "min_app_version"): indexes.minAppVersion = value
            default: break
            }
        }
    }
}
