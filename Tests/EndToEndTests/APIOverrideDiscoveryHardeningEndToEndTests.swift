import Foundation
import TestSupport
import XCTest

/// `api override`'s discovery reads only what a discovery file can be: a regular file of at
/// most 4 KiB (never a FIFO, a link to a device or a huge file), in a directory of this
/// user's that no one else can write to. Run through bash with `timeout` and a memory limit,
/// so that a regression that blocks or allocates without end fails instead of hanging.
final class APIOverrideDiscoveryHardeningEndToEndTests: XCTestCase {
    var scratch: URL!

    override func setUpWithError() throws {
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("appdna-discovery-hard-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: scratch) }

    /// Runs `api override list` with `XDG_RUNTIME_DIR` set to `runtime`, after `setup` (bash, in the scratch directory).
    func list(runtime: String, setup: String) throws -> (status: Int32, stderr: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", setup + "\nulimit -v 4000000\nexec timeout 60 \"$APPDNA\" api override list"]
        process.currentDirectoryURL = scratch
        process.environment = ["PATH": "/usr/bin:/bin", "APPDNA": Binary.url.path, "XDG_RUNTIME_DIR": runtime, "HOME": scratch.path]
        let err = scratch.appendingPathComponent("err-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = try FileHandle(forWritingTo: err)
        try process.run()
        process.waitUntilExit()
        return (process.terminationStatus, try String(contentsOf: err, encoding: .utf8))
    }

    /// A FIFO, a link to /dev/zero and a file over 4 KiB, each named for a live pid (1): skipped unread.
    func testOnlySmallRegularFilesAreRead() throws {
        let runtime = scratch.appendingPathComponent("runtime").path
        let run = try list(runtime: runtime, setup: #"""
        mkdir -p runtime/appdna && chmod 700 runtime/appdna || exit 90
        mkfifo runtime/appdna/api-serve-1.json || exit 90
        { printf '{"inspector":"http://127.0.0.1:9","api":"http://127.0.0.1:9","pid":1}'; head -c 5000 /dev/zero | tr '\0' ' '; } > runtime/appdna/api-serve-1x.json
        """#)
        XCTAssertEqual(run.status, 64, run.stderr)
        XCTAssertTrue(run.stderr.contains("no api serve --inspect is running"), run.stderr)

        let linked = try list(runtime: runtime, setup: #"""
        rm -f runtime/appdna/api-serve-*; ln -s /dev/zero runtime/appdna/api-serve-1.json || exit 90
        """#)
        XCTAssertEqual(linked.status, 64, linked.stderr)
        XCTAssertTrue(linked.stderr.contains("no api serve --inspect is running"), linked.stderr)
    }

    /// A directory others can write to, or a symbolic link, is not read (a warning says why):
    /// its file, naming a live pid (1), would otherwise be taken.
    func testADirectoryOthersCanWriteToIsSkippedWithAWarning() throws {
        let runtime = scratch.appendingPathComponent("runtime").path
        let file = #"printf '{"inspector":"http://127.0.0.1:9","api":"http://127.0.0.1:9","pid":1}\n' > "#
        let open = try list(runtime: runtime, setup: "mkdir -p runtime/appdna && chmod 777 runtime/appdna && " + file + "runtime/appdna/api-serve-1.json")
        XCTAssertEqual(open.status, 64, open.stderr)
        XCTAssertTrue(open.stderr.contains("the discovery directory is writable by everyone"), open.stderr)
        XCTAssertTrue(open.stderr.contains("no api serve --inspect is running"), open.stderr)

        let linked = try list(runtime: runtime, setup: "rm -rf runtime && mkdir -p real runtime && chmod 700 real && " + file + "real/api-serve-1.json && ln -s ../real runtime/appdna")
        XCTAssertEqual(linked.status, 64, linked.stderr)
        XCTAssertTrue(linked.stderr.contains("the discovery directory is a symbolic link"), linked.stderr)
    }

    /// api serve --inspect makes only appdna's own directory, 0700: never a missing home (it
    /// warns and goes on without discovery), and not in a directory others can write to.
    func testApiServeMakesOnlyItsOwnDirectory0700() throws {
        let bundle = scratch.appendingPathComponent("bundle.json").path
        try Data(DevServerEndToEndTests.source.utf8).write(to: URL(fileURLWithPath: bundle))
        let home = scratch.appendingPathComponent("no-such-home").path
        let homeless = try InspectedProcess(["api", "serve", "--bundle", bundle], in: scratch, environment: ["HOME": home])
        XCTAssertFalse(FileManager.default.fileExists(atPath: home), "the missing home is not created")
        XCTAssertEqual(homeless.stop(), 0)
        XCTAssertTrue(homeless.stderr.contains("api override cannot find this server without --server"), homeless.stderr)

        let runtime = scratch.appendingPathComponent("runtime").path
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true)
        let served = try InspectedProcess(["api", "serve", "--bundle", bundle], in: scratch, environment: ["XDG_RUNTIME_DIR": runtime, "HOME": scratch.path])
        let mode = try FileManager.default.attributesOfItem(atPath: runtime + "/appdna")[.posixPermissions] as? Int
        XCTAssertEqual(mode, 0o700)
        XCTAssertEqual(served.stop(), 0)

        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: runtime + "/appdna")
        let open = try InspectedProcess(["api", "serve", "--bundle", bundle], in: scratch, environment: ["XDG_RUNTIME_DIR": runtime, "HOME": scratch.path])
        let files = try FileManager.default.contentsOfDirectory(atPath: runtime + "/appdna")
        XCTAssertEqual(open.stop(), 0)
        XCTAssertEqual(files, [], "no discovery file in a directory others can write to")
        XCTAssertTrue(open.stderr.contains("the discovery directory is writable by everyone"), open.stderr)
    }
}
