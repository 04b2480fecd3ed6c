import Foundation
import XCTest
@testable import AppDNACLI
import AppDNACore
import AppDNANet
import TestSupport

/// Issue 54.1: `bundle validate`, `diff` and `codegen`, `completions` and `manpage` decide
/// everything in their plan. A command line they refuse is refused before any request is sent
/// or file written (`bundle diff --stat --json A @remote` used to download the live bundle
/// first), and the plan holds neither the arguments nor the invocation.
final class BundlePlansBeforeActingTests: XCTestCase {
    static let key = "adn_live_E2EsecretKEY0123456789zz3f9a"
    static let bundle = "/nonexistent-appdna-directory/appdna-config.json"
    let clock = VirtualClock()
    /// A bundle on the disk too, the same bytes as in the injected files: the refusals are
    /// about the order of the checks, not about where a file is read.
    var scratch: ScratchDirectory!
    var onDisk: String { scratch.path + "/appdna-config.json" }

    override func setUpWithError() throws {
        scratch = try ScratchDirectory("appdna-plans-before-acting")
        try Data(BundleFixtures.expectedSDKFile.utf8).write(to: URL(fileURLWithPath: onDisk))
    }

    override func tearDown() { scratch.remove() }

    /// `arguments` over an API that answers every request with the bundle, recording them.
    func run(_ arguments: [String], files: InMemoryFiles? = nil, environment: [String: String]? = nil,
             stdin: String? = nil) -> (result: CapturedRun, requests: [String], writes: [String]) {
        let api = ScriptedBundleAPI(clock: clock) { _, _ in .answer(200, body: BundleFixtures.apiBundle()) }
        let files = files ?? InMemoryFiles([Self.bundle: Array(BundleFixtures.expectedSDKFile.utf8), onDisk: Array(BundleFixtures.expectedSDKFile.utf8)])
        let result = runCLI(arguments, environment: environment ?? ["APPDNA_SDK_KEY": Self.key, "APPDNA_API_URL": "http://127.0.0.1:9"],
                            stdin: stdin, transport: api, clock: clock, files: files)
        return (result, api.paths, files.writes)
    }

    func assertRefusedBeforeActing(_ arguments: [String], _ status: Int32, _ stderr: String, files: InMemoryFiles? = nil,
                                   environment: [String: String]? = nil, stdin: String? = nil, line: UInt = #line) {
        let (result, requests, writes) = run(arguments, files: files, environment: environment, stdin: stdin)
        XCTAssertEqual(result.status, status, "\(arguments): \(result.stderr)", line: line)
        XCTAssertEqual(result.stderr, stderr, "\(arguments)", line: line)
        XCTAssertEqual(result.stdout, "", "\(arguments)", line: line)
        XCTAssertEqual(requests, [], "\(arguments): a request before the refusal", line: line)
        XCTAssertEqual(writes, [], "\(arguments): a file written before the refusal", line: line)
    }

    func testTheStatOfADiffWithTheLiveBundleIsRefusedBeforeTheDownload() {
        assertRefusedBeforeActing(["bundle", "diff", "--stat", "--json", onDisk, "@remote"], 64,
                                  "appdna: --json does not go with --stat; --stat prints a text summary of the changes per section\n")
        assertRefusedBeforeActing(["bundle", "diff", "--stat", "--format", "patch", "@remote", onDisk], 64,
                                  "appdna: --format patch does not go with --stat; --stat prints a text summary of the changes per section\n")
        assertRefusedBeforeActing(["bundle", "diff", "--json", "--format", "patch", onDisk, "@remote"], 64,
                                  "appdna: --json is --format json: it cannot go with --format patch\n")
        // The same line with a file on each side is still a diff (the refusal is the flags').
        let (sound, requests, _) = run(["bundle", "diff", "--stat", onDisk, "@remote"])
        XCTAssertEqual(sound.status, 0, sound.stderr)
        XCTAssertEqual(requests, [AppDNAAPI.bundlePath])
    }

    func testAMissingFileBesideTheLiveBundleIs66BeforeTheDownload() {
        let missing = "/nonexistent-appdna-directory/missing.json"
        assertRefusedBeforeActing(["bundle", "diff", "@remote", missing], 66, "appdna: \(missing): no such file or directory\n")
        assertRefusedBeforeActing(["bundle", "codegen", missing, "-o", "/nonexistent-appdna-directory/A.swift"], 66,
                                  "appdna: \(missing): no such file or directory\n")
    }

    /// Not a refusal of the command line, but an input checked before the download all the
    /// same: the local side of a diff is read first.
    func testALocalSideThatIsNotJSONIs65BeforeTheDownload() {
        let notJSON = "/nonexistent-appdna-directory/not.json"
        let files = InMemoryFiles([notJSON: Array("{\"bundle_version\": \n".utf8)])
        let (result, requests, _) = run(["bundle", "diff", "@remote", notJSON], files: files)
        XCTAssertEqual(result.status, 65, result.stderr)
        XCTAssertTrue(result.stderr.hasPrefix("appdna: \(notJSON):"), result.stderr)
        XCTAssertEqual(requests, [])
    }

    func testValidateChecksEveryOperandBeforeTheDownload() {
        assertRefusedBeforeActing(["bundle", "validate", "@remote", "-", "-"], 64, "appdna: '-' (standard input) is given more than once\n", stdin: "{}")
        assertRefusedBeforeActing(["bundle", "validate", "@remote", "@remtoe"], 64,
                                  "appdna: '@remtoe': the live bundle is spelled @remote (a file name starting with @ needs ./ before it)\n")
    }

    func testCodegenIntoAPathItCannotWriteIs73BeforeTheDownload() {
        let output = "/nonexistent-appdna-directory/AppDNAConfig.swift"
        assertRefusedBeforeActing(["bundle", "codegen", "@remote", "-o", output], 73,
                                  "appdna: \(output): cannot create a file in its directory: permission denied\n", files: InMemoryFiles(refused: [output]))
    }

    /// Without an operand `@remote` the API flags would change nothing: refused (64), worded as
    /// every mode conflict is; with one, the key is checked by the plan (78), before any request.
    func testTheAPIFlagsBelongToTheLiveBundle() {
        let unused = "; it is for downloading the live bundle (@remote)\n"
        assertRefusedBeforeActing(["bundle", "diff", "--timeout", "5", onDisk, onDisk], 64, "appdna: --timeout does not go with local bundles" + unused)
        assertRefusedBeforeActing(["bundle", "validate", "--retries", "1", onDisk], 64, "appdna: --retries does not go with local bundles" + unused)
        assertRefusedBeforeActing(["bundle", "codegen", "--key-file", "/k", onDisk], 64, "appdna: --key-file does not go with local bundles" + unused)
        let (noKey, requests, _) = run(["bundle", "diff", onDisk, "@remote"], environment: [:])
        XCTAssertEqual(noKey.status, 78, noKey.stderr)
        XCTAssertTrue(noKey.stderr.hasPrefix("appdna: no API key: set APPDNA_SDK_KEY or pass --key-file PATH\n"), noKey.stderr)
        XCTAssertEqual(requests, [])
    }

}
