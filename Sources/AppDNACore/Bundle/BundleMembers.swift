/// The members of an experiment, a variant and a targeting object that `BundleValidator` reads,
/// each set found in one walk over the object's members (`JSONNode.forEachMember`) instead of
/// one walk per key: the validator reads 20,000 experiments of a large bundle this way. A
/// repeated key keeps its last value, as `JSONNode[key]` does.
struct ExperimentMembers {
    var status: JSONNode?
    var salt: JSONNode?
    var trafficAllocation: JSONNode?
    var variants: JSONNode?
    var platforms: JSONNode?
    var targeting: JSONNode?
}

extension ExperimentMembers {
    init(_ experiment: JSONNode) {
        self.init()
        experiment.forEachMember { key, value in
            switch key.count {
            case 4 where JSONNode.isKey(key, "salt"): self.salt = value
            case 6 where JSONNode.isKey(key, "status"): self.status = value
            case 8 where JSONNode.isKey(key, "variants"): self.variants = value
            case 9 where JSONNode.isKey(key, "platforms"): self.platforms = value
            case 9 where JSONNode.isKey(key, "targeting"): self.targeting = value
            case 18 where JSONNode.isKey(key, "traffic_allocation"): self.trafficAllocation = value
            default: break
            }
        }
    }
}

struct VariantMembers {
    var id: JSONNode?
    var weight: JSONNode?
}

extension VariantMembers {
    init(_ variant: JSONNode) {
        self.init()
        variant.forEachMember { key, value in
            if JSONNode.isKey(key, "id") {
                self.id = value
            } else if JSONNode.isKey(key, "weight") {
                self.weight = value
            }
        }
    }
}

struct TargetingMembers {
    var countries: JSONNode?
    var minAppVersion: JSONNode?
    var newUsersOnly: JSONNode?
    var userTraits: JSONNode?
}

extension TargetingMembers {
    init(_ targeting: JSONNode) {
        self.init()
        targeting.forEachMember { key, value in
            switch key.count {
            case 9 where JSONNode.isKey(key, "countries"): self.countries = value
            case 11 where JSONNode.isKey(key, "user_traits"): self.userTraits = value
            case 14 where JSONNode.isKey(key, "new_users_only"): self.newUsersOnly = value
            case 15 where JSONNode.isKey(key, "min_app_version"): self.minAppVersion = value
            default: break
            }
        }
    }
}
