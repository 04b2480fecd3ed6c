import XCTest
@testable import AppDNACore

final class EligibilityTests: XCTestCase {
    func experiment(_ json: String, id: String = "exp") throws -> ExperimentDefinition {
        let document = try JSONDocument(bytes: Array(json.utf8))
        return ExperimentDefinition(id: id, node: document.root)
    }

    func firstFailure(_ json: String, user: String = "u1", _ context: UserContext) throws -> String? {
        Eligibility.evaluate(try experiment(json), userID: user, context: context).first { $0.failed }?.rule
    }

    func testRulesAreCheckedInDeviceOrderAndTheFirstFailureIsNamed() throws {
        let json = #"{"status":"paused","platforms":["ios"],"salt":"s","variants":[{"id":"a","weight":1}]}"#
        XCTAssertEqual(try firstFailure(json, UserContext(platform: "android")), "status")
        let running = json.replacingOccurrences(of: "paused", with: "running")
        XCTAssertEqual(try firstFailure(running, UserContext(platform: "android")), "platform")
        XCTAssertNil(try firstFailure(running, UserContext()), "an unknown platform is not checked, not failed")
        XCTAssertNil(try firstFailure(running, UserContext(platform: "ios")))
    }

    func testTargetingRules() throws {
        let json = #"{"status":"running","started_at_ms":1700000000000,"targeting":{"countries":["US","DE"],"min_app_version":"2.10","new_users_only":true,"user_traits":[{"trait":"plan","operator":"in","value":["pro","team"]},{"trait":"age","operator":"gte","value":18},{"trait":"beta","operator":"exists"}]}}"#
        let good = UserContext(country: "DE", appVersion: "2.10.1", traits: ["plan": "pro", "age": "30", "beta": "1"], installedAtMs: 1_700_000_000_000)
        XCTAssertNil(try firstFailure(json, good))
        var context = good
        context.country = "FR"
        XCTAssertEqual(try firstFailure(json, context), "countries")
        context = good
        context.appVersion = "2.9.9"
        XCTAssertEqual(try firstFailure(json, context), "min_app_version", "2.9.9 < 2.10 numerically")
        context = good
        context.installedAtMs = 1_699_999_999_999
        XCTAssertEqual(try firstFailure(json, context), "new_users_only")
        context = good
        context.traits["plan"] = "free"
        XCTAssertEqual(try firstFailure(json, context), "trait plan")
        context = good
        context.traits["age"] = "17"
        XCTAssertEqual(try firstFailure(json, context), "trait age")
        context = good
        context.traits["beta"] = nil
        XCTAssertNil(try firstFailure(json, context), "a trait not given is not checked")
        context.traitsComplete = true
        XCTAssertEqual(try firstFailure(json, context), "trait beta", "…unless the traits given are all the user has")
    }

    func testMalformedTargetingFailsClosed() throws {
        for targeting in [#""US""#, #"{"countries":"US"}"#, #"{"min_app_version":"two"}"#, #"{"new_users_only":true}"#,
                          #"{"user_traits":[{"trait":"x","operator":"like","value":"y"}]}"#, #"{"user_traits":[{"operator":"eq"}]}"#] {
            let json = #"{"status":"running","targeting":"# + targeting + "}"
            XCTAssertNotNil(try firstFailure(json, UserContext(country: "US", appVersion: "1.0", traits: ["x": "y"], installedAtMs: 0)), targeting)
        }
    }

