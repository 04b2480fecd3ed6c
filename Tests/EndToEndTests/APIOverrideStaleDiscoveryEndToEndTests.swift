import Foundation
import TestSupport
import XCTest

/// A discovery file whose server has ended but is still a zombie (its parent has not reaped
/// it: `kill(pid, 0)` still succeeds) does not count, and is removed.
final class APIOverrideStaleDiscoveryEndToEndTests: XCTestCase {
    func testTheFileOfAZombieIsIgnoredAndRemoved() throws {
        #if os(macOS)
        throw XCTSkip("zombies are told from /proc/PID/stat, on Linux")
        #else
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("appdna-zombie-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        // `sleep 0` ends at once; its parent execs `sleep 30`, which never reaps it: a zombie.
        let script = #"""
        mkdir -p runtime/appdna && chmod 700 runtime/appdna || exit 90
        sh -c 'sleep 0 & echo $! > zpid; exec sleep 30' & parent=$!
        trap 'kill $parent' EXIT
        for i in $(seq 100); do
          [ -s zpid ] && grep -q ') Z' /proc/$(cat zpid)/stat 2>/dev/null && break; sleep 0.1
        done
        z=$(cat zpid); grep -q ') Z' /proc/$z/stat || exit 91
        printf '{"inspector":"http://127.0.0.1:9","api":"http://127.0.0.1:9","pid":%s}\n' $z > runtime/appdna/api-serve-$z.json
        timeout 60 "$APPDNA" api override list; status=$?
        [ -e runtime/appdna/api-serve-$z.json ] && echo "file kept" >&2
        exit $status
        """#
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", script]
        process.currentDirectoryURL = scratch
        process.environment = ["PATH": "/usr/bin:/bin", "APPDNA": Binary.url.path, "XDG_RUNTIME_DIR": scratch.path + "/runtime", "HOME": scratch.path]
        let err = scratch.appendingPathComponent("err")
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = try FileHandle(forWritingTo: err)
        try process.run()
        process.waitUntilExit()
        let stderr = try String(contentsOf: err, encoding: .utf8)
        XCTAssertEqual(process.terminationStatus, 64, stderr)
        XCTAssertTrue(stderr.contains("no api serve --inspect is running"), stderr)
        XCTAssertFalse(stderr.contains("file kept"), stderr)
        #endif
    }

    /// A file whose pid now names another process (its recorded start time differs) is stale:
    /// ignored and removed. Pid 1 is alive; no process started at tick 999999999999.
    func testAFileWhosePidWasReusedIsIgnoredAndRemoved() throws {
        #if os(macOS)
        throw XCTSkip("start times are read from /proc/PID/stat, on Linux")
        #else
        let runtime = FileManager.default.temporaryDirectory.appendingPathComponent("appdna-reused-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: runtime.path + "/appdna", withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: runtime.path + "/appdna")
        defer { try? FileManager.default.removeItem(at: runtime) }
        let file = runtime.path + "/appdna/api-serve-1.json"
        try Data(#"{"inspector":"http://127.0.0.1:9","api":"http://127.0.0.1:9","pid":1,"started":999999999999}"#.utf8).write(to: URL(fileURLWithPath: file))
        let run = try Binary.run(["api", "override", "list"], environment: ["XDG_RUNTIME_DIR": runtime.path, "HOME": runtime.path])
        XCTAssertEqual(run.status, 64, run.stderr)
        XCTAssertTrue(run.stderr.contains("no api serve --inspect is running"), run.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: file), "the stale file is removed")
        #endif
    }
}
