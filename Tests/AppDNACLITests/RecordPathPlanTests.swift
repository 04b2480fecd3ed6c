import XCTest
@testable import AppDNACLI
import AppDNACore

/// `--record PATH` of both servers is judged by their plans (issue 54.1): a path that is a
/// directory (or a link, a device, a FIFO) is refused (73) before anything happens, so the
/// refusal is the same whatever else the start would meet (a state file another server holds,
/// a port in use), and nothing is made, opened or bound.
final class RecordPathPlanTests: XCTestCase {
    static let secret = "/in-memory/secret.txt", bundle = "/in-memory/bundle.json", directory = "/in-memory/records"

    func files() -> InMemoryFiles {
        InMemoryFiles([Self.secret: Array("whsec_in_memory\n".utf8),
                       Self.bundle: Array(#"{"bundle_version": 3, "api_version": 1, "config": {}, "experiments": {}}"#.utf8)],
                      directories: ["/in-memory", Self.directory])
    }

    func testWebhookListenRefusesARecordPathThatIsADirectoryInItsPlan() {
        let files = files()
        let run = runCLI(["webhook", "listen", "--secret-file", Self.secret, "--port", "0", "--record", Self.directory], files: files)
        XCTAssertEqual(run.status, 73, run.stderr)
        XCTAssertTrue(run.stderr.contains("\(Self.directory) is a directory, not a regular file: --record writes only to a regular file"), run.stderr)
        XCTAssertEqual(files.changes, [])
    }

    func testAPIServeRefusesARecordPathThatIsADirectoryInItsPlan() {
        let files = files()
        let run = runCLI(["api", "serve", "--bundle", Self.bundle, "--port", "0", "--state", "/in-memory/state.json", "--record", Self.directory], files: files)
        XCTAssertEqual(run.status, 73, run.stderr)
        XCTAssertTrue(run.stderr.contains("\(Self.directory) is a directory, not a regular file"), run.stderr)
        XCTAssertEqual(files.changes, [])
    }
}
