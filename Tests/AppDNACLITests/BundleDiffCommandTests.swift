import Foundation
import XCTest
@testable import AppDNACLI

final class BundleDiffCommandTests: XCTestCase {
    func file(_ contents: String) throws -> String {
        let path = NSTemporaryDirectory() + "appdna-diff-\(UUID().uuidString).json"
        try contents.write(toFile: path, atomically: false, encoding: .utf8)
        addTeardownBlock { try? FileManager.default.removeItem(atPath: path) }
        return path
    }

    let old = #"{"bundle_version": 1, "generated_at": "a", "experiments": {"e": {"status": "running", "salt": "s", "variants": [{"id": "a", "weight": 0.5}, {"id": "b", "weight": 0.5}]}}}"#
    let new = #"{"bundle_version": 2, "generated_at": "b", "experiments": {"e": {"status": "running", "salt": "s", "variants": [{"id": "a", "weight": 0.25}, {"id": "b", "weight": 0.75}]}}}"#

    func testStatusesAndText() throws {
        let a = try file(old), b = try file(new)
        XCTAssertEqual(runCLI(["bundle", "diff", a, a]).status, 0)
        XCTAssertEqual(runCLI(["bundle", "diff", a, a]).stdout, "")
        let run = runCLI(["bundle", "diff", a, b])
        XCTAssertEqual(run.status, 1)
        XCTAssertEqual(run.stdout, """
        ~ /bundle_version  1 → 2
        ~ /generated_at  "a" → "b"
        ~ /experiments/e/variants/0/weight  0.5 → 0.25
        ~ /experiments/e/variants/1/weight  0.5 → 0.75
        note: "e": 25.0% of users in the experiment change variant (2500 of 10000 buckets: a → b 2500)

        """)
        XCTAssertEqual(runCLI(["bundle", "diff", a, "-"], stdin: "\n\n{\"x\": }").status, 65)
        XCTAssertTrue(runCLI(["bundle", "diff", a, "-"], stdin: "\n\n{\"x\": }").stderr.hasPrefix("appdna: <stdin>:3:7: not JSON: "))
        XCTAssertEqual(runCLI(["bundle", "diff", a, "/nonexistent.json"]).status, 66)
        XCTAssertEqual(runCLI(["bundle", "diff", a, "@live"]).status, 64, "only @remote names the live bundle")
        XCTAssertEqual(runCLI(["bundle", "diff", a, "@remote"]).status, 78, "no key: a configuration error before any request")
        XCTAssertEqual(runCLI(["bundle", "diff", "-", "-"]).status, 64)
        XCTAssertEqual(runCLI(["bundle", "diff", "--ignore", "x", a, b]).status, 64)
    }

    func testIgnore() throws {
        let a = try file(old), b = try file(new.replacingOccurrences(of: "0.25", with: "0.5").replacingOccurrences(of: "0.75", with: "0.5"))
        let run = runCLI(["bundle", "diff", "--ignore", "/generated_at", "--ignore=/bundle_version", a, b])
        XCTAssertEqual(run.status, 0)
        XCTAssertEqual(run.stdout, "")
    }

    func testPatchAndJSONAndStat() throws {
        let a = try file(old), b = try file(new)
        let patch = runCLI(["bundle", "diff", "--format", "patch", a, b])
        XCTAssertEqual(patch.status, 1)
        let operations = try JSONSerialization.jsonObject(with: Data(patch.stdout.utf8)) as! [[String: Any]]
        XCTAssertEqual(operations.map { $0["path"] as! String }, ["/bundle_version", "/generated_at", "/experiments/e/variants/0/weight", "/experiments/e/variants/1/weight"])
        XCTAssertEqual(runCLI(["bundle", "diff", "--format", "patch", a, a]).stdout, "[]\n")

        let json = runCLI(["bundle", "diff", "--format", "json", a, b])
        let object = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as! [String: Any]
        XCTAssertEqual(object["same"] as? Bool, false)
        let change = (object["changes"] as! [[String: Any]])[2]
        XCTAssertEqual(change["op"] as? String, "replace")
        XCTAssertEqual(change["old"] as? Double, 0.5)
        XCTAssertEqual(change["new"] as? Double, 0.25)
        let note = (object["notes"] as! [[String: Any]])[0]
        XCTAssertEqual(note["kind"] as? String, "assignment_changed")
        XCTAssertEqual(note["share"] as? Double, 0.25)
        XCTAssertEqual(note["buckets"] as? Int, 2500)

        XCTAssertEqual(runCLI(["bundle", "diff", "--stat", a, b]).stdout, """
         bundle_version | 1 (1 changed)
         generated_at   | 1 (1 changed)
         experiments    | 2 (2 changed)
         3 sections changed, 4 changes: 0 added, 0 removed, 4 changed, 0 moved; 1 note

        """)
    }
}
