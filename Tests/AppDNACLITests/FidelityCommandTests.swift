import Foundation
import XCTest
@testable import AppDNACLI

/// Issue 32's decisions as a user meets them on the command line: `--trait` names are bytes,
/// countries compare exactly, `--platform` takes only what devices report, `--explain` flags a
/// blank id.
final class FidelityCommandTests: XCTestCase {
    func bundle(_ targeting: String) throws -> String {
        let path = NSTemporaryDirectory() + "appdna-fidelity-\(UUID().uuidString).json"
        try #"{"bundle_version": 1, "experiments": {"e": {"status": "running", "salt": "s", "targeting": \#(targeting), "variants": [{"id": "a", "weight": 1}]}}}"#
            .write(toFile: path, atomically: false, encoding: .utf8)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
        return path
    }

    func eligible(_ arguments: [String]) throws -> String {
        let run = runCLI(["bucket", "u1", "e", "--json"] + arguments)
        XCTAssertEqual(run.status, 0, run.stderr)
        let object = try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any]
        return "\(object?["eligible"] ?? "?")"
    }

    func testATraitGivenInNFCDoesNotSatisfyARuleOnTheNFDName() throws {
        let path = try bundle(#"{"user_traits": [{"trait": "cafe\u0301", "operator": "eq", "value": "x"}]}"#)
        XCTAssertEqual(try eligible(["--bundle", path, "--trait", "caf\u{E9}=x"]), "unknown")
        XCTAssertEqual(try eligible(["--bundle", path, "--trait", "cafe\u{301}=x"]), "1")
        XCTAssertEqual(try eligible(["--bundle", path, "--trait", "caf\u{E9}=y", "--trait", "cafe\u{301}=x"]), "1", "two traits, not one")
    }

    func testCountriesCompareExactly() throws {
        let path = try bundle(#"{"countries": ["US"]}"#)
        XCTAssertEqual(try eligible(["--bundle", path, "--country", "US"]), "1")
        XCTAssertEqual(try eligible(["--bundle", path, "--country", "us"]), "0")
    }

    func testPlatformTakesOnlyWhatDevicesReport() throws {
        let path = try bundle("{}")
        for platform in ["iso", "IOSX", "macos"] {
            let run = runCLI(["bucket", "u1", "e", "--bundle", path, "--platform", platform])
            XCTAssertEqual(run.status, 64, "\(platform): \(run.stdout)")
            XCTAssertTrue(run.stderr.contains("--platform takes one of ios, android, web, not '\(platform)'"), run.stderr)
        }
        XCTAssertEqual(runCLI(["bucket", "u1", "e", "--bundle", path, "--platform", "android"]).status, 0)
        // Issue 52: web, as the warehouse's platform column holds it.
        XCTAssertEqual(runCLI(["bucket", "u1", "e", "--bundle", path, "--platform", "web"]).status, 0)
    }

    /// Issue 44: `--help` and the SQL compare platform names without case, so `--platform iOS`
    /// (as Apple spells it) is iOS, for one user and for the batch alike.
    func testPlatformTakesAnyCaseOfIOSAndAndroid() throws {
        let path = NSTemporaryDirectory() + "appdna-fidelity-\(UUID().uuidString).json"
        try #"{"bundle_version": 1, "experiments": {"e": {"status": "running", "salt": "s", "platforms": ["ios"], "variants": [{"id": "a", "weight": 1}]}}}"#
            .write(toFile: path, atomically: false, encoding: .utf8)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
        for platform in ["iOS", "IOS", "Ios", "ios"] {
            XCTAssertEqual(try eligible(["--bundle", path, "--platform", platform]), "1", platform)
        }
        for platform in ["Android", "ANDROID", "android"] {
            XCTAssertEqual(try eligible(["--bundle", path, "--platform", platform]), "0", platform)
        }
        let batch = runCLI(["bucket", "-", "e", "--bundle", path, "--platform", "iOS", "--format", "csv"], stdin: "u1\n")
        XCTAssertEqual(batch.status, 0, batch.stderr)
        XCTAssertEqual(batch.stdout.split(separator: "\n").last.map(String.init)?.hasSuffix(",a"), true, batch.stdout)
    }

    func testExplainFlagsABlankUserID() throws {
        for user in ["", "  "] {
            let run = runCLI(["bucket", user, "e", "s", "--variants", "a=1", "--explain"])
            XCTAssertEqual(run.status, 0, run.stderr)
            XCTAssertTrue(run.stdout.contains("the user id is " + (user.isEmpty ? "empty" : "only white space")), run.stdout)
        }
    }
}
