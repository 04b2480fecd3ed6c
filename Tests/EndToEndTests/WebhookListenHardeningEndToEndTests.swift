import Foundation
import LoopbackHTTPServer
import XCTest

/// The servers under attack (issue 33): a record file that cannot hurt what the tool does not
/// own, replay that cannot smuggle and survives a torn file, forwarding that goes where it is
/// told, a stop that stalled senders cannot hold, and answers that are never held twice.
extension WebhookListenEndToEndTests {
    /// Runs appdna, killing it after `seconds` (a hang is a failure, not a stuck suite).
    func runBounded(_ arguments: [String], seconds: Double = 20, environment: [String: String] = [:]) throws -> (status: Int32, stderr: String, timedOut: Bool) {
        let process = Process()
        process.executableURL = Binary.url
        process.arguments = arguments
        process.environment = ["PATH": "/usr/bin:/bin"].merging(environment) { $1 }
        let errorPath = path("bounded-\(UUID().uuidString).err")
        _ = FileManager.default.createFile(atPath: errorPath, contents: nil)
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errorPath))
        process.standardOutput = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        let timedOut = process.isRunning
        if timedOut { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        return (process.terminationStatus, (try? String(contentsOfFile: errorPath, encoding: .utf8)) ?? "", timedOut)
    }

    func mode(of path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    // MARK: - 1. --record never harms what it does not own

    func testRecordRefusesLinksDevicesFIFOsAndDirectoriesBeforeListening() throws {
        let target = try write("target.ndjson", Data("kept\n".utf8))
        chmod(target, 0o644)
        let link = path("link.ndjson")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        let fifo = path("fifo.ndjson")
        XCTAssertEqual(mkfifo(fifo, 0o644), 0)
        let devNullMode = try mode(of: "/dev/null")
        for command in [["webhook", "listen", "--secret-file", secretPath], ["api", "serve", "--bundle", try write("bundle.json", Data(#"{"bundle_version": 1}"#.utf8))]] {
            for (record, word) in [("/dev/null", "character device"), (link, "symbolic link"), (fifo, "FIFO"), (directory.path, "")] {
                let result = try runBounded(command + ["--port", "0", "--record", record], seconds: 10)
                XCTAssertFalse(result.timedOut, "\(command[0]) --record \(record) hung (a FIFO waits for a reader)")
                XCTAssertEqual(result.status, 73, "\(command[0]) --record \(record): \(result.stderr)")
                XCTAssertTrue(result.stderr.hasPrefix("appdna: \(record)"), result.stderr)
                XCTAssertTrue(word.isEmpty || result.stderr.contains(word), result.stderr)
                XCTAssertFalse(result.stderr.contains("listening on") || result.stderr.contains("serving "), "refused only after listening: \(result.stderr)")
            }
        }
        XCTAssertEqual(try mode(of: "/dev/null"), devNullMode, "/dev/null was chmodded")
        XCTAssertEqual(try mode(of: target), 0o644, "the link's target was chmodded")
        XCTAssertEqual(try String(contentsOfFile: target, encoding: .utf8), "kept\n")
    }

    /// A refused record file is refused unopened (opening a device is itself an act: a watchdog
    /// starts counting). The witness is a FIFO with a reader: on Linux its reader's poll reports
    /// a hang-up once a writer has opened and closed it, and never before.
    func testARefusedRecordFileIsNeverOpened() throws {
        let fifo = path("watched.fifo")
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let reader = open(fifo, O_RDONLY | O_NONBLOCK)
        XCTAssertGreaterThanOrEqual(reader, 0)
        defer { close(reader) }
        func aWriterCameAndWent() -> Bool {
            var descriptor = pollfd(fd: reader, events: Int16(POLLIN), revents: 0)
            return poll(&descriptor, 1, 0) == 1 && descriptor.revents & Int16(POLLHUP) != 0
        }
        for command in [["webhook", "listen", "--secret-file", secretPath], ["api", "serve", "--bundle", try write("bundle.json", Data(#"{"bundle_version": 1}"#.utf8))]] {
            let result = try runBounded(command + ["--port", "0", "--record", fifo], seconds: 10)
            XCTAssertEqual(result.status, 73, "\(command[0]): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains("is a FIFO, not a regular file"), result.stderr)
            XCTAssertFalse(aWriterCameAndWent(), "\(command[0]) --record opened the FIFO it refused")
        }
        // The witness works: a writer that comes and goes is seen.
        close(open(fifo, O_WRONLY | O_NONBLOCK))
        XCTAssertTrue(aWriterCameAndWent())
    }

    func testRecordCreatesANewFile0600AndLeavesAnExistingFilesModeAlone() throws {
        let fresh = path("fresh.ndjson")
        let existing = try write("existing.ndjson", Data())
        chmod(existing, 0o640)
        for record in [fresh, existing] {
            let listener = try startListener(["--secret-file", secretPath, "--record", record])
            let body = try demoBody("recorded-\(record.hasSuffix("fresh.ndjson") ? "fresh" : "existing")")
            XCTAssertEqual(try post(listener, bodyPath: body, signature: try pythonSignature(bodyPath: body, keyPath: secretPath)).status, 200)
            XCTAssertEqual(listener.stop(), 0)
        }
        XCTAssertEqual(try mode(of: fresh), 0o600)
        XCTAssertEqual(try mode(of: existing), 0o640, "an existing file's mode is the user's")
        XCTAssertTrue(try String(contentsOfFile: existing, encoding: .utf8).contains("evt_recorded-existing"))
    }

    // MARK: - 2, 3 and 9. Replay: no smuggling, torn files, one timeout

    /// A record line for `trigger --replay`.
    func recordLine(method: String = "POST", target: String = "/webhooks", headers: [(String, String)], body: String) throws -> String {
        let object: [String: Any] = ["received_at": "2026-02-19T10:00:00.000Z", "method": method, "target": target,
                                     "headers": headers.map { [$0.0, $0.1] }, "body": body, "valid": true]
        return String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
    }

    func testReplaySkipsRecordsThatWouldSmuggleARequestAndSendsTheRest() throws {
        let receiver = try LoopbackHTTPServer { _, _ in .init(status: 200) }
        defer { receiver.stop() }
        let body = #"{"id":"evt_ok","type":"push.delivered"}"#
        let smuggled = "GET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n"
        let lines = [
            try recordLine(headers: [("Content-Type", "application/json"), ("X-Id", "first")], body: body),
            try recordLine(headers: [("X-Note", "a\r\n\r\n" + smuggled)], body: body),                 // CRLF in a value
            try recordLine(headers: [("X-Note", "a\nX-Injected: 1")], body: body),                   // bare LF
            try recordLine(headers: [("X-Note", "a\u{0}b")], body: body),                            // NUL
            try recordLine(headers: [("X Bad", "v")], body: body),                                   // a name that is not a token
            try recordLine(method: "POST /x HTTP/1.1\r\n\r\n" + smuggled + "POST", headers: [], body: body), // the method
            try recordLine(target: "/a HTTP/1.1\r\n\r\n" + smuggled, headers: [], body: body),       // the target
            try recordLine(headers: [("Content-Type", "application/json"), ("X-Id", "last")], body: body),
        ]
        let record = try write("smuggle.ndjson", Data((lines.joined(separator: "\n") + "\n").utf8))
        let result = try Binary.run(["webhook", "trigger", "--replay", record, "--to", receiver.baseURL + "/hook"])
        XCTAssertEqual(result.status, 65, result.stderr)
        XCTAssertEqual(receiver.requests.count, 2, "\(receiver.requests.map { "\($0.method) \($0.path)" })")
        XCTAssertEqual(receiver.requests.map { $0.header("X-Id") }, ["first", "last"])
        XCTAssertFalse(receiver.requests.contains { $0.path.contains("smuggled") })
        for line in 2...7 {
            XCTAssertTrue(result.stderr.contains("\(record):\(line): ") && result.stderr.contains("skipped"), "line \(line): \(result.stderr)")
        }
        XCTAssertTrue(result.stderr.contains("6 records skipped (lines 2, 3, 4, 5, 6, 7); 2 sent"), result.stderr)
    }

    func testATornRecordFileStillReplaysItsCompleteRecordsAndAnEmptyOneSaysSo() throws {
        let receiver = try LoopbackHTTPServer { _, _ in .init(status: 200) }
        defer { receiver.stop() }
        let body = #"{"id":"evt_torn","type":"push.delivered"}"#
        let complete = try recordLine(headers: [("Content-Type", "application/json")], body: body)
        // kill -9 or a full disk in the middle of the third record.
        let torn = try write("torn.ndjson", Data((complete + "\n" + complete + "\n" + String(complete.prefix(40))).utf8))
        let result = try Binary.run(["webhook", "trigger", "--replay", torn, "--to", receiver.baseURL + "/hook"])
        XCTAssertEqual(result.status, 65, result.stderr)
        XCTAssertEqual(receiver.requests.count, 2)
        XCTAssertTrue(result.stderr.contains("\(torn):3: the file ends inside this record (torn"), result.stderr)

        let empty = try write("empty.ndjson", Data())
        let nothing = try Binary.run(["webhook", "trigger", "--replay", empty, "--to", receiver.baseURL + "/hook"])
        XCTAssertNotEqual(nothing.status, 0)
        XCTAssertTrue(nothing.stderr.contains("no deliveries in \(empty)"), nothing.stderr)
        XCTAssertEqual(receiver.requests.count, 2)
    }

    func testReplayTimeoutBoundsTheWholeCommand() throws {
        let slow = try LoopbackHTTPServer { _, _ in var reply = LoopbackHTTPServer.Reply(status: 200); reply.delay = 0.6; return reply }
        defer { slow.stop() }
        let line = try recordLine(headers: [("Content-Type", "application/json")], body: #"{"id":"evt_slow"}"#)
        let record = try write("slow.ndjson", Data(String(repeating: line + "\n", count: 6).utf8))
        // Each answer alone fits in the timeout; the six together do not.
        let result = try Binary.run(["webhook", "trigger", "--replay", record, "--to", slow.baseURL + "/hook", "--timeout", "1.5"])
        XCTAssertEqual(result.status, 75, result.stderr)
        XCTAssertLessThan(slow.requests.count, 6)
        XCTAssertTrue(result.stderr.contains("of 6 deliveries sent; --timeout bounds the whole replay"), result.stderr)
    }

    // MARK: - 8. Forwarding goes where it is told

    func testForwardsToLoopbackNeverGoThroughHTTPProxy() throws {
        let proxy = try LoopbackHTTPServer { _, _ in .init(status: 502, body: Array("via proxy".utf8)) }
        defer { proxy.stop() }
        let handler = try LoopbackHTTPServer { _, _ in .init(status: 200, body: Array("handled".utf8)) }
        defer { handler.stop() }
        let body = try demoBody("no-proxy")
        let signature = try pythonSignature(bodyPath: body, keyPath: secretPath)
        for host in ["127.0.0.1", "localhost"] {
            let listener = try startListener(["--secret-file", secretPath, "--forward-to", "http://\(host):\(handler.port)/hook"],
                                             environment: ["http_proxy": proxy.baseURL, "HTTPS_PROXY": proxy.baseURL, "ALL_PROXY": proxy.baseURL])
            let answer = try post(listener, bodyPath: body, signature: signature)
            XCTAssertEqual(answer.status, 200, host)
            XCTAssertEqual(answer.body, "handled", host)
            XCTAssertEqual(listener.stop(), 0)
        }
        XCTAssertEqual(proxy.requests.count, 0, "a forward went through the proxy: \(proxy.requests.map(\.path))")
        XCTAssertEqual(handler.requests.count, 2)
        XCTAssertTrue(handler.requests.allSatisfy { $0.header("X-AppDNA-Signature") == signature })
    }

    func testAForwardCarriesTheSendersContentTypeAndNoneWhenItSentNone() throws {
        let handler = try LoopbackHTTPServer { _, _ in .init(status: 200) }
        defer { handler.stop() }
        let listener = try startListener(["--secret-file", secretPath, "--forward-to", handler.baseURL + "/hook"])
        let body = try demoBody("content-type")
        let signature = try pythonSignature(bodyPath: body, keyPath: secretPath)
        for type in ["", "text/plain; charset=utf-8"] {
            // curl -H 'Content-Type:' sends none (it would add application/x-www-form-urlencoded).
            let answer = try curl(["-X", "POST", "--data-binary", "@" + body, "-H", type.isEmpty ? "Content-Type:" : "Content-Type: \(type)", "-H", "X-AppDNA-Signature: \(signature)", listener.url])
            XCTAssertEqual(answer.status, 200, type)
        }
        XCTAssertEqual(listener.stop(), 0)
        XCTAssertEqual(handler.requests.count, 2)
        XCTAssertEqual(handler.requests.map { $0.header("Content-Type") }, [nil, "text/plain; charset=utf-8"],
                       "the forwards' Content-Type differs from what the sender sent")
    }

    // MARK: - 7 and 9. Answers: capped, no secret paths, no body for HEAD

    func testAHandlersLargeAnswerIsRelayedCutAndA401NamesNoSecretFile() throws {
        let handler = try LoopbackHTTPServer { _, _ in
            var reply = LoopbackHTTPServer.Reply(status: 200, headers: [("Content-Type", "text/plain")])
            reply.streamedBodyBytes = 5 << 20
            return reply
        }
        defer { handler.stop() }
        let listener = try startListener(["--secret-file", secretPath, "--forward-to", handler.baseURL + "/hook"])
        let body = try demoBody("big-answer")
        let answer = try post(listener, bodyPath: body, signature: try pythonSignature(bodyPath: body, keyPath: secretPath))
        XCTAssertEqual(answer.status, 200)
        XCTAssertEqual(answer.body.utf8.count, 1 << 20, "the relayed answer is the handler's first 1 MiB")
        let refused = try post(listener, bodyPath: body, signature: "sha256=" + String(repeating: "0", count: 64))
        XCTAssertEqual(refused.status, 401)
        XCTAssertTrue(refused.body.contains("the signature does not match this body"), refused.body)
        XCTAssertFalse(refused.body.contains(secretPath) || refused.body.contains("new-secret.txt"), "the 401 names the secret file: \(refused.body)")
        XCTAssertEqual(listener.stop(), 0)
        XCTAssertTrue(listener.stdout.contains("forwarded: 200") && listener.stdout.contains("cut to the first 1 MiB"), listener.stdout)
    }

    // MARK: - 7. No thread, no crash

    /// Under `ulimit -v`, the listener starts but the system may refuse the thread a request
    /// needs: the request is answered 503 and the listener carries on (it used to die of
    /// SIGILL). Swept over limits from too small to start to large enough for everything.
    func testUnderAnAddressSpaceLimitARequestWithoutAThreadIs503AndTheListenerCarriesOn() throws {
        let body = try demoBody("address-space")
        let signature = try pythonSignature(bodyPath: body, keyPath: secretPath)
        var answers: [Int: Int] = [:]   // limit in MiB → status
        for megabytes in stride(from: 16, through: 64, by: 4) {
            let name = "ulimit-\(megabytes)"
            let stdoutPath = path(name + ".out"), stderrPath = path(name + ".err")
            _ = FileManager.default.createFile(atPath: stdoutPath, contents: nil)
            _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "ulimit -v \(megabytes << 10) && exec \"$0\" \"$@\"", Binary.url.path,
                                 "webhook", "listen", "--port", "0", "--secret-file", secretPath]
            process.environment = ["PATH": "/usr/bin:/bin"]
            process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: stdoutPath))
            process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: stderrPath))
            try process.run()
            var port: Int?
            let deadline = Date().addingTimeInterval(10)
            while port == nil && process.isRunning && Date() < deadline {
                let text = (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? ""
                port = text.firstMatch(of: /127\.0\.0\.1:(\d+)/).flatMap { Int($0.1) }
                if port == nil { usleep(20_000) }
            }
            guard let port else {
                // Too little address space to start at all (the loader or the runtime says so).
                if process.isRunning { process.terminate() }
                process.waitUntilExit()
                continue
            }
            let listener = Listener(process: process, port: port, stdoutPath: stdoutPath, stderrPath: stderrPath)
            let answer = try post(listener, bodyPath: body, signature: signature)
            answers[megabytes] = answer.status
            XCTAssertTrue(process.isRunning, "ulimit -v \(megabytes) MiB: the listener died answering (status \(process.terminationStatus))")
            XCTAssertTrue([200, 503].contains(answer.status), "ulimit -v \(megabytes) MiB: answered \(answer.status)")
            if answer.status == 503 { XCTAssertTrue(listener.stdout.contains("cannot start a thread"), listener.stdout) }
            XCTAssertEqual(listener.stop(), 0, "ulimit -v \(megabytes) MiB: \(listener.stderr)")
        }
        print("ulimit -v (MiB) → status: " + answers.sorted { $0.key < $1.key }.map { "\($0.key) → \($0.value)" }.joined(separator: ", "))
        XCTAssertTrue(answers.values.contains(200), "no limit in the sweep was large enough to serve: \(answers)")
    }

    // MARK: - 4 and 9. Stalled senders hold no slot and cannot hold a stop

    /// `count` connections to `port` that stop half way, every other one in the head and the
    /// rest in the body (`Content-Length: 100`, 6 bytes sent), held open by a python3 helper
    /// until the test ends.
    func holdStalledSenders(port: Int, count: Int, target: String = "/webhooks") throws -> Process {
        let hold = """
        import socket,sys,time
        port,count,target=int(sys.argv[1]),int(sys.argv[2]),sys.argv[3].encode(); held=[]
        for i in range(count):
            s=socket.create_connection(('127.0.0.1',port))
            s.sendall(b'POST '+target+b' HTTP/1.1\\r\\nHost: x\\r\\nContent-Length: 100\\r\\n\\r\\n{"id":' if i%2 else b'POST '+target+b' HTTP/1.1\\r\\nHost: x\\r\\nX-Sl')
            held.append(s)
        print('held', flush=True); time.sleep(120)
        """
        let (helper, output) = try startPython(hold, [String(port), String(count), target])
        XCTAssertEqual(String(decoding: output.readData(ofLength: 5), as: UTF8.self), "held\n")
        return helper
    }

    func testStalledBodiesHoldNoSlotAndSIGTERMStopsPromptly() throws {
        // One slot, minute-long timeouts: a stalled body holding the slot would keep the delivery
        // waiting (and the stop) for a minute.
        let listener = try startListener(["--secret-file", secretPath, "--max-connections", "1", "--header-timeout", "60", "--idle-timeout", "60"])
        let helper = try holdStalledSenders(port: listener.port, count: 20)
        let body = try demoBody("beside-stalled")
        // curl gives up after 20 s; the stalled bodies' timeouts are a minute away.
        XCTAssertEqual(try post(listener, bodyPath: body, signature: try pythonSignature(bodyPath: body, keyPath: secretPath)).status, 200)
        let stopping = Date()
        kill(listener.process.processIdentifier, SIGTERM)
        let deadline = Date().addingTimeInterval(10)
        while listener.process.isRunning && Date() < deadline { usleep(20_000) }
        XCTAssertFalse(listener.process.isRunning, "SIGTERM did not stop the listener with stalled senders")
        XCTAssertEqual(listener.stop(), 0)
        print("stopped \(Int(Date().timeIntervalSince(stopping) * 1000)) ms after SIGTERM with 20 stalled senders")
        XCTAssertTrue(listener.stderr.contains("1 received, 1 valid"), listener.stderr)
        helper.terminate()
    }

    /// The same for `api serve` (64 slots, a 30 s idle timeout): 200 ingest requests that stop
    /// half way (100 of them in the body, more than the slots) do not keep the SDK's bundle
    /// request waiting, and SIGTERM still stops it.
    func testAPIServeStalledBodiesHoldNoSlot() throws {
        let bundle = try write("served.json", Data(#"{"bundle_version": 7}"#.utf8))
        let server = try APIServeProcess(["--bundle", bundle])
        let port = Int(server.baseURL.split(separator: ":").last!)!
        let helper = try holdStalledSenders(port: port, count: 200, target: "/api/v1/ingest/events")
        // curl gives up after 20 s; the stalled requests' idle timeout is 30 s away.
        let answer = try curl(["-H", "x-api-key: adn_test_serve0000000000000001", server.baseURL + "/api/v1/sdk/config-bundle/version"])
        XCTAssertEqual(answer.status, 200, "the bundle request waited behind the stalled senders")
        XCTAssertTrue(answer.body.hasPrefix(#"{"bundle_version":7"#), answer.body)
        kill(server.process.processIdentifier, SIGTERM)
        let deadline = Date().addingTimeInterval(10)
        while server.process.isRunning && Date() < deadline { usleep(20_000) }
        XCTAssertFalse(server.process.isRunning, "SIGTERM did not stop api serve with stalled senders")
        server.stop()
        helper.terminate()
    }
}
