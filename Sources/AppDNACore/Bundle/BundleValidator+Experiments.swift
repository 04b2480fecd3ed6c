/// The rules of one experiment: status, salt, traffic allocation, variants and weights,
/// platforms and targeting (E006-E018, W001-W012 as they apply to an experiment), and the
/// look-alike ids among experiments, variants and flags (W009). They read an experiment
/// through `ExperimentMembers`, `VariantMembers` and `TargetingMembers`, which look up only
/// what `BundleRuleReads` declares.
extension BundleValidator {
    /// Checks the experiments whose keys are at tape indexes `start..<stop` of an experiments
    /// object, straight over the members, not `experimentList`: that builds a pointer per
    /// experiment, and only the few with findings need one. Returns the ids with non-ASCII
    /// bytes.
    mutating func checkMembers(from start: Int, to stop: Int, in pointer: JSONPointer) -> [(text: String, node: JSONNode, index: Int)] {
        var nonASCIIIDs: [(text: String, node: JSONNode, index: Int)] = []
        for member in JSONNode.MemberRun(document: document, keysFrom: start, to: stop) {
            checkExperiment(id: member.key, node: member.value, in: pointer)
            if Self.hasNonASCII(member.key) { nonASCIIIDs.append((member.key, member.keyNode, 0)) }
        }
        return nonASCIIIDs
    }

    /// W009: ids that read the same but are different bytes (NFC and NFD spellings). Devices
    /// hash and compare the bytes, so these are two experiments, variants or flags; people (and
    /// Swift's ==) see one. Only ids with non-ASCII bytes can differ this way: callers pass
    /// only those (most bundles have none), and `pointer` (of an id and the index given with
    /// it) is built only for a finding.
    mutating func checkLookalikes(_ ids: [(text: String, node: JSONNode, index: Int)], what: String, of owner: @autoclosure () -> String = "",
                                          pointer: (String, Int) -> JSONPointer) {
        guard ids.count > 1 else { return }
        var firstByForm: [ByteKey: String] = [:]
        for (text, node, index) in ids {
            let form = ByteKey(UnicodeForms.nfc(text))
            guard let first = firstByForm[form] else {
                firstByForm[form] = text
                continue
            }
            if let difference = ByteIdentity.normalisationDifference(text, from: first) {
                add(.lookalikeID, "\(what) \(Self.quoted(text))\(owner()) \(difference): devices treat them as two", at: node, pointer(text, index))
            }
        }
    }

    mutating func checkExperiment(id: String, node: JSONNode, in experimentsPointer: JSONPointer) {
        // Built only for a finding (this runs per experiment).
        var pointer: JSONPointer { experimentsPointer.appending(key: id) }
        guard node.kind == .object else {
            add(.experimentType, "experiment \(Self.quoted(id)) must be an object, not \(Self.kindName(node))", at: node, pointer)
            return
        }
        let members = ExperimentMembers(node)
        checkEligibilityRules(id: id, members: members, pointer: pointer)
        // Status.
        if let status = members.status {
            if Self.isKnownStatus(status) {
                // fine (the common case, without making a String)
            } else if let text = status.string, Self.statuses.contains(text) {
                // fine
            } else {
                add(.status, "status of \(Self.quoted(id)) is \(Self.show(status)), not running, paused or completed: devices assign no one",
                    at: status, pointer.appending(key: "status"))
            }
        } else {
            add(.status, "experiment \(Self.quoted(id)) has no status: devices assign no one (status must be \"running\")", at: node, pointer)
        }
        // Salt.
        let salt = members.salt
        if salt == nil || salt?.kind == .null || (!Self.hasPrintableASCII(salt!) && (salt?.string).map(BucketingScheme.isBlank) == true) {
            let what = salt == nil ? "no salt" : (salt?.kind == .null ? "a null salt" : "a blank salt")
            add(.blankSalt, "experiment \(Self.quoted(id)) has \(what): iOS <= 1.0.69 hashes it literally, newer iOS and Android use the experiment id, so they assign differently",
                at: salt ?? node, salt == nil ? pointer : pointer.appending(key: "salt"))
        }
        // Traffic allocation.
        if let allocation = members.trafficAllocation {
            let value = allocation.double
            if allocation.kind != .number || value == nil || !(0...1).contains(value!) {
                add(.trafficAllocation, "traffic_allocation of \(Self.quoted(id)) must be a number from 0 to 1, not \(Self.show(allocation))",
                    at: allocation, pointer.appending(key: "traffic_allocation"))
            }
        }
        checkVariants(id: id, node: node, variants: members.variants, pointer: pointer)
    }

