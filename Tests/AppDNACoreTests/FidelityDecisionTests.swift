import XCTest
@testable import AppDNACore

/// The decisions an independent reference found the tool off on (issue 32): trait names and
/// countries are bytes, a numeric operator against a string compares text, blank ids are
/// flagged, a flag key renamed only in Unicode normalisation is called so.
final class FidelityDecisionTests: XCTestCase {
    func outcomes(_ json: String, _ context: UserContext) throws -> [RuleOutcome] {
        Eligibility.evaluate(ExperimentDefinition(id: "exp", node: try JSONDocument(bytes: Array(json.utf8)).root), userID: "u1", context: context)
    }

    func rule(_ trait: String, _ op: String, _ value: String) -> String {
        #"{"status":"running","targeting":{"user_traits":[{"trait":"\#(trait)","operator":"\#(op)","value":\#(value)}]}}"#
    }

    func codes(_ json: String) -> [String] {
        BundleValidator.validate(bytes: Array(json.utf8)).map(\.code)
    }

    // MARK: - Trait names are bytes

    func testATraitNameIsItsBytes() throws {
        let nfd = rule("cafe\u{301}", "eq", #""x""#)
        // `--trait café=x` (NFC) does not give the NFD trait: the rule stays unknown, or fails
        // when the given traits are all the user has.
        XCTAssertEqual(try outcomes(nfd, UserContext(traits: ["caf\u{E9}": "x"])).last?.state, .unknown)
        XCTAssertEqual(try outcomes(nfd, UserContext(traits: ["caf\u{E9}": "x"], traitsComplete: true)).last?.state, .failed)
        XCTAssertEqual(try outcomes(nfd, UserContext(traits: ["cafe\u{301}": "x"])).last?.state, .passed)
        // The two spellings are two traits, each with its own value.
        let both: [ByteKey: String] = ["caf\u{E9}": "y", "cafe\u{301}": "x"]
        XCTAssertEqual(both.count, 2)
        XCTAssertEqual(try outcomes(nfd, UserContext(traits: both)).last?.state, .passed)
        XCTAssertEqual(try outcomes(rule("caf\u{E9}", "eq", #""x""#), UserContext(traits: both)).last?.state, .failed)
    }

    // MARK: - Countries are bytes

    func testCountryCodesCompareExactly() throws {
        let targeting = #"{"status":"running","targeting":{"countries":["US","ca"]}}"#
        XCTAssertEqual(try outcomes(targeting, UserContext(country: "US")).last?.state, .passed)
        XCTAssertEqual(try outcomes(targeting, UserContext(country: "us")).last?.state, .failed, "devices report upper case")
        XCTAssertEqual(try outcomes(targeting, UserContext(country: "CA")).last?.state, .failed, "\"ca\" in the bundle matches no device")
        XCTAssertEqual(try outcomes(targeting, UserContext(country: "ca")).last?.state, .passed)
    }

    func testTheValidatorWarnsAboutACountryThatIsNotTwoUpperCaseLetters() {
        let bundle = { (codes: String) in #"{"bundle_version":1,"experiments":{"e":{"status":"running","salt":"s","variants":[{"id":"a","weight":1}],"targeting":{"countries":[\#(codes)]}}}}"# }
        XCTAssertEqual(codes(bundle(#""US","GB""#)), [])
        XCTAssertEqual(codes(bundle(#""us","USA","U1","","É1""#)), Array(repeating: "W011", count: 5))
        // Not a string: the list is malformed (issue 44.3), an error, not a warning.
        XCTAssertEqual(codes(bundle(#""us",1"#)).sorted(), ["E018", "W011"])
        // Written with escapes: judged by the text, not the bytes in the file.
        XCTAssertEqual(codes(bundle(#""\u0055S","G\u0042""#)), [])
        XCTAssertEqual(codes(bundle(#""\u0075s","U\u00c9""#)), ["W011", "W011"])
    }

    /// Issue 44.3: an element of the wrong type makes the list malformed, and malformed
    /// targeting fails closed: for the country the list also holds, and whatever the trait.
    func testAListWithAnElementOfTheWrongTypeFailsClosed() throws {
        for list in [#"["US", 5]"#, #"["US", null]"#, #"["US", true]"#, #"["US", ["DE"]]"#, #"["US", {}]"#] {
            let targeting = #"{"status":"running","targeting":{"countries":\#(list)}}"#
            let outcome = try outcomes(targeting, UserContext(country: "US")).last
            XCTAssertEqual(outcome?.rule, "countries", list)
            XCTAssertEqual(outcome?.state, .failed, list)
            XCTAssertEqual(try outcomes(targeting, UserContext()).last?.state, .failed, "\(list): fails without a country too")
        }
        XCTAssertEqual(try outcomes(#"{"status":"running","targeting":{"countries":["US", "DE"]}}"#, UserContext(country: "US")).last?.state, .passed)
        for value in [#"["a", null]"#, #"["a", {"b": 1}]"#, #"["a", ["b"]]"#] {
            XCTAssertEqual(try outcomes(rule("tier", "in", value), UserContext(traits: ["tier": "a"])).last?.state, .failed, value)
            XCTAssertEqual(try outcomes(rule("tier", "in", value), UserContext()).last?.state, .failed, "\(value): never unknown")
        }
        XCTAssertEqual(try outcomes(rule("tier", "in", #"["a", 1, true]"#), UserContext(traits: ["tier": "a"])).last?.state, .passed)
    }

    // MARK: - A numeric operator against a string compares text

    func testANumericOperatorAgainstAStringComparesText() throws {
        func state(_ op: String, _ value: String, _ given: String) throws -> RuleState? {
            try outcomes(rule("age", op, value), UserContext(traits: ["age": given])).last?.state
        }
        XCTAssertEqual(try state("gt", #""18""#, "9"), .passed, "\"9\" sorts after \"18\"")
        XCTAssertEqual(try state("gt", #""18""#, "20"), .passed)
        XCTAssertEqual(try state("lt", #""18""#, "100"), .passed, "\"100\" sorts before \"18\"")
        XCTAssertEqual(try state("gte", #""18""#, "18"), .passed)
        XCTAssertEqual(try state("lte", #""b""#, "a"), .passed, "any string: text")
        XCTAssertEqual(try state("gt", #""b""#, "a"), .failed)
        XCTAssertEqual(try state("gt", #""caf\u00e9""#, "cafe\u{301}"), .failed, "bytes: U+0065 U+0301 sorts before U+00E9")
        // A number in the bundle still compares numbers.
        XCTAssertEqual(try state("gt", "18", "9"), .failed)
        XCTAssertEqual(try state("gt", "18", "20.5"), .passed)
        // A boolean, list or object: no value can pass.
        XCTAssertEqual(try outcomes(rule("age", "gt", "true"), UserContext()).last?.state, .failed)
    }

    func testTheValidatorWarnsAboutANumericOperatorAgainstAString() {
        let bundle = { (op: String, value: String) in
            #"{"bundle_version":1,"experiments":{"e":{"status":"running","salt":"s","variants":[{"id":"a","weight":1}],"targeting":{"user_traits":[{"trait":"age","operator":"\#(op)","value":\#(value)}]}}}}"#
        }
        XCTAssertEqual(codes(bundle("gt", #""18""#)), ["W012"])
        XCTAssertEqual(codes(bundle("lte", #""beta""#)), ["W012"])
        XCTAssertEqual(codes(bundle("gt", "18")), [])
        XCTAssertEqual(codes(bundle("eq", #""18""#)), [])
        XCTAssertEqual(codes(bundle("gt", "true")), ["E018"])
        let message = BundleValidator.validate(bytes: Array(bundle("gt", #""18""#).utf8)).first?.message ?? ""
        XCTAssertTrue(message.contains("compares text") && message.contains("write 18 without quotes"), message)
    }

    // MARK: - Blank ids

    func testExplainFlagsABlankUserOrExperimentID() {
        func blank(_ user: String, _ experiment: String) -> [String] {
            PortabilityHazards.check(user: user, experiment: experiment, salt: "s", scheme: .sdk).filter { $0.code == "blank-id" }.map(\.message)
        }
        XCTAssertEqual(blank("", "exp").count, 1)
        XCTAssertTrue(blank("", "exp").first?.hasPrefix("the user id is empty") ?? false, "\(blank("", "exp"))")
        XCTAssertTrue(blank(" \t", "exp").first?.hasPrefix("the user id is only white space") ?? false)
        XCTAssertTrue(blank("\u{3000}", "exp").first?.contains("user id") ?? false, "Unicode white space too")
        XCTAssertTrue(blank("u1", "  ").first?.hasPrefix("the experiment id is only white space") ?? false)
        XCTAssertEqual(blank(" u1 ", "exp"), [], "white space around text is the other hazard")
    }

    // MARK: - A flag key renamed NFC → NFD

    func testAFlagKeyRenamedOnlyInNormalisationIsSaidSo() throws {
        let old = #"{"bundle_version":1,"feature_flags":{"caf\u00e9":true}}"#
        let new = #"{"bundle_version":2,"feature_flags":{"cafe\u0301":true}}"#
        let notes = BundleDiff(old: try JSONDocument(bytes: Array(old.utf8)).root, new: try JSONDocument(bytes: Array(new.utf8)).root).notes.map(\.message)
        XCTAssertEqual(notes, [
            "flag \"cafe\u{301}\" added (it differs from caf\u{E9} only in Unicode normalisation: NFD vs NFC: a new flag to devices, which look keys up by their bytes): true",
            "flag \"caf\u{E9}\" removed (it differs from cafe\u{301} only in Unicode normalisation: NFC vs NFD): the app falls back to its default",
        ])
    }
}
