import Foundation
import XCTest
import LoopbackHTTPServer

/// What a user without libcurl, SQLite or zlib sees. The loaders' search is replaced by a file
/// that does not exist (APPDNA_LIBCURL, APPDNA_LIBSQLITE3, APPDNA_LIBZ): the same code path as
/// a machine without the library, since the binary links none of them. The command that needs
/// the library fails with one line naming it and the package; every other command works.
final class MissingSystemLibraryEndToEndTests: XCTestCase {
    static let key = "adn_live_LIBSsecretKEY0123456789zz3f9a"
    var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("appdna-libs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// The one stderr line, checked for the library, the package and the macOS note.
    func assertOneLine(_ result: Binary.Result, library: String, package: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(result.status, 69, result.stderr, file: file, line: line)
        XCTAssertEqual(result.stderrLines.count, 1, result.stderr, file: file, line: line)
        let text = result.stderr
        XCTAssertTrue(text.hasPrefix("appdna: cannot load \(library), needed for "), text, file: file, line: line)
        XCTAssertTrue(text.contains("/nonexistent/\(library)"), "the reason names the file: " + text, file: file, line: line)
        XCTAssertTrue(text.hasSuffix("install the \(package) package (Debian/Ubuntu: apt-get install \(package); macOS ships \(library) with the system)\n"), text, file: file, line: line)
    }

    /// Commands that need none of the three libraries, run with all three missing.
    func assertOtherCommandsWork(_ environment: [String: String], file: StaticString = #filePath, line: UInt = #line) throws {
        let bundle = path("bundle.json")
        try FakeBundleAPI.bundleFile(version: 42).write(to: URL(fileURLWithPath: bundle))
        let queue = path("pending_events.json")
        try Data("[]\n".utf8).write(to: URL(fileURLWithPath: queue))
        for arguments in [["bucket", "user_1", "exp_1", "salt"], ["bundle", "validate", bundle], ["bundle", "diff", bundle, bundle],
                          ["queue", "inspect", queue], ["webhook", "sign", bundle], ["--version"]] {
            let result = try Binary.run(arguments, environment: environment.merging(["APPDNA_WEBHOOK_SECRET": "whsec_test"]) { $1 })
            XCTAssertEqual(result.status, 0, "\(arguments): \(result.stderr)", file: file, line: line)
        }
    }

    static let allMissing = ["APPDNA_LIBCURL": "/nonexistent/libcurl.so.4", "APPDNA_LIBSQLITE3": "/nonexistent/libsqlite3.so.0",
                             "APPDNA_LIBZ": "/nonexistent/zlib.so.1"]

    func testWithoutLibcurlFetchSaysWhatToInstallAndOtherCommandsWork() throws {
        let server = try FakeBundleAPI.serving(version: 42)
        let output = path("appdna-config.json")
        let result = try Binary.run(["bundle", "fetch", "-o", output],
                                    environment: ["APPDNA_SDK_KEY": Self.key, "APPDNA_API_URL": server.baseURL, "APPDNA_LIBCURL": "/nonexistent/libcurl.so.4"])
        assertOneLine(result, library: "libcurl", package: "libcurl4")
        XCTAssertEqual(server.requests.count, 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: output))
        try assertOtherCommandsWork(Self.allMissing)
    }

    func testWithoutSQLiteAnAndroidQueueSaysWhatToInstall() throws {
        // The header is enough: the library is needed before any page is read.
        let database = path("appdna_events.db")
        try Data(Array("SQLite format 3\0".utf8) + [UInt8](repeating: 0, count: 84)).write(to: URL(fileURLWithPath: database))
        let result = try Binary.run(["queue", "inspect", database], environment: ["APPDNA_LIBSQLITE3": "/nonexistent/libsqlite3.so.0"])
        assertOneLine(result, library: "libsqlite3", package: "libsqlite3-0")
    }

    func testWithoutZlibReplaySaysWhatToInstall() throws {
        let queue = path("pending_events.json")
        let event = #"{"schema_version":1,"event_id":"00000001-0000-4000-8000-000000000001","event_name":"app_open","ts_ms":1771491600000,"user":{"anon_id":"11111111-1111-4111-8111-111111111111"},"device":{"platform":"ios","sdk_version":"1.0.78"},"context":{"session_id":"s1","client_seq":1}}"#
        try Data((event + "\n").utf8).write(to: URL(fileURLWithPath: queue))
        let server = try IngestServer(key: Self.key)
        let result = try Binary.run(["queue", "replay", queue, "--yes", "--now", "1771495200000"],
                                    environment: ["APPDNA_SDK_KEY": Self.key, "APPDNA_API_URL": server.baseURL, "APPDNA_LIBZ": "/nonexistent/zlib.so.1"])
        assertOneLine(result, library: "zlib", package: "zlib1g")
        XCTAssertEqual(server.received.count, 0)
    }
}
