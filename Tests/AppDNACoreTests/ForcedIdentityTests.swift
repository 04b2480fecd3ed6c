import Foundation
import XCTest
@testable import AppDNACore

/// Issue 51.2: an id a device assigns every forced variant, checked over 100,000 contexts for
/// several forced combinations through the eligibility verdict and bucketing path `bucket`
/// reports with (not through the search's own check), and the refusals checked true.
final class ForcedIdentityTests: XCTestCase {
    func experiments() throws -> [ExperimentDefinition] {
        let data = try Data(contentsOf: Fixtures.directory.appendingPathComponent("bundles/forced-identity.json"))
        return BundleExperiments.all(in: try JSONDocument(bytes: Array(data)).root)
    }

    static let combinations: [[ForcedIdentity.Forced]] = [
        [.init(experiment: "onboarding", variant: "bold")],
        [.init(experiment: "onboarding", variant: "streamlined"), .init(experiment: "paywall", variant: "annual_first")],
        [.init(experiment: "paywall", variant: "control"), .init(experiment: "rare", variant: "rare")],
        [.init(experiment: "onboarding", variant: "control"), .init(experiment: "android_new", variant: "b"), .init(experiment: "rare", variant: "common")],
    ]

    /// A random device context; a field may be missing (then a rule needing it is unknown).
    static func context(_ random: inout SplitMix) -> UserContext {
        func pick<T>(_ values: [T]) -> T { values[Int(random.next() % UInt64(values.count))] }
        var traits: [ByteKey: String] = [:]
        if let plan = pick([Optional("pro"), "team", "free", nil]) { traits["plan"] = plan }
        return UserContext(platform: pick([Optional("ios"), "android", "iOS", nil]), country: pick([Optional("US"), "DE", "FR", nil]),
                           appVersion: pick([Optional("2.0"), "2.4.1", "1.9", nil]), traits: traits,
                           installedAtMs: pick([Optional(Int64(1_764_000_000_000)), 1_770_000_000_000, 1_700_000_000_000, nil]))
    }

    /// Every forced variant for `user` as `bucket USER --bundle` computes it: the verdict
    /// (status, platform, targeting, traffic allocation) on the newest SDK and on one that
    /// ignores traffic allocation, then the variant of the sdk bucket; on iOS with a blank
    /// salt, also the bucket iOS <= 1.0.69 computes.
    func devicesAssign(_ user: String, _ forced: [ForcedIdentity.Forced], _ definitions: [ExperimentDefinition], _ context: UserContext) -> Bool {
        forced.allSatisfy { entry in
            let definition = definitions.first { $0.id == entry.experiment }!
            for sdk in [nil, "1.0.70"] {
                var versioned = context
                versioned.sdkVersion = sdk
                guard Eligibility.verdict(definition, userID: user, context: versioned).verdict == .eligible else { return false }
            }
            let bucket = BucketingScheme.sdk.assign(user: user, experiment: definition.id, salt: definition.salt).bucket
            guard definition.allocation.variant(forBucket: bucket) == entry.variant else { return false }
            if context.platform?.lowercased() == "ios", BucketingScheme.isBlank(definition.salt) {
                let old = "\(definition.id).\(definition.salt).\(user)"  // the literal blank salt, as iOS <= 1.0.69 hashed it
                return definition.allocation.variant(forBucket: MurmurHash3.x86_32(utf8: old) % 10_000) == entry.variant
            }
            return true
        }
    }

    func testAHundredThousandContextsForSeveralCombinations() throws {
        let definitions = try experiments()
        var random = SplitMix(seed: 51)
        var found: [String: String] = [:]
        var figures: [String] = []
        for (index, forced) in Self.combinations.enumerated() {
            var assigned = 0, refused = 0, refusalsChecked = 0
            for _ in 0..<100_000 {
                let context = Self.context(&random)
                switch ForcedIdentity.plan(experiments: definitions, forced: forced, context: context) {
                case .ready(let search):
                    // The search depends on the platform only once the context passes every rule.
                    let key = "\(index) \(context.platform!.lowercased())"
                    if found[key] == nil { found[key] = search.search(prefix: "qa-force-").user }
                    let user = try XCTUnwrap(found[key], "no id for \(forced)")
                    XCTAssertTrue(search.qualifies(user))
                    guard devicesAssign(user, forced, definitions, context) else {
                        return XCTFail("\(user) does not give \(forced) in \(context)")
                    }
                    assigned += 1
                case .refused(let obstacles):
                    refused += 1
                    for obstacle in obstacles {
                        switch obstacle {
                        case .ruleFails(let id, let rule):
                            // The rule fails for every id: none of a sample is eligible.
                            let definition = definitions.first { $0.id == id }!
                            XCTAssertTrue(Eligibility.contextRules(definition, context: context).contains { $0.rule == rule.rule && $0.failed })
                            XCTAssertFalse(Eligibility.verdict(definition, userID: "u", context: context).verdict.mayAssign)
                            refusalsChecked += 1
                        case .contextNeeded(let id, let rule):
                            let definition = definitions.first { $0.id == id }!
                            let unknown = Eligibility.evaluate(definition, userID: "u", context: context).contains { $0.state == .unknown }
                            XCTAssertTrue(unknown || rule.rule == "traffic_allocation", "\(obstacle)")
                            XCTAssertNotNil(rule.settledBy)
                            refusalsChecked += 1
                        default:
                            XCTFail("unexpected \(obstacle)")
                        }
                    }
                }
            }
            XCTAssertGreaterThan(assigned, 1_000, "combination \(index)")
            XCTAssertGreaterThan(refused, 1_000, "combination \(index)")
            figures.append("combination \(index) \(forced.map { "\($0.experiment)=\($0.variant)" }.joined(separator: ",")): \(assigned) contexts assigned by the found id, \(refused) refused (\(refusalsChecked) obstacles checked)")
        }
        print(figures.joined(separator: "\n"))
    }

