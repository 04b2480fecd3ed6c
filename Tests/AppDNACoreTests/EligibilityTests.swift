import XCTest
@testable import AppDNACore

final class EligibilityTests: XCTestCase {
    func experiment(_ json: String, id: String = "exp") throws -> ExperimentDefinition {
        let document = try JSONDocument(bytes: Array(json.utf8))
        return ExperimentDefinition(id: id, node: document.root)
    }

    func firstFailure(_ json: String, user: String = "u1", _ context: UserContext) throws -> String? {
        Eligibility.evaluate(try experiment(json), userID: user, context: context).first { !$0.passed }?.rule
    }

    func testRulesAreCheckedInDeviceOrderAndTheFirstFailureIsNamed() throws {
        let json = #"{"status":"paused","platforms":["ios"],"salt":"s","variants":[{"id":"a","weight":1}]}"#
        XCTAssertEqual(try firstFailure(json, UserContext(platform: "android")), "status")
        let running = json.replacingOccurrences(of: "paused", with: "running")
        XCTAssertEqual(try firstFailure(running, UserContext(platform: "android")), "platform")
        XCTAssertEqual(try firstFailure(running, UserContext()), "platform", "an unknown platform fails closed")
        XCTAssertNil(try firstFailure(running, UserContext(platform: "ios")))
    }

    func testTargetingRules() throws {
        let json = #"{"status":"running","started_at_ms":1700000000000,"targeting":{"countries":["US","DE"],"min_app_version":"2.10","new_users_only":true,"user_traits":[{"trait":"plan","operator":"in","value":["pro","team"]},{"trait":"age","operator":"gte","value":18},{"trait":"beta","operator":"exists"}]}}"#
        let good = UserContext(country: "de", appVersion: "2.10.1", traits: ["plan": "pro", "age": "30", "beta": "1"], installedAtMs: 1_700_000_000_000)
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
        XCTAssertEqual(try firstFailure(json, context), "trait beta")
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
        XCTAssertEqual(try firstFailure(none, UserContext()), "traffic_allocation")
        XCTAssertNil(try firstFailure(all, UserContext()))
        XCTAssertEqual(try firstFailure(nan, UserContext()), "traffic_allocation")
        // Brute force: about 30 % of users are in at 0.3.
        let experiment = try experiment(#"{"status":"running","salt":"s","traffic_allocation":0.3}"#)
        let inCount = (0..<20_000).filter { Eligibility.evaluate(experiment, userID: "user-\($0)", context: UserContext()).allSatisfy(\.passed) }.count
        XCTAssertEqual(Double(inCount) / 20_000, 0.3, accuracy: 0.015)
        let bucket = BucketingScheme.allocationBucket(user: "u", experiment: "exp", salt: "s")
        XCTAssertEqual(bucket, MurmurHash3.x86_32(utf8: "exp.s.u.allocation") % 10_000)
    }
}
