import XCTest
@testable import AppDNACore

/// The assignment decisions of docs/assignment-rules.md, one test each, as `bucket`, the batch
/// and the exposure audit apply them (they share `Eligibility`): malformed rules fail closed
/// without any input, traffic allocation only where the SDK applies it, numbers compare as
/// numbers, platform names without regard to case.
final class AssignmentDecisionTests: XCTestCase {
    func experiment(_ json: String) throws -> ExperimentDefinition {
        ExperimentDefinition(id: "exp", node: try JSONDocument(bytes: Array(json.utf8)).root)
    }

    func outcomes(_ json: String, _ context: UserContext = UserContext(), user: String = "u1") throws -> [RuleOutcome] {
        Eligibility.evaluate(try experiment(json), userID: user, context: context)
    }

    /// Rules whose input is not given, yet fail: no value of that input could pass them.
    func testMalformedRulesFailClosedWithoutInput() throws {
        let cases: [(json: String, rule: String)] = [
            (#"{"status":"running","platforms":"ios"}"#, "platform"),
            (#"{"status":"running","platforms":["ios",3]}"#, "platform"),
            (#"{"status":"running","started_at_ms":0,"targeting":{"new_users_only":"true"}}"#, "new_users_only"),
            (#"{"status":"running","targeting":{"user_traits":[{"trait":"plan","operator":"like","value":"x"}]}}"#, "trait plan"),
            (#"{"status":"running","targeting":{"user_traits":[{"trait":"plan","operator":"in","value":"pro"}]}}"#, "trait plan"),
            (#"{"status":"running","targeting":{"user_traits":[{"trait":"age","operator":"gt","value":true}]}}"#, "trait age"),
            (#"{"status":"running","targeting":{"user_traits":[{"trait":"age","operator":"lte","value":[1]}]}}"#, "trait age"),
        ]
        for (json, rule) in cases {
            let result = try outcomes(json)
            let failed = result.first(where: \.failed)
            XCTAssertEqual(failed?.rule, rule, json)
            XCTAssertTrue(failed?.detail.contains("fails closed") ?? false, "\(json): \(failed?.detail ?? "")")
            XCTAssertFalse(EligibilityVerdict(result).mayAssign, json)
        }
        // new_users_only false is no rule; a well-formed trait rule without the trait stays unknown.
        XCTAssertTrue(try outcomes(#"{"status":"running","targeting":{"new_users_only":false}}"#).allSatisfy(\.passed))
        XCTAssertEqual(try outcomes(#"{"status":"running","targeting":{"user_traits":[{"trait":"age","operator":"gt","value":18}]}}"#).last?.state, .unknown)
    }

    func testTrafficAllocationIsAppliedOnlyByIOSFrom1_0_78() throws {
        // A user outside a 1 % allocation.
        let json = #"{"status":"running","salt":"s","traffic_allocation":0.01}"#
        let user = (0..<1000).map { "user-\($0)" }.first { BucketingScheme.allocationBucket(user: $0, experiment: "exp", salt: "s") >= 100 }!
        func state(_ context: UserContext) throws -> RuleState? { try outcomes(json, context, user: user).first { $0.rule == "traffic_allocation" }?.state }
        XCTAssertEqual(try state(UserContext(platform: "ios")), .failed, "unknown SDK version: the newest")
        XCTAssertEqual(try state(UserContext(platform: "ios", sdkVersion: "1.0.78")), .failed)
        XCTAssertEqual(try state(UserContext(platform: "iOS", sdkVersion: "1.1")), .failed)
        XCTAssertEqual(try state(UserContext(platform: "ios", sdkVersion: "1.0.77")), .passed, "older iOS SDKs ignore it")
        XCTAssertEqual(try state(UserContext(platform: "android")), .passed)
        XCTAssertEqual(try state(UserContext()), .unknown)
        // Not a finite number: no one where applied, nothing changes elsewhere.
        for value in [#""half""#, "true", "{}"] {
            let malformed = #"{"status":"running","salt":"s","traffic_allocation":"# + value + "}"
            XCTAssertEqual(try outcomes(malformed, UserContext(platform: "android")).first { $0.rule == "traffic_allocation" }?.state, .passed, value)
            XCTAssertEqual(try outcomes(malformed, UserContext(platform: "ios")).first { $0.rule == "traffic_allocation" }?.state, .failed, value)
        }
    }

    func testNumericTraitsCompareAsNumbers() throws {
        func passes(_ value: String, _ op: String, _ given: String) throws -> Bool {
            let json = #"{"status":"running","targeting":{"user_traits":[{"trait":"n","operator":""# + op + #"","value":"# + value + "}]}}"
            return try outcomes(json, UserContext(traits: ["n": given])).allSatisfy(\.passed)
        }
        XCTAssertTrue(try passes("5", "eq", "5.0"))
        XCTAssertTrue(try passes("5", "eq", "5"))
        XCTAssertTrue(try passes("5.0", "eq", "5"))
        XCTAssertFalse(try passes("5", "neq", "5.0"))
        XCTAssertTrue(try passes("[1, 5]", "in", "5.00"))
        XCTAssertFalse(try passes(#""5""#, "eq", "5.0"), "a string in the bundle compares as text")
        XCTAssertTrue(try passes("true", "eq", "true"))
    }

    func testPlatformNamesCompareWithoutCase() throws {
        XCTAssertTrue(try outcomes(#"{"status":"running","platforms":["iOS"]}"#, UserContext(platform: "ios")).allSatisfy(\.passed))
        XCTAssertTrue(try outcomes(#"{"status":"running","platforms":["ios"]}"#, UserContext(platform: "IOS")).allSatisfy(\.passed))
        XCTAssertFalse(try outcomes(#"{"status":"running","platforms":["Android"]}"#, UserContext(platform: "ios")).allSatisfy(\.passed))
    }
}
