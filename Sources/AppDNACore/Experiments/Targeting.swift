/// The `targeting` object of an experiment: countries, minimum app version, new users only and
/// user traits. Every rule that cannot be read fails closed (the user is not eligible), as
/// devices do, and says why.
enum Targeting {
    /// The rules in device order, up to and including the first that fails. A rule whose input
    /// was not given is `unknown` (with the flag that would settle it) and the walk goes on.
    static func evaluate(_ targeting: JSONValue, context: UserContext, startedAtMs: Int64?) -> [RuleOutcome] {
        guard case .object(let rules) = targeting else {
            return [RuleOutcome(rule: "targeting", passed: false, detail: "targeting is not an object: fails closed")]
        }
        var outcomes: [RuleOutcome] = []
        for outcome in [countries(rules["countries"], context), appVersion(rules["min_app_version"], context),
                        newUsers(rules["new_users_only"], context, startedAtMs: startedAtMs)].compactMap({ $0 }) {
            outcomes.append(outcome)
            if outcome.failed { return outcomes }
        }
        if let traits = rules["user_traits"], traits != .null {
            guard case .array(let list) = traits else {
                return outcomes + [RuleOutcome(rule: "user_traits", passed: false, detail: "user_traits is not a list: fails closed")]
            }
            for rule in list {
                let outcome = TraitRule.evaluate(rule, context: context)
                outcomes.append(outcome)
                if outcome.failed { return outcomes }
            }
        }
        return outcomes
    }

    /// Country codes are compared byte for byte: the platform facts give them as ISO alpha-2
    /// upper case and say nothing of case-insensitive matching in the SDKs, so `"us"` in the
    /// bundle matches no device reporting `US` (`bundle validate` warns about it, W015), and the
    /// warehouse SQL compares the same way.
    static func countries(_ value: JSONValue?, _ context: UserContext) -> RuleOutcome? {
        guard let value, value != .null else { return nil }
        guard let codes = countryCodes(value) else {
            return RuleOutcome(rule: "countries", passed: false, detail: "countries is not a list of country codes (strings): fails closed")
        }
        guard let country = context.country else {
            return .unknown("countries", "targets [\(codes.joined(separator: ", "))]; no country given", settledBy: .country)
        }
        let passed = codes.contains { ByteIdentity.same($0, country) }
        return RuleOutcome(rule: "countries", passed: passed, detail: "\(country) " + (passed ? "is" : "is not") + " in [\(codes.joined(separator: ", "))]")
    }

    /// The codes of a `countries` list; nil when it is not a list of strings. A list with one
    /// element of another type (`["US", 5]`) does not decode as the SDK's list of strings, so
    /// the whole rule is malformed and fails closed, as `platforms: ["ios", 5]` does, rather
    /// than being read as its strings alone.
    static func countryCodes(_ value: JSONValue) -> [String]? {
        guard case .array(let list) = value else { return nil }
        var codes: [String] = []
        for element in list {
            guard case .string(let code) = element else { return nil }
            codes.append(code)
        }
        return codes
    }

    static func appVersion(_ value: JSONValue?, _ context: UserContext) -> RuleOutcome? {
        guard let value, value != .null else { return nil }
        guard case .string(let required) = value, let requiredParts = versionParts(required) else {
            return RuleOutcome(rule: "min_app_version", passed: false, detail: "min_app_version is not a version: fails closed")
        }
        guard let version = context.appVersion else {
            return .unknown("min_app_version", "needs app version >= \(required); no app version given", settledBy: .appVersion)
        }
        guard let parts = versionParts(version) else {
            return RuleOutcome(rule: "min_app_version", passed: false, detail: "app version '\(version)' is not a version: fails closed")
        }
        let passed = compareVersions(parts, requiredParts) >= 0
        return RuleOutcome(rule: "min_app_version", passed: passed, detail: "\(version) " + (passed ? ">=" : "<") + " \(required)")
    }

    static func newUsers(_ value: JSONValue?, _ context: UserContext, startedAtMs: Int64?) -> RuleOutcome? {
        switch value ?? .null {
        case .null, .bool(false): return nil
        case .bool(true): break
        default:
            // "true" as a string is not a boolean to the SDK's decoder: the rule fails closed.
            return RuleOutcome(rule: "new_users_only", passed: false, detail: "new_users_only is not a boolean: fails closed")
        }
        guard let started = startedAtMs else {
            return RuleOutcome(rule: "new_users_only", passed: false, detail: "new_users_only without started_at_ms: fails closed")
        }
        guard let installed = context.installedAtMs else {
            return .unknown("new_users_only", "new users only (installed at or after \(Timestamp.iso8601(milliseconds: started))); no install time given",
                            settledBy: .installedAt)
        }
        let passed = installed >= started
        return RuleOutcome(rule: "new_users_only", passed: passed, detail: "installed \(Timestamp.iso8601(milliseconds: installed)) " + (passed ? ">=" : "<") + " started \(Timestamp.iso8601(milliseconds: started))")
    }

    /// `1.10.2` → [1, 10, 2]; nil when any part is not a number.
    static func versionParts(_ text: String) -> [Int]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false).map { Int($0) }
        guard !parts.isEmpty, parts.allSatisfy({ $0 != nil && $0! >= 0 }) else { return nil }
        return parts.map { $0! }
    }

    /// Numeric, part by part; missing parts count as 0 (1.2 == 1.2.0).
    static func compareVersions(_ a: [Int], _ b: [Int]) -> Int {
        for index in 0..<max(a.count, b.count) {
            let x = index < a.count ? a[index] : 0, y = index < b.count ? b[index] : 0
            if x != y { return x < y ? -1 : 1 }
        }
        return 0
    }
}
