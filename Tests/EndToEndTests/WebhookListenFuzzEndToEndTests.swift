import AppDNACore
import Foundation
import LoopbackHTTPServer
import TestSupport
import XCTest

/// A seeded, bounded raw-socket fuzzer against `webhook listen` forwarding to a loopback handler:
/// thousands of mutated request lines, headers and chunk framings from several clients at once,
/// with valid signed deliveries and request-smuggling attempts mixed in. While it runs: no
/// crash, no hang (every connection is answered or closed), nothing invalid forwarded (every
/// forwarded request verifies, no smuggled delivery ever arrives), every valid delivery
/// answered 200 and forwarded once with its exact body and signature.
///
/// `APPDNA_FUZZ_REQUESTS` (default 20,000, a few seconds) and `APPDNA_FUZZ_SEED` (default 33) change the run;
/// a failure names the seed and the case, so it repeats exactly.
final class WebhookListenFuzzEndToEndTests: XCTestCase {
    let secret = Array("whsec_fuzz_\(UUID().uuidString)".utf8)

    func signature(_ body: [UInt8]) -> String {
        "sha256=" + HMACSHA256.authenticationCode(for: body, key: secret).map { String(format: "%02x", $0) }.joined()
    }

    /// Whether `header` is a valid signature of `body`, by the rules of `webhook verify`.
    func verifies(_ header: String?, _ body: [UInt8]) -> Bool {
        guard let header, let parsed = try? WebhookSignature.parse(header),
              let verifier = try? WebhookVerifier(secrets: [WebhookSecret(raw: secret, source: "fuzz")]) else { return false }
        var running = verifier
        running.update(body)
        return running.finish(expected: parsed).matchedSecretIndex != nil
    }