    mutating func checkVariants(id: String, node: JSONNode, variants: JSONNode?, pointer experimentPointer: @autoclosure () -> JSONPointer) {
        guard let variants else {
            add(.variantsMissing, "experiment \(Self.quoted(id)) has no variants", at: node, experimentPointer())
            return
        }
        // Built only for a finding (this runs per experiment).
        var variantsPointer: JSONPointer { experimentPointer().appending(key: "variants") }
        guard variants.kind == .array else {
            add(.variantsMissing, "variants of \(Self.quoted(id)) must be an array, not \(Self.kindName(variants))", at: variants, variantsPointer)
            return
        }
        guard variants.index + 1 < variants.subtreeEnd else {
            add(.variantsMissing, "experiment \(Self.quoted(id)) has an empty variants list", at: variants, variantsPointer)
            return
        }
        // Ids are compared by their bytes, as JSON does (Swift's String == would merge NFC and
        // NFD), straight from the document: no String per variant (this runs per variant). A
        // few earlier ids are kept in a list the validator reuses, many in a dictionary.
        var seenCount = 0
        var seen: [[UInt8]: Int] = [:]
        var weightsUsable = true
        var weightCount = 0
        // W009 is checked on the few with non-ASCII bytes.
        var nonASCIIIDs: [(text: String, node: JSONNode, index: Int)] = []
        defer {
            checkLookalikes(nonASCIIIDs, what: "variant id", of: " of \(Self.quoted(id))") { _, index in
                variantsPointer.appending(index: index).appending(key: "id")
            }
        }
        for (index, variant) in variants.elements.enumerated() {
            // Built only for a finding: most variants have none, and this loop runs per variant.
            var vp: JSONPointer { variantsPointer.appending(index: index) }
            guard variant.kind == .object else {
                add(.variantType, "variant \(index) of \(Self.quoted(id)) must be an object, not \(Self.kindName(variant))", at: variant, vp)
                weightsUsable = false
                continue
            }
            let fields = VariantMembers(variant)
            // The variant's name in messages: built only for a finding.
            var name: String {
                if let idNode = fields.id, let text = idNode.string, !text.isEmpty { return text }
                return "#\(index)"
            }
            if let idNode = fields.id, idNode.kind == .string, !Self.isEmptyString(idNode) {
                if !Self.isPlainASCII(idNode), let text = idNode.string, Self.hasNonASCII(text) { nonASCIIIDs.append((text, idNode, index)) }
                if let first = firstEarlierVariant(withIDOf: idNode, among: seenCount, dictionary: seen) {
                    add(.duplicateVariantID, "variant id \(Self.show(idNode)) of \(Self.quoted(id)) is also variant \(first)'s: the second can never be told apart",
                        at: idNode, vp.appending(key: "id"))
                } else if seen.isEmpty && seenCount < 16 {
                    Self.put((node: idNode.index, variant: index), at: seenCount, in: &scratchSeenIDs)
                    seenCount += 1
                } else {
                    if seen.isEmpty {
                        for entry in scratchSeenIDs[..<seenCount] { seen[stringBytes(entry.node)] = entry.variant }
                    }
                    seen[stringBytes(idNode.index)] = index
                }
            } else if let idNode = fields.id {
                add(.variantID, "variant \(index) of \(Self.quoted(id)): id must be a non-empty string, not \(Self.show(idNode))", at: idNode, vp.appending(key: "id"))
            } else {
                add(.variantID, "variant \(index) of \(Self.quoted(id)) has no id", at: variant, vp)
            }
            guard let weightNode = fields.weight else {
                add(.weightType, "variant \(name) of \(Self.quoted(id)) has no weight", at: variant, vp)
                weightsUsable = false
                continue
            }
            guard weightNode.kind == .number, let weight = weightNode.double, weight.isFinite else {
                let what = weightNode.kind == .number ? "\(Self.show(weightNode)), too large for a double" : Self.show(weightNode)
                add(.weightType, "weight of variant \(name) of \(Self.quoted(id)) must be a number, not \(what)", at: weightNode, vp.appending(key: "weight"))
                weightsUsable = false
                continue
            }
            guard (0...1).contains(weight) else {
                add(.weightRange, "weight of variant \(name) of \(Self.quoted(id)) is \(Self.show(weightNode)); weights are from 0 to 1",
                    at: weightNode, vp.appending(key: "weight"))
                weightsUsable = false
                continue
            }
            Self.put(weight, at: weightCount, in: &scratchWeights)
            weightCount += 1
        }
        guard weightsUsable else { return }
        let weights = scratchWeights[..<weightCount]
        let sum = weights.reduce(0.0, +)
        guard abs(sum - 1) <= Self.weightSumTolerance else {
            add(.weightSum, "weights of \(Self.quoted(id)) sum to \(sum), not 1", at: variants, variantsPointer)
            return
        }
        // The intended split is each weight × 10000 rounded; it is only a promise the SDK could
        // keep when those whole numbers add up to 10000 (thirds cannot, whatever the rounding).
        // When every weight × 10000 truncates to its rounding and those add up to 10000, each
        // range is exactly its intended size: the usual case needs no allocation computed.
        var intendedSum = 0
        var everyShareExact = true
        for weight in weights {
            let intended = Int((weight * 10_000).rounded())
            intendedSum += intended
            if VariantAllocation.truncatedShare(weight) != UInt64(max(intended, 0)) { everyShareExact = false }
        }
        guard intendedSum == 10_000 && !everyShareExact else { return }
        // Every variant has an id or a number here (weights are usable): name them for the message.
        let named = variants.elements.enumerated().map { index, variant -> (variant: String, weight: Double) in
            let fields = VariantMembers(variant)
            let text = fields.id?.string ?? ""
            return (text.isEmpty ? "#\(index)" : text, fields.weight?.double ?? 0)
        }
        let allocation = VariantAllocation(weights: named)
        let intended = named.map { Int(($0.weight * 10_000).rounded()) }
        let differs = zip(allocation.ranges, intended).contains { Int($0.bucketCount) != $1 }
        if differs {
            let detail = allocation.ranges.map { range in
                "\(range.variant) \(Self.formatWeight(range.weight)) → \(range.bucketCount) buckets (intended \(Int((range.weight * 10_000).rounded())))"
            }.joined(separator: ", ")
            add(.weightTruncation, "devices truncate weight × 10000, so \(Self.quoted(id)) splits \(detail)", at: variants, variantsPointer)
        }
    }