    func testTrafficAllocationUsesTheSecondHashAndRounding() throws {
        let none = #"{"status":"running","salt":"s","traffic_allocation":0}"#
        let all = #"{"status":"running","salt":"s","traffic_allocation":1}"#
        let nan = #"{"status":"running","salt":"s","traffic_allocation":"half"}"#
        let ios = UserContext(platform: "ios")
        XCTAssertEqual(try firstFailure(none, ios), "traffic_allocation")
        XCTAssertNil(try firstFailure(all, ios))
        XCTAssertEqual(try firstFailure(nan, ios), "traffic_allocation")
        XCTAssertNil(try firstFailure(nan, UserContext(platform: "android")), "Android does not apply traffic allocation, however malformed")
        XCTAssertNil(try firstFailure(nan, UserContext(platform: "ios", sdkVersion: "1.0.77")), "nor iOS before 1.0.78")
        // Brute force: about 30 % of users are in at 0.3.
        let experiment = try experiment(#"{"status":"running","salt":"s","traffic_allocation":0.3}"#)
        let inCount = (0..<20_000).filter { Eligibility.evaluate(experiment, userID: "user-\($0)", context: ios).allSatisfy(\.passed) }.count
        XCTAssertEqual(Double(inCount) / 20_000, 0.3, accuracy: 0.015)
        let bucket = BucketingScheme.allocationBucket(user: "u", experiment: "exp", salt: "s")
        XCTAssertEqual(bucket, MurmurHash3.x86_32(utf8: "exp.s.u.allocation") % 10_000)
    }

    // MARK: - the third state: a rule whose input was not given is not checked

    func verdict(_ json: String, user: String = "u1", _ context: UserContext) throws -> (outcomes: [RuleOutcome], verdict: EligibilityVerdict) {
        Eligibility.verdict(try experiment(json), userID: user, context: context)
    }

    /// For every rule kind: without its input the rule is `unknown`, names the input that would
    /// settle it, and the walk goes on; with the input given, it passes or fails closed.
    func testEveryRuleKindIsUnknownWithoutItsInputAndDecidedWithIt() throws {
        let cases: [(rule: String, json: String, input: ContextInput, passing: UserContext, failing: UserContext)] = [
            ("platform", #"{"status":"running","platforms":["ios","android"]}"#, .platform,
             UserContext(platform: "android"), UserContext(platform: "web")),
            ("countries", #"{"status":"running","targeting":{"countries":["US","CA"]}}"#, .country,
             UserContext(country: "CA"), UserContext(country: "FR")),
            ("min_app_version", #"{"status":"running","targeting":{"min_app_version":"2.4"}}"#, .appVersion,
             UserContext(appVersion: "2.10"), UserContext(appVersion: "2.3.9")),
            ("new_users_only", #"{"status":"running","started_at_ms":1000,"targeting":{"new_users_only":true}}"#, .installedAt,
             UserContext(installedAtMs: 1000), UserContext(installedAtMs: 999)),
            ("trait plan", #"{"status":"running","targeting":{"user_traits":[{"trait":"plan","operator":"eq","value":"free"}]}}"#, .trait("plan"),
             UserContext(traits: ["plan": "free"]), UserContext(traits: ["plan": "pro"])),
            ("traffic_allocation", #"{"status":"running","salt":"s","traffic_allocation":0}"#, .platform,
             UserContext(platform: "android"), UserContext(platform: "ios")),
        ]
        for item in cases {
            let unknown = try verdict(item.json, UserContext())
            let outcome = try XCTUnwrap(unknown.outcomes.first { $0.rule == item.rule }, item.rule)
            XCTAssertEqual(outcome.state, .unknown, item.rule)
            XCTAssertEqual(outcome.settledBy, item.input, item.rule)
            XCTAssertEqual(unknown.verdict, .unknown(unchecked: [outcome]), item.rule)
            XCTAssertTrue(unknown.verdict.mayAssign, "\(item.rule): unknown is not failure")

            XCTAssertEqual(try verdict(item.json, item.passing).verdict, .eligible, item.rule)
            let failing = try verdict(item.json, item.failing).verdict
            XCTAssertEqual(failing.failedRule?.rule, item.rule, "\(item.rule): given context fails closed")
            XCTAssertFalse(failing.mayAssign, item.rule)
        }
    }

    func testUnknownRulesDoNotHideALaterFailureAndAFailureStopsTheWalk() throws {
        let json = #"{"status":"running","platforms":["ios"],"targeting":{"countries":["US"],"min_app_version":"3.0"}}"#
        let result = try verdict(json, UserContext(appVersion: "2.0"))
        XCTAssertEqual(result.outcomes.map(\.rule), ["status", "platform", "countries", "min_app_version"])
        XCTAssertEqual(result.outcomes.map(\.state), [.passed, .unknown, .unknown, .failed])
        XCTAssertEqual(result.verdict.failedRule?.rule, "min_app_version")
        XCTAssertEqual(try verdict(json, UserContext(appVersion: "3.0")).verdict.uncheckedRules.map(\.rule), ["platform", "countries"])
        // Malformed targeting still fails closed without any context.
        XCTAssertEqual(try verdict(#"{"status":"running","targeting":{"countries":"US"}}"#, UserContext()).verdict.failedRule?.rule, "countries")
    }

    func testTrafficAllocationInsideTheShareIsDecidedWithoutAPlatform() throws {
        let json = #"{"status":"running","salt":"s","traffic_allocation":1}"#
        XCTAssertEqual(try verdict(json, UserContext()).verdict, .eligible)
    }
}