    func testRequirementsNoIDCanMeetAreNamed() throws {
        let definitions = try experiments()
        let ios = UserContext(platform: "ios", country: "US", appVersion: "2.0", traits: ["plan": "pro"])
        func obstacles(_ forced: [(String, String)], _ context: UserContext = ios) -> [ForcedIdentity.Obstacle] {
            if case .refused(let list) = ForcedIdentity.plan(experiments: definitions, forced: forced.map { .init(experiment: $0.0, variant: $0.1) }, context: context) {
                return list
            }
            return []
        }
        XCTAssertEqual(obstacles([("zero", "b")]), [.variantWithoutBuckets(experiment: "zero", variant: "b")])
        XCTAssertEqual(obstacles([("paused_test", "a")]).map(\.rule), ["status"])
        XCTAssertEqual(obstacles([("android_new", "a")]).map(\.rule), ["platform"])
        var france = ios
        france.country = "FR"
        XCTAssertEqual(obstacles([("onboarding", "bold")], france).map(\.rule), ["countries"])
        XCTAssertEqual(obstacles([("nope", "a")]), [.noSuchExperiment("nope", known: definitions.map(\.id))])
        XCTAssertEqual(obstacles([("onboarding", "nope")]), [.noSuchVariant(experiment: "onboarding", variant: "nope", variants: ["control", "streamlined", "bold"])])
        XCTAssertEqual(obstacles([("onboarding", "bold"), ("onboarding", "control")]), [.forcedTwice(experiment: "onboarding", variants: ["bold", "control"])])
        // Every obstacle is named, not only the first.
        XCTAssertEqual(obstacles([("zero", "b"), ("paused_test", "a"), ("onboarding", "bold")], france).count, 3)
        // No platform: traffic allocation and the old-iOS salt cannot be settled.
        var noPlatform = ios
        noPlatform.platform = nil
        XCTAssertTrue(obstacles([("paywall", "control")], noPlatform).contains { if case .contextNeeded(_, let rule) = $0 { return rule.settledBy == .platform }; return false })
        // Within the budget: 1% × (½ × ½ old iOS × ½ allocation) × 33%, about 2,425 tries.
        let rare = [("rare", "rare"), ("paywall", "control"), ("onboarding", "bold")]
        if case .ready(let plan) = ForcedIdentity.plan(experiments: definitions, forced: rare.map { .init(experiment: $0.0, variant: $0.1) }, context: ios) {
            XCTAssertLessThanOrEqual(plan.expectedTries, ForcedIdentity.maxExpectedTries)
            XCTAssertTrue((plan.expectedTries - 1) * ForcedIdentity.limitFactor...plan.expectedTries * ForcedIdentity.limitFactor ~= plan.limit)
        } else {
            XCTFail("a combination within the budget was refused")
        }
    }

    func testAComboOverTheBudgetIsRefusedWithItsExpectedTries() throws {
        var experiments: [ExperimentDefinition] = []
        for n in 0..<4 {
            let json = #"{"status":"running","salt":"x\#(n)","variants":[{"id":"a","weight":0.99},{"id":"b","weight":0.01}]}"#
            experiments.append(ExperimentDefinition(id: "e\(n)", node: try JSONDocument(bytes: Array(json.utf8)).root))
        }
        let forced = (0..<4).map { ForcedIdentity.Forced(experiment: "e\($0)", variant: "b") }
        guard case .refused(let obstacles) = ForcedIdentity.plan(experiments: experiments, forced: forced, context: UserContext(platform: "android")) else {
            return XCTFail("four 1% variants (10^8 tries) were searched")
        }
        XCTAssertEqual(obstacles, [.tooRare(expectedTries: 100_000_000, limit: ForcedIdentity.maxExpectedTries)])
    }

    func testIdentifyLinesEscapeTheID() {
        XCTAssertEqual(IdentifyLine.swift.line("qa-1"), #"AppDNA.identify(userId: "qa-1")"#)
        XCTAssertEqual(IdentifyLine.kotlin.line(#"a"$b"#), #"AppDNA.identify("a\"\$b")"#)
        XCTAssertEqual(IdentifyLine.reactNative.line("it's"), #"await AppDNA.identify('it\'s');"#)
        XCTAssertEqual(IdentifyLine.flutter.line("a\nb$"), #"await AppDNA.identify('a\u{A}b\$');"#)
        XCTAssertEqual(IdentifyLine.kotlin.line("a\u{202E}"), #"AppDNA.identify("a\u202E")"#)
    }
}

private extension ForcedIdentity.Obstacle {
    var rule: String? {
        switch self {
        case .ruleFails(_, let rule), .contextNeeded(_, let rule): return rule.rule
        default: return nil
        }
    }
}

/// A small seeded generator, so the contexts are the same on every run.
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
