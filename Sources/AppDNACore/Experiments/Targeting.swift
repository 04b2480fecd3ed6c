/// The `targeting` object of an experiment: countries, minimum app version, new users only and
/// user traits. Every rule that cannot be read fails closed (the user is not eligible), as
/// devices do, and says why.
enum Targeting {
    static func evaluate(_ targeting: JSONValue, context: UserContext, startedAtMs: Int64?) -> [RuleOutcome] {
        guard case .object(let rules) = targeting else {
            return [RuleOutcome(rule: "targeting", passed: false, detail: "targeting is not an object: fails closed")]
        }
        var outcomes: [RuleOutcome] = []

        if let countries = rules["countries"], countries != .null {
            guard case .array(let list) = countries else {
                return outcomes + [RuleOutcome(rule: "countries", passed: false, detail: "countries is not a list: fails closed")]
            }
            let codes = list.compactMap { value -> String? in if case .string(let s) = value { return s.uppercased() } else { return nil } }
            guard let country = context.country?.uppercased() else {
                return outcomes + [RuleOutcome(rule: "countries", passed: false, detail: "targets countries [\(codes.joined(separator: ", "))]; say which with --country")]
            }
            let passed = codes.contains(country)
            outcomes.append(RuleOutcome(rule: "countries", passed: passed, detail: "\(country) " + (passed ? "is" : "is not") + " in [\(codes.joined(separator: ", "))]"))
            if !passed { return outcomes }
        }

        if let minimum = rules["min_app_version"], minimum != .null {
            guard case .string(let required) = minimum, let requiredParts = versionParts(required) else {
                return outcomes + [RuleOutcome(rule: "min_app_version", passed: false, detail: "min_app_version is not a version: fails closed")]
            }
            guard let version = context.appVersion else {
                return outcomes + [RuleOutcome(rule: "min_app_version", passed: false, detail: "needs app version >= \(required); say which with --app-version")]
            }
            guard let parts = versionParts(version) else {
                return outcomes + [RuleOutcome(rule: "min_app_version", passed: false, detail: "app version '\(version)' is not a version: fails closed")]
            }
            let passed = compareVersions(parts, requiredParts) >= 0
            outcomes.append(RuleOutcome(rule: "min_app_version", passed: passed, detail: "\(version) " + (passed ? ">=" : "<") + " \(required)"))
            if !passed { return outcomes }
        }

        if case .bool(true) = rules["new_users_only"] ?? .null {
            guard let started = startedAtMs else {
                return outcomes + [RuleOutcome(rule: "new_users_only", passed: false, detail: "new_users_only without started_at_ms: fails closed")]
            }
            guard let installed = context.installedAtMs else {
                return outcomes + [RuleOutcome(rule: "new_users_only", passed: false, detail: "new users only (installed at or after \(Timestamp.iso8601(milliseconds: started))); say when with --installed-at")]
            }
            let passed = installed >= started
            outcomes.append(RuleOutcome(rule: "new_users_only", passed: passed, detail: "installed \(Timestamp.iso8601(milliseconds: installed)) " + (passed ? ">=" : "<") + " started \(Timestamp.iso8601(milliseconds: started))"))
            if !passed { return outcomes }
        }

        if let traits = rules["user_traits"], traits != .null {
            guard case .array(let list) = traits else {
                return outcomes + [RuleOutcome(rule: "user_traits", passed: false, detail: "user_traits is not a list: fails closed")]
            }
            for rule in list {
                let outcome = TraitRule.evaluate(rule, traits: context.traits)
                outcomes.append(outcome)
                if !outcome.passed { return outcomes }
            }
        }
        return outcomes
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
