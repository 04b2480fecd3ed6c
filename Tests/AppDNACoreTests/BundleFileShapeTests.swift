import Foundation
import XCTest
@testable import AppDNACore

final class BundleFileShapeTests: XCTestCase {
    func testReindentMatchesTheWriterAndKeepsTokensAsWritten() throws {
        let text = #"{"b":[1,2.50,{"x":[]},{}],"a":{"s":"caf\u00e9","n":null,"t":true,"e":1E3},"z":[[]]}"#
        let document = try JSONDocument(bytes: Array(text.utf8))
        var out: [UInt8] = []
        JSONReindent.append(document.root, to: &out)
        let reindented = String(decoding: out, as: UTF8.self)
        XCTAssertEqual(reindented, """
        {
          "b": [
            1,
            2.50,
            {
              "x": []
            },
            {}
          ],
          "a": {
            "s": "caf\\u00e9",
            "n": null,
            "t": true,
            "e": 1E3
          },
          "z": [
            []
          ]
        }
        """)
        // The same layout as JSONWriter(indent: 2) where tokens are spelled the same way.
        let plain = try JSONDocument(bytes: Array(#"{"b":[1,{"x":[]},{}],"a":{"n":null,"t":true}}"#.utf8))
        var plainOut: [UInt8] = []
        JSONReindent.append(plain.root, to: &plainOut)
        XCTAssertEqual(plainOut, JSONWriter(indent: 2).write(plain.root.value))
        XCTAssertTrue(reindented.contains(#""s": "caf\u00e9""#))
        XCTAssertTrue(reindented.contains("\"x\": []"))
    }

    func testSDKShapeUnwrapsRenamesAndDropsSizeBytes() throws {
        let text = #"{"bundle_version":3,"size_bytes":99,"content":{"onboarding_flows":{"active_flow_id":"f"},"in_app_messages":{},"remote_config":{"k":1}},"generated_at":"x"}"#
        let document = try JSONDocument(bytes: Array(text.utf8))
        let bytes = BundleFileShape.sdkFileBytes(document.root)
        XCTAssertEqual(String(decoding: bytes, as: UTF8.self), """
        {
          "bundle_version": 3,
          "onboarding": {
            "active_flow_id": "f"
          },
          "messages": {},
          "remote_config": {
            "k": 1
          },
          "generated_at": "x"
        }

        """)
        XCTAssertEqual(BundleFileShape.counts(document.root), .init(bundleVersion: 3, experiments: 0, flags: 1))
        // The SDK shape is kept as it is (only re-laid out).
        let sdk = try JSONDocument(bytes: Array(#"{"bundle_version":1,"feature_flags":{"a":1,"b":2}}"#.utf8))
        XCTAssertEqual(String(decoding: BundleFileShape.sdkFileBytes(sdk.root), as: UTF8.self),
                       "{\n  \"bundle_version\": 1,\n  \"feature_flags\": {\n    \"a\": 1,\n    \"b\": 2\n  }\n}\n")
        XCTAssertEqual(BundleFileShape.counts(sdk.root).flags, 2)
    }

    func testAtomicReplaceKeepsModeAndLeavesNoTemporaryFile() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("appdna-atomic-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("out.json").path
        try AtomicFile.replace(path: path, with: Array("one\n".utf8))
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "one\n")
        chmod(path, 0o600)
        try AtomicFile.replace(path: path, with: Array("two\n".utf8))
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "two\n")
        XCTAssertEqual((try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue, 0o600)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path), ["out.json"])
        XCTAssertThrowsError(try AtomicFile.replace(path: directory.path, with: [])) {
            XCTAssertEqual(($0 as? Failure)?.kind, .cannotCreateOutput)
        }
        XCTAssertThrowsError(try AtomicFile.replace(path: directory.appendingPathComponent("no/such").path, with: [])) {
            XCTAssertEqual(($0 as? Failure)?.kind, .cannotCreateOutput)
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path), ["out.json"])
        // A symbolic link stays a link to the replaced file; a device is written, not replaced.
        let link = directory.appendingPathComponent("link.json").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: path)
        try AtomicFile.replace(path: link, with: Array("three\n".utf8))
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: link), path)
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "three\n")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted(), ["link.json", "out.json"])
        try AtomicFile.replace(path: "/dev/null", with: Array("x".utf8))
        var info = stat()
        XCTAssertEqual(stat("/dev/null", &info), 0)
        XCTAssertEqual(info.st_mode & S_IFMT, S_IFCHR, "/dev/null is still a device")
        // A bare name goes into the current directory.
        XCTAssertEqual(AtomicFile.split("x.json").0, ".")
        XCTAssertEqual(AtomicFile.split("/x.json").0, "/")
    }
}
