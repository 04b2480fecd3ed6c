import Foundation
import LoopbackHTTPServer
import XCTest
import TestSupport

/// Compressed bodies are decoded within a cap, never to whatever they expand to: `api serve`
/// inflates an ingest body to at most 64 MiB (413 over it), `bundle fetch` decodes an answer to
/// at most --max-size (64 MiB by default). Each bomb costs its cap, not its expansion: the
/// peak RSS is read from /proc while the process runs.
final class BombEndToEndTests: XCTestCase {
    var scratch: ScratchDirectory!
    var curl = ""
    var python = ""

    override func setUpWithError() throws {
        scratch = try ScratchDirectory("bombs")
        addTeardownBlock { [scratch] in scratch?.remove() }
        curl = try requireTool("curl", because: "the client that sends the bomb")
        python = try requireTool("python3", because: "zlib makes the bombs")
    }

    /// `megabytes` MiB of zeros compressed by Python's zlib: raw DEFLATE (`wbits` -15) or gzip (31).
    func bomb(megabytes: Int, wbits: Int) throws -> String {
        let path = scratch.path + "/bomb-\(wbits)-\(megabytes)"
        _ = try ProcessRunner.run(python, ["-c", """
            import sys,zlib
            c=zlib.compressobj(9,zlib.DEFLATED,int(sys.argv[2])); out=open(sys.argv[1],'wb'); block=bytes(1<<20)
            for _ in range(int(sys.argv[3])): out.write(c.compress(block))
            out.write(c.flush())
            """, path, String(wbits), String(megabytes)], environment: nil)
        return path
    }

    /// The peak resident set of process `pid` in MiB (VmHWM).
    func peakRSS(_ pid: Int32) -> Double? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
              let kib = Double(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") else { return nil }
        return kib / 1024
    }

    func testADeflateBombAgainstAPIServeIs413AndCostsItsCap() throws {
        let bundle = try scratch.file("bundle.json", Array(#"{"bundle_version": 1}"#.utf8))
        let server = try APIServeProcess(["--bundle", bundle])
        let body = try bomb(megabytes: 300, wbits: -15)
        let output = try ProcessRunner.run(curl, ["-s", "-w", "\n%{http_code}", "--max-time", "60", "-X", "POST", "--data-binary", "@" + body,
                                                             "-H", "x-api-key: adn_test_bomb", "-H", "Content-Encoding: deflate",
                                                             server.baseURL + "/api/v1/ingest/events"], environment: nil)
        XCTAssertTrue(output.stdout.hasSuffix("\n413"), output.stdout)
        XCTAssertTrue(output.stdout.contains("inflated body over 64 MiB"), output.stdout)
        let rss = try XCTUnwrap(peakRSS(server.process.processIdentifier))
        print("api serve peak RSS after a 300 MiB deflate bomb: \(Int(rss)) MiB")
        XCTAssertLessThan(rss, 200, "the bomb was inflated past its cap")
        // A HEAD of the bundle says how long the GET's answer is.
        let head = try ProcessRunner.run(curl, ["-s", "-I", "-H", "x-api-key: adn_test_bomb", server.baseURL + "/api/v1/sdk/config-bundle"], environment: nil)
        XCTAssertTrue(head.stdout.contains("Content-Length: \(#"{"bundle_version": 1}"#.utf8.count)\r\n"), head.stdout)
        XCTAssertEqual(server.stop(), 0)
    }

    func testAGzipBombAgainstBundleFetchStopsAtMaxSize() throws {
        let bomb = try Array(Data(contentsOf: URL(fileURLWithPath: bomb(megabytes: 300, wbits: 31))))
        let server = try LoopbackHTTPServer { request, _ in
            if request.path.hasSuffix("/version") { return .init(json: #"{"bundle_version": 1}"#) }
            return .init(status: 200, headers: [("Content-Type", "application/json"), ("Content-Encoding", "gzip")], body: bomb)
        }
        defer { server.stop() }
        let output = scratch.path + "/appdna-config.json"
        let environment = ["APPDNA_SDK_KEY": "adn_test_bomb0000000000000001", "APPDNA_API_URL": server.baseURL]
        let fetched = try Binary.measurePeakMemory(["bundle", "fetch", "-o", output, "--retries", "0"], environment: environment)
        XCTAssertEqual(fetched.status, 69, fetched.stderr)
        XCTAssertTrue(fetched.stderr.contains("the response, decoded, is larger than 64 MiB"), fetched.stderr)
        XCTAssertTrue(fetched.stderr.contains("--max-size"), fetched.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: output))
        print("bundle fetch peak RSS against a 300 MiB gzip bomb: \(fetched.maxRSSKiB / 1024) MiB")
        XCTAssertLessThan(fetched.maxRSSKiB, 200 << 10, "the answer was decoded past --max-size")
        let small = try ProcessRunner.run(Binary.url.path, ["bundle", "fetch", "-o", output, "--retries", "0", "--max-size", "1MiB"], environment: environment)
        XCTAssertTrue(small.stderr.contains("larger than 1 MiB"), small.stderr)
    }
}
