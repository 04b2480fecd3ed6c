import Foundation
import XCTest
import TestSupport
@testable import AppDNACore

/// The `json-reserialised` candidate's layouts are byte-identical to what Python's json.dumps
/// writes with the same options, and the candidate names the layout that matched. (Numbers are
/// written as they were in the body; Python would turn `1e2` into `100.0`: not modelled.)
final class WebhookReserialisationTests: XCTestCase {
    static let body = #"{"type":"payment.completed","id":"evt-1","created_at":"2026-02-19T10:00:00Z","data":{"note":"café ☕ 𝄞 \"q\" \\ \n\t\u0001","list":[1,2.5,-300.25,true,false,null,[],{}],"empty":{}}}"#

    func python(_ options: String) throws -> [UInt8] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try requireTool("python3", because: "json.dumps is the reference layout"))
        process.arguments = ["-c", "import json,sys; sys.stdout.buffer.write(json.dumps(json.loads(sys.stdin.buffer.read())\(options)).encode())"]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(Data(Self.body.utf8))
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "python3's json.dumps failed")
        return Array(data)
    }

    func testLayoutsMatchPythonJSONDumps() throws {
        let value = try JSONValue(parsing: Array(Self.body.utf8))
        typealias Layout = JSONReserialisation.Layout
        let cases: [(String, Layout)] = [
            ("", Layout(itemSeparator: ", ", keySeparator: ": ", escapeNonASCII: true)),
            (", ensure_ascii=False", Layout(itemSeparator: ", ", keySeparator: ": ")),
            (", sort_keys=True", Layout(itemSeparator: ", ", keySeparator: ": ", sortKeys: true, escapeNonASCII: true)),
            (", separators=(',', ':'), ensure_ascii=False", Layout()),
            (", separators=(',', ':'), ensure_ascii=False, sort_keys=True", Layout(sortKeys: true)),
            (", indent=2, ensure_ascii=False", Layout(keySeparator: ": ", indent: 2)),
            (", indent=4", Layout(keySeparator: ": ", indent: 4, escapeNonASCII: true)),
            (", indent=2, sort_keys=True", Layout(keySeparator: ": ", indent: 2, sortKeys: true, escapeNonASCII: true)),
        ]
        for (options, layout) in cases {
            XCTAssertEqual(String(decoding: JSONReserialisation.write(value, layout: layout), as: UTF8.self),
                           String(decoding: try python(options), as: UTF8.self), "json.dumps(…\(options))")
        }
    }

    func testTheCandidateNamesTheLayoutAndIgnoresByteLevelEdits() throws {
        let secret = try WebhookSecret("s3cr3t-key", source: "test")
        let compact = #"{"id":"evt-1","type":"x","created_at":"2026-02-19T10:00:00Z","data":{}}"#
        let pretty = "{\n    \"id\": \"evt-1\",\n    \"type\": \"x\",\n    \"created_at\": \"2026-02-19T10:00:00Z\",\n    \"data\": {}\n}"
        let signature = HMACSHA256.authenticationCode(for: Array(pretty.utf8), key: secret.bytes)
        let explanation = MismatchExplainer.explain(body: Array(compact.utf8), provided: .sha256(signature), secrets: [secret])
        XCTAssertEqual(explanation.diagnosisIDs, ["json-reserialised"])
        XCTAssertTrue(explanation.diagnoses[0].sentence.contains("pretty-printed with 4-space indentation"), explanation.diagnoses[0].sentence)

        // A trailing newline is named as such, not also as a re-serialisation.
        let signed = HMACSHA256.authenticationCode(for: Array(compact.utf8), key: secret.bytes)
        let withNewline = MismatchExplainer.explain(body: Array((compact + "\n").utf8), provided: .sha256(signed), secrets: [secret])
        XCTAssertEqual(withNewline.diagnosisIDs, ["trailing-newline-added"])

        // Not JSON: nothing to re-serialise.
        XCTAssertEqual(JSONReserialisation.variants(of: Array("not json".utf8)).count, 0)
        // Over the limit: skipped with a note.
        let big = MismatchExplainer.explain(body: Array(repeating: 0x20, count: JSONReserialisation.maxBodyBytes + 1),
                                            provided: .sha256(signed), secrets: [secret])
        XCTAssertTrue(big.notes.contains { $0.contains("json-reserialised was not tried") }, "\(big.notes)")
    }
}