    static func formatWeight(_ weight: Double) -> String {
        "\(weight)"
    }

    /// E017, E018, W010, W011, W012: platform and targeting rules that devices fail closed, so no user is
    /// assigned (the same judgement as `Eligibility`, which `bucket` and the audit use).
    mutating func checkEligibilityRules(id: String, members: ExperimentMembers, pointer: @autoclosure () -> JSONPointer) {
        if let platforms = members.platforms, platforms.kind != .null {
            if platforms.kind != .array || platforms.elements.contains(where: { $0.kind != .string }) {
                add(.platformsType, "platforms of \(Self.quoted(id)) must be a list of platform names, not \(Self.show(platforms)): devices run it nowhere",
                    at: platforms, pointer().appending(key: "platforms"))
            } else {
                for (index, name) in platforms.elements.enumerated() where !Self.isPlainLowercase(name) {
                    if let text = name.string, text != text.lowercased() {  // not an id: a platform name's case
                        add(.platformCase, "platform \(Self.show(name)) of \(Self.quoted(id)) is not lower case: write \"\(text.lowercased())\" (devices compare without case; other tools may not)",
                            at: name, pointer().appending(key: "platforms").appending(index: index))
                    }
                }
            }
        }
        guard let targeting = members.targeting, targeting.kind != .null else { return }
        var targetingPointer: JSONPointer { pointer().appending(key: "targeting") }
        guard targeting.kind == .object else {
            add(.targetingRule, "targeting of \(Self.quoted(id)) must be an object, not \(Self.kindName(targeting)): devices assign no one", at: targeting, targetingPointer)
            return
        }
        let rules = TargetingMembers(targeting)
        if let countries = rules.countries, countries.kind != .null {
            if countries.kind != .array {
                add(.targetingRule, "targeting.countries of \(Self.quoted(id)) must be a list, not \(Self.show(countries)): devices assign no one", at: countries, targetingPointer.appending(key: "countries"))
            } else {
                for (index, code) in countries.elements.enumerated() where !Self.isCountryCode(code) {
                    // Not a string: the list is not the SDK's list of codes, so the whole rule
                    // fails closed (`Targeting.countryCodes`), as platforms: ["ios", 5] does.
                    guard code.kind == .string else {
                        add(.targetingRule, "targeting.countries of \(Self.quoted(id)) must be a list of country codes, not one holding \(Self.show(code)): devices assign no one",
                            at: code, targetingPointer.appending(key: "countries").appending(index: index))
                        continue
                    }
                    add(.countryCode, "country \(Self.show(code)) of \(Self.quoted(id)) is not two upper-case letters (ISO 3166-1 alpha-2, as devices report it): codes are compared exactly, so it matches no device",
                        at: code, targetingPointer.appending(key: "countries").appending(index: index))
                }
            }
        }
        if let version = rules.minAppVersion, version.kind != .null, !Self.isPlainVersion(version),
           version.string.flatMap(Targeting.versionParts) == nil {
            add(.targetingRule, "targeting.min_app_version of \(Self.quoted(id)) must be a version such as \"2.1.0\", not \(Self.show(version)): devices assign no one",
                at: version, targetingPointer.appending(key: "min_app_version"))
        }
        if let newUsers = rules.newUsersOnly, newUsers.kind != .null, newUsers.kind != .bool {
            add(.targetingRule, "targeting.new_users_only of \(Self.quoted(id)) must be true or false, not \(Self.show(newUsers)): devices assign no one",
                at: newUsers, targetingPointer.appending(key: "new_users_only"))
        }
        if let traits = rules.userTraits, traits.kind != .null {
            guard traits.kind == .array else {
                add(.targetingRule, "targeting.user_traits of \(Self.quoted(id)) must be a list, not \(Self.kindName(traits)): devices assign no one", at: traits, targetingPointer.appending(key: "user_traits"))
                return
            }
            for (index, rule) in traits.elements.enumerated() {
                if let why = TraitRule.unsatisfiable(rule.value) {
                    add(.targetingRule, "trait rule \(index) of \(Self.quoted(id)): \(why): no user can pass it, devices assign no one",
                        at: rule, targetingPointer.appending(key: "user_traits").appending(index: index))
                } else if let why = TraitRule.textComparison(rule.value) {
                    add(.textComparison, "trait rule \(index) of \(Self.quoted(id)): \(why)",
                        at: rule, targetingPointer.appending(key: "user_traits").appending(index: index))
                }
            }
        }
    }

    /// Two ASCII upper-case letters: an ISO 3166-1 alpha-2 code as devices report it.
    static func isCountryCode(_ text: String?) -> Bool {
        guard let text else { return false }
        return isCountryCode(text.utf8)
    }

    /// The same for a country node, read off the document's bytes: this runs per country of
    /// every experiment (a String per code cost validate 3 %). Only a code written with
    /// escapes, or one that is not a code, makes a String.
    static func isCountryCode(_ node: JSONNode) -> Bool {
        rawUnescaped(node) { isCountryCode($0) } || isCountryCode(node.string)
    }

    static func isCountryCode<Bytes: Collection>(_ bytes: Bytes) -> Bool where Bytes.Element == UInt8 {
        bytes.count == 2 && bytes.allSatisfy { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }
    }
}