    func body(id: String) -> [UInt8] {
        Array(#"{"id":"\#(id)","type":"subscription.renewed","created_at":"2026-02-19T10:00:00Z","data":{"user_id":"u1"}}"#.utf8)
    }

    /// A well-formed signed delivery, Content-Length or chunked.
    func delivery(id: String, chunked: Bool, extraHeaders: String = "") -> [UInt8] {
        let payload = body(id: id)
        var head = "POST /webhooks HTTP/1.1\r\nHost: hooks.example.test\r\nContent-Type: application/json\r\n"
            + "X-AppDNA-Signature: \(signature(payload))\r\n" + extraHeaders
        if chunked {
            head += "Transfer-Encoding: chunked\r\n\r\n"
            let split = payload.count / 2
            var bytes: [UInt8] = Array(head.utf8)
            bytes += Array((String(split, radix: 16) + "\r\n").utf8)
            bytes += payload[..<split]
            bytes += Array(("\r\n" + String(payload.count - split, radix: 16) + ";ext=1\r\n").utf8)
            bytes += payload[split...]
            bytes += Array("\r\n0\r\n\r\n".utf8)
            return bytes
        }
        return Array((head + "Content-Length: \(payload.count)\r\n\r\n").utf8) + payload
    }

    /// Framings a strict server must refuse, each carrying a complete signed delivery
    /// (`evt_smuggled_…`) where a lenient reader would take it for the next request.
    func smuggle(id: String, variant: Int) -> [UInt8] {
        let inner = delivery(id: id, chunked: false)
        let prefix = "POST /webhooks HTTP/1.1\r\nHost: x\r\nX-AppDNA-Signature: sha256=00\r\n"
        let tail = Array("0\r\n\r\n".utf8) + inner
        let framings = [
            "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n",
            "Transfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n",
            "Transfer-Encoding: chunked, chunked\r\n\r\n",
            "Transfer-Encoding: chunked\r\nTransfer-Encoding: identity\r\n\r\n",
            "Transfer-Encoding: xchunked\r\nContent-Length: 5\r\n\r\n",
            "Transfer-Encoding : chunked\r\nContent-Length: 5\r\n\r\n",
            "Transfer-Encoding:\r\n chunked\r\nContent-Length: 5\r\n\r\n",
            "Content-Length: 5\r\nContent-Length: 6\r\n\r\n",
            "Content-Length: +5\r\n\r\n",
            "X-Split: a\rTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n",
        ]
        if variant == framings.count {
            // HTTP/1.0 with chunked framing.
            return Array("POST /webhooks HTTP/1.0\r\nX-AppDNA-Signature: sha256=00\r\nTransfer-Encoding: chunked\r\n\r\n".utf8) + tail
        }
        return Array((prefix + framings[variant % framings.count]).utf8) + tail
    }

    /// One case on its own connection: sends everything (as far as the server reads), half-closes,
    /// and reads until the server closes. nil when the server neither answered nor closed within
    /// `seconds`: a hang.
    static func exchange(_ bytes: [UInt8], port: Int, seconds: Int = 15) -> [UInt8]? {
        let fd = TestSocket.tcp(AF_INET)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { return nil }
        var timeout = timeval(tv_sec: seconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, TestSocket.sendFlags) }
        shutdown(fd, Int32(SHUT_WR))
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 8192)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 { received += chunk[..<count]; continue }
            if count == 0 || errno == ECONNRESET { return received }
            return nil   // EAGAIN: the receive timeout passed
        }
    }

    func status(_ answer: [UInt8]) -> Int? {
        guard answer.count >= 12, answer.starts(with: Array("HTTP/1.1 ".utf8)) else { return nil }
        return Int(String(decoding: answer[9..<12], as: UTF8.self))
    }

    func testFuzzedRequestsNeverCrashHangSmuggleOrSpoilAValidDelivery() throws {
        let environment = ProcessInfo.processInfo.environment
        let count = environment["APPDNA_FUZZ_REQUESTS"].flatMap(Int.init) ?? 20_000
        let seed = environment["APPDNA_FUZZ_SEED"].flatMap(UInt64.init) ?? 33
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("appdna-fuzz-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let secretPath = scratch.appendingPathComponent("secret").path
        try Data(secret).write(to: URL(fileURLWithPath: secretPath))

        let handler = try LoopbackHTTPServer { _, _ in .init(status: 200, body: Array("handled".utf8)) }
        defer { handler.stop() }
        let listener = try APIServeProcess(["--secret-file", secretPath, "--forward-to", handler.baseURL + "/hook", "--max-body", "64KiB",
                                            "--header-timeout", "2", "--idle-timeout", "2", "--max-connections", "16"],
                                           command: ["webhook", "listen"])
        let port = Int(listener.baseURL.split(separator: ":").last!)!

        // The cases, decided by the seed alone: every 8th a valid delivery, every 16th a smuggling
        // attempt, the rest mutations of valid deliveries and of smuggling attempts.
        enum Kind { case valid(id: String, body: [UInt8]), smuggle, mutated }
        var random = SplitMix64(seed: seed)
        var cases: [(kind: Kind, bytes: [UInt8])] = []
        for index in 0..<count {
            let chunked = random.below(2) == 0
            switch index % 16 {
            case 0, 8:
                let id = "evt_valid_\(index)"
                cases.append((.valid(id: id, body: body(id: id)), delivery(id: id, chunked: chunked)))
            case 5:
                cases.append((.smuggle, smuggle(id: "evt_smuggled_\(index)", variant: random.below(11))))
            default:
                // A mutated smuggling attempt may become an honest pipeline (say the Transfer-Encoding
                // line is gone): its inner delivery may then be forwarded, so it is not "smuggled".
                let base = random.below(5) == 0 ? smuggle(id: "evt_pipelined_\(index)", variant: random.below(11))
                                                : delivery(id: "evt_mutated_\(index)", chunked: chunked)
                cases.append((.mutated, RequestMutator.mutate(base, &random)))
            }
        }

        // Eight clients at once, each taking the next case.
        let started = Date()
        let answers = ConcurrentExchanges.send(cases.map(\.bytes), port: port, seconds: 15)
        print("fuzzed \(cases.count) requests (seed \(seed)) in \(Int(Date().timeIntervalSince(started) * 1000)) ms")

        XCTAssertTrue(listener.process.isRunning, "the listener died (seed \(seed)): \(listener.stderr)")
        var hangs: [Int] = []
        var validIDs: [String: [UInt8]] = [:]
        for (index, item) in cases.enumerated() {
            guard let answer = answers[index] else { hangs.append(index); continue }
            if case .valid(let id, let body) = item.kind {
                validIDs[id] = body
                XCTAssertEqual(status(answer), 200, "seed \(seed), case \(index): a valid delivery got \(String(decoding: answer.prefix(80), as: UTF8.self))")
            }
            if case .smuggle = item.kind {
                XCTAssertEqual(status(answer), 400, "seed \(seed), case \(index): a smuggling attempt was not refused: \(String(decoding: item.bytes.prefix(200), as: UTF8.self).debugDescription)")
            }
        }
        XCTAssertEqual(hangs, [], "seed \(seed): no answer and no close within 15 s for cases \(hangs.prefix(10))")
        let statuses = Dictionary(grouping: answers.compactMap { $0 }, by: { status($0).map(String.init) ?? "closed" }).mapValues(\.count)
        print("answers: " + statuses.sorted { $0.key < $1.key }.map { "\($0.key) ×\($0.value)" }.joined(separator: ", ")
              + "; forwarded \(handler.requests.count)")

        // Nothing invalid forwarded; every valid delivery forwarded once, byte for byte.
        var forwardedIDs: [String: Int] = [:]
        for request in handler.requests {
            // Verified as the listener verifies (a mutation may have changed a hex digit's case
            // or dropped the sha256= prefix, which it accepts).
            XCTAssertTrue(verifies(request.header("X-AppDNA-Signature"), request.body), "seed \(seed): a forwarded request does not verify")
            let text = String(decoding: request.body, as: UTF8.self)
            XCTAssertFalse(text.contains("evt_smuggled_"), "seed \(seed): a smuggled delivery was forwarded: \(text)")
            if let id = text.firstMatch(of: /"id":"(evt_[a-z]+_\d+)"/).map({ String($0.1) }) { forwardedIDs[id, default: 0] += 1 }
        }
        for (id, body) in validIDs {
            XCTAssertEqual(forwardedIDs[id], 1, "seed \(seed): \(id) was forwarded \(forwardedIDs[id] ?? 0) times")
            XCTAssertTrue(handler.requests.contains { $0.body == body }, "seed \(seed): \(id)'s body changed on the way")
        }
        // Still serving after all of it.
        let last = delivery(id: "evt_after_fuzz", chunked: false)
        XCTAssertEqual(Self.exchange(last, port: port).flatMap(status), 200)
        XCTAssertEqual(listener.stop(), 0, listener.stderr)
    }
}

extension SplitMix64 {
    /// A number in 0..<`bound`.
    mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }
}
