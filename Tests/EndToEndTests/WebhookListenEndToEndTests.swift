import Foundation
import LoopbackHTTPServer
import XCTest
import TestSupport

/// `appdna webhook listen` and `webhook trigger` as running processes on 127.0.0.1, driven by
/// real clients (curl, raw sockets from Python) and forwarding to real servers (the loopback
/// server, and a Python server that checks every signature itself with `hmac`). Secrets travel
/// only through files; every output and the record file are searched for them.
final class WebhookListenEndToEndTests: XCTestCase {
    var directory: URL!
    var secret = ""
    var oldSecret = ""
    var secretPath = ""
    var oldSecretPath = ""
    var listeners: [Listener] = []
    var helpers: [Process] = []

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("appdna-listen-e2e-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        secret = "whsec_LISTEN_NEW_" + UUID().uuidString
        oldSecret = "whsec_LISTEN_OLD_" + UUID().uuidString
        secretPath = try write("new-secret.txt", Data((secret + "\n").utf8))
        oldSecretPath = try write("old-secret.txt", Data((oldSecret + "\n").utf8))
    }

    override func tearDownWithError() throws {
        for listener in listeners where listener.process.isRunning {
            listener.process.terminate()
            listener.process.waitUntilExit()
        }
        for helper in helpers where helper.isRunning {
            helper.terminate()
            helper.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
    }

    func write(_ name: String, _ data: Data) throws -> String {
        let url = directory.appendingPathComponent(name)
        try data.write(to: url)
        return url.path
    }

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    // MARK: - The listener process

    final class Listener {
        let process: Process
        let port: Int
        let stdoutPath: String
        let stderrPath: String
        var url: String { "http://127.0.0.1:\(port)/webhooks" }

        init(process: Process, port: Int, stdoutPath: String, stderrPath: String) {
            self.process = process
            self.port = port
            self.stdoutPath = stdoutPath
            self.stderrPath = stderrPath
        }

        var stdout: String { (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "" }
        var stderr: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

        /// SIGTERM, then waits for the exit.
        func stop(_ signal: Int32 = SIGTERM) -> Int32 {
            kill(process.processIdentifier, signal)
            process.waitUntilExit()
            return process.terminationStatus
        }
    }

    /// Starts `appdna webhook listen --port 0 …` and waits for its "listening on" line.
    /// `openFiles`: the listener runs under `ulimit -n openFiles`.
    func startListener(_ arguments: [String], environment: [String: String] = [:], openFiles: Int? = nil) throws -> Listener {
        let name = UUID().uuidString
        let stdoutPath = path("listen-\(name).out"), stderrPath = path("listen-\(name).err")
        _ = FileManager.default.createFile(atPath: stdoutPath, contents: nil)
        _ = FileManager.default.createFile(atPath: stderrPath, contents: nil)
        let process = Process()
        process.executableURL = Binary.url
        process.arguments = ["webhook", "listen", "--port", "0"] + arguments
        if let openFiles {
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "ulimit -n \(openFiles) && exec \"$0\" \"$@\"", Binary.url.path] + process.arguments!
        }
        process.environment = ["PATH": "/usr/bin:/bin"].merging(environment) { $1 }
        process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: stdoutPath))
        process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: stderrPath))
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let started = Date()
        while Date().timeIntervalSince(started) < 10 {
            let text = (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? ""
            if let range = text.range(of: #"127\.0\.0\.1:(\d+)"#, options: .regularExpression) {
                let port = Int(text[range].split(separator: ":")[1])!
                let listener = Listener(process: process, port: port, stdoutPath: stdoutPath, stderrPath: stderrPath)
                listeners.append(listener)
                return listener
            }
            if !process.isRunning { break }
            usleep(20_000)
        }
        process.terminate()
        throw TestFailure("the listener did not start: \((try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "")")
    }

    // MARK: - Clients

    struct Answer {
        let status: Int
        let body: String
    }

    /// curl with `arguments`; the status and body of the answer (status 0 when none came).
    func curl(_ arguments: [String]) throws -> Answer {
        let bodyPath = path("curl-\(UUID().uuidString).body")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["-s", "-o", bodyPath, "-w", "%{http_code}", "--max-time", "20"] + arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let body = (try? String(contentsOfFile: bodyPath, encoding: .utf8)) ?? ""
        return Answer(status: Int(String(decoding: data, as: UTF8.self)) ?? 0, body: body)
    }

    /// POSTs `body` (a file) with a signature header to the listener.
    func post(_ listener: Listener, bodyPath: String, signature: String?, extra: [String] = []) throws -> Answer {
        var arguments = ["-X", "POST", "--data-binary", "@" + bodyPath, "-H", "Content-Type: application/json"]
        if let signature { arguments += ["-H", "X-AppDNA-Signature: \(signature)"] }
        return try curl(arguments + extra + [listener.url])
    }

    /// The reference HMAC: Python's hmac module, key and body from files (never argv).
    func pythonSignature(bodyPath: String, keyPath: String) throws -> String {
        let result = try python("import hmac,hashlib,sys\nkey=open(sys.argv[1],'rb').read().rstrip(b'\\n')\nprint('sha256='+hmac.new(key, open(sys.argv[2],'rb').read(), hashlib.sha256).hexdigest())",
                                [keyPath, bodyPath])
        return result.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Starts `python3 -c script arguments…` (stopped in tearDown if still running); read its
    /// stdout from the returned handle.
    func startPython(_ script: String, _ arguments: [String]) throws -> (process: Process, stdout: FileHandle) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try requireTool("python3", because: "the independent client or forwarding target"))
        process.arguments = ["-c", script] + arguments
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        helpers.append(process)
        return (process, output.fileHandleForReading)
    }

    @discardableResult
    func python(_ script: String, _ arguments: [String]) throws -> String {
        let (process, stdout) = try startPython(script, arguments)
        let data = stdout.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "python3 failed")
        return String(decoding: data, as: UTF8.self)
    }

    func demoBody(_ name: String, type: String = "subscription.renewed") throws -> String {
        let body = #"{"id":"evt_\#(name)","type":"\#(type)","created_at":"2026-02-19T10:00:00Z","data":{"user_id":"u1"}}"#
        return try write(name + ".json", Data(body.utf8))
    }

    func assertNoSecrets(in texts: [String], file: StaticString = #filePath, line: UInt = #line) {
        for text in texts {
            XCTAssertFalse(text.contains(secret), "the secret leaked", file: file, line: line)
            XCTAssertFalse(text.contains(oldSecret), "the old secret leaked", file: file, line: line)
        }
    }

    // MARK: - Tests

    func testCurlValidRotatedTamperedOversizedChunkedAndMalformedRequests() throws {
        let listener = try startListener(["--secret-file", secretPath, "--secret-file", oldSecretPath, "--max-body", "2000"])
        let valid = try demoBody("valid")
        XCTAssertEqual(try post(listener, bodyPath: valid, signature: try pythonSignature(bodyPath: valid, keyPath: secretPath)).status, 200)

        // Rotation: a delivery still signed with the old secret is valid (secret 2 of 2).
        let rotated = try demoBody("rotated")
        XCTAssertEqual(try post(listener, bodyPath: rotated, signature: try pythonSignature(bodyPath: rotated, keyPath: oldSecretPath)).status, 200)

        // Tampered: signed, then a newline appended (what an editor or echo does).
        let original = try demoBody("tampered")
        let signature = try pythonSignature(bodyPath: original, keyPath: secretPath)
        let tampered = try write("tampered-sent.json", try Data(contentsOf: URL(fileURLWithPath: original)) + Data("\n".utf8))
        let refused = try post(listener, bodyPath: tampered, signature: signature)
        XCTAssertEqual(refused.status, 401)

        // Missing signature.
        XCTAssertEqual(try post(listener, bodyPath: valid, signature: nil).status, 401)

        // Oversized: answered 413 without reading the body.
        let big = try write("big.json", Data(repeating: UInt8(ascii: "a"), count: 50_000))
        XCTAssertEqual(try post(listener, bodyPath: big, signature: "sha256=" + String(repeating: "0", count: 64)).status, 413)

        // Chunked body, exact bytes verified.
        let chunked = try demoBody("chunked")
        XCTAssertEqual(try post(listener, bodyPath: chunked, signature: try pythonSignature(bodyPath: chunked, keyPath: secretPath),
                                extra: ["-H", "Transfer-Encoding: chunked"]).status, 200)

        // Malformed: a Content-Length that is not a number, and a request line with a space in the method.
        XCTAssertEqual(try curl(["-X", "POST", "--data-binary", "@" + valid, "-H", "Content-Length: lots", listener.url]).status, 400)
        XCTAssertEqual(try curl(["-X", "BAD METHOD", listener.url]).status, 400)

        // Still serving after all of that.
        XCTAssertEqual(try post(listener, bodyPath: valid, signature: try pythonSignature(bodyPath: valid, keyPath: secretPath)).status, 200)

        XCTAssertEqual(listener.stop(), 0)
        let lines = listener.stdout.split(separator: "\n")
        XCTAssertTrue(lines.contains { $0.contains("evt_valid") && $0.contains("valid (secret 1 of 2") }, listener.stdout)
        XCTAssertTrue(lines.contains { $0.contains("evt_rotated") && $0.contains("valid (secret 2 of 2") }, listener.stdout)
        XCTAssertTrue(lines.contains { $0.contains("evt_tampered") && $0.contains("invalid:") && $0.contains("trailing-newline-added") },
                      listener.stdout)
        XCTAssertTrue(lines.contains { $0.contains("no X-AppDNA-Signature header") }, listener.stdout)
        XCTAssertTrue(lines.contains { $0.contains("rejected 413") }, listener.stdout)
        XCTAssertTrue(lines.contains { $0.contains("rejected 400") && $0.contains("Content-Length") }, listener.stdout)
        XCTAssertTrue(listener.stderr.contains("stopped: 6 received, 4 valid, 2 invalid, 3 rejected"), listener.stderr)
        assertNoSecrets(in: [listener.stdout, listener.stderr])
    }

    func testSlowlorisHeadersAndStalledBodiesAreCutOffWhileOthersAreServed() throws {
        let listener = try startListener(["--secret-file", secretPath, "--header-timeout", "0.5", "--idle-timeout", "0.5"])
        // Three slow senders: headers that never finish, and a body that stalls half way.
        let slow = """
        import socket,sys,time,threading
        port=int(sys.argv[1]); results=[None]*3
        def run(i, data):
            s=socket.create_connection(('127.0.0.1',port)); s.sendall(data); s.settimeout(10)
            try: results[i]=s.recv(100).split(b' ')[1].decode()
            except Exception as e: results[i]='none'
        heads=b'POST /webhooks HTTP/1.1\\r\\nHost: x\\r\\nX-Slow: '
        stalled=b'POST /webhooks HTTP/1.1\\r\\nHost: x\\r\\nContent-Length: 100\\r\\n\\r\\n{"id":'
        ts=[threading.Thread(target=run,args=(0,heads)),threading.Thread(target=run,args=(1,heads)),threading.Thread(target=run,args=(2,stalled))]
        [t.start() for t in ts]; [t.join() for t in ts]
        print(' '.join(results))
        """
        let (helper, output) = try startPython(slow, [String(listener.port)])
        // While they hang, a normal delivery goes through.
        let valid = try demoBody("during-slowloris")
        XCTAssertEqual(try post(listener, bodyPath: valid, signature: try pythonSignature(bodyPath: valid, keyPath: secretPath)).status, 200)
        let verdicts = String(decoding: output.readDataToEndOfFile(), as: UTF8.self)
        helper.waitUntilExit()
        // 408 is the listener's timeout cutting them (not the clients' own 10 s giving up).
        XCTAssertEqual(verdicts.trimmingCharacters(in: .whitespacesAndNewlines), "408 408 408")
        XCTAssertEqual(listener.stop(), 0)
        XCTAssertTrue(listener.stdout.contains("header timeout"), listener.stdout)
        XCTAssertTrue(listener.stdout.contains("(6 of 100 bytes came)"), listener.stdout)
        XCTAssertTrue(listener.stderr.contains("1 received, 1 valid, 0 invalid, 3 rejected"), listener.stderr)
    }

    func testForwardTargetAnswering500SlowAndDown() throws {
        let failing = try LoopbackHTTPServer { _, _ in .init(status: 500, headers: [("Content-Type", "text/plain")], body: Array("handler crashed".utf8)) }
        defer { failing.stop() }
        let slow = try LoopbackHTTPServer { _, _ in var reply = LoopbackHTTPServer.Reply(status: 200); reply.delay = 3; return reply }
        defer { slow.stop() }
        let gone = try LoopbackHTTPServer { _, _ in .init(status: 200) }
        let downURL = gone.baseURL + "/hook"
        gone.stop()

        let body = try demoBody("forwarded")
        let signature = try pythonSignature(bodyPath: body, keyPath: secretPath)
        for (target, expected, word) in [(failing.baseURL + "/hook", 500, "forwarded: 500"),
                                          (slow.baseURL + "/hook", 504, "forward failed"),
                                          (downURL, 502, "forward failed")] {
            let listener = try startListener(["--secret-file", secretPath, "--forward-to", target, "--forward-timeout", "0.5"])
            let answer = try post(listener, bodyPath: body, signature: signature)
            XCTAssertEqual(answer.status, expected, target)
            if expected == 500 { XCTAssertEqual(answer.body, "handler crashed") }
            XCTAssertEqual(listener.stop(), 0)
            XCTAssertTrue(listener.stdout.contains(word), listener.stdout)
        }
        // The 500 target got the exact body and the signature header.
        let forwarded = try XCTUnwrap(failing.requests.first)
        XCTAssertEqual(forwarded.body, Array(try Data(contentsOf: URL(fileURLWithPath: body))))
        XCTAssertEqual(forwarded.header("X-AppDNA-Signature"), signature)
        XCTAssertEqual(forwarded.path, "/hook")
    }

    func testInvalidDeliveriesAreForwardedOnlyWithForwardInvalid() throws {
        let handler = try LoopbackHTTPServer { _, _ in .init(status: 202, body: Array("accepted".utf8)) }
        defer { handler.stop() }
        let body = try demoBody("unsigned")
        let plain = try startListener(["--secret-file", secretPath, "--forward-to", handler.baseURL + "/hook"])
        XCTAssertEqual(try post(plain, bodyPath: body, signature: "sha256=" + String(repeating: "ab", count: 32)).status, 401)
        XCTAssertEqual(plain.stop(), 0)
        XCTAssertEqual(handler.requests.count, 0)

        let forwarding = try startListener(["--secret-file", secretPath, "--forward-to", handler.baseURL + "/hook", "--forward-invalid"])
        let answer = try post(forwarding, bodyPath: body, signature: "sha256=" + String(repeating: "ab", count: 32))
        XCTAssertEqual(answer.status, 202)
        XCTAssertEqual(answer.body, "accepted")
        XCTAssertEqual(forwarding.stop(), 0)
        XCTAssertEqual(handler.requests.count, 1)
        XCTAssertTrue(forwarding.stdout.contains("invalid: the signature does not match"), forwarding.stdout)
        XCTAssertTrue(forwarding.stdout.contains("forwarded: 202"), forwarding.stdout)
        XCTAssertTrue(forwarding.stderr.contains("1 received, 0 valid, 1 invalid, 0 rejected; forwarded: 202 ×1"), forwarding.stderr)
    }

    /// A target written in Python that checks each delivery's signature itself and keeps each
    /// body, answering 200 for a good signature and 400 for a bad one.
    func startPythonTarget() throws -> (port: Int, bodies: String) {
        let bodies = path("target-bodies")
        try FileManager.default.createDirectory(atPath: bodies, withIntermediateDirectories: true)
        let script = """
        import hmac,hashlib,sys,os,http.server,itertools
        key=open(sys.argv[1],'rb').read().rstrip(b'\\n'); out=sys.argv[2]; counter=itertools.count()
        class H(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body=self.rfile.read(int(self.headers['Content-Length']))
                good='sha256='+hmac.new(key, body, hashlib.sha256).hexdigest()
                ok=hmac.compare_digest(good, self.headers.get('X-AppDNA-Signature',''))
                n=next(counter)
                open(os.path.join(out,'%03d-%s.body'%(n,'ok' if ok else 'bad')),'wb').write(body)
                answer=b'{"checked":"%s"}'%(b'ok' if ok else b'bad')
                self.send_response(200 if ok else 400); self.send_header('Content-Type','application/json')
                self.send_header('Content-Length',str(len(answer))); self.end_headers(); self.wfile.write(answer)
            def log_message(self,*a): pass
        server=http.server.ThreadingHTTPServer(('127.0.0.1',0),H)
        print(server.server_address[1],flush=True)
        server.serve_forever()
        """
        let (_, output) = try startPython(script, [secretPath, bodies])
        var line = Data()
        while !line.contains(10) {
            let byte = output.readData(ofLength: 1)
            if byte.isEmpty { throw TestFailure("the python target did not start") }
            line += byte
        }
        return (Int(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))!, bodies)
    }

    func bodies(in directory: String) throws -> [(name: String, bytes: Data)] {
        try FileManager.default.contentsOfDirectory(atPath: directory).sorted().map { ($0, try Data(contentsOf: URL(fileURLWithPath: directory + "/" + $0))) }
    }

    func testTriggerThroughListenToATargetThatChecksSignaturesThenRecordAndReplay() throws {
        let target = try startPythonTarget()
        let targetURL = "http://127.0.0.1:\(target.port)/hook"
        let record = path("deliveries.ndjson")
        let listener = try startListener(["--secret-file", secretPath, "--forward-to", targetURL, "--record", record, "--json"])
        let types = ["user.created", "subscription.renewed", "experiment.exposure", "paywall.purchase_completed", "push.opened", "onboarding.completed"]
        for type in types {
            let sent = try Binary.run(["webhook", "trigger", type, "--to", listener.url, "--secret-file", secretPath])
            XCTAssertEqual(sent.status, 0, sent.stderr)
            XCTAssertTrue(sent.text.contains("HTTP 200"), sent.text)
            XCTAssertTrue(sent.text.contains(#"{"checked":"ok"}"#), sent.text)
            assertNoSecrets(in: [sent.text, sent.stderr])
        }
        // Any other type, with its own body file.
        let custom = try write("custom.bin", Data([0x00, 0xFF, 0x7B, 0x0A, 0xC3]))
        let sentCustom = try Binary.run(["webhook", "trigger", "invoice.paid", "--body", custom, "--to", listener.url],
                                        environment: ["APPDNA_WEBHOOK_SECRET": secret])
        XCTAssertEqual(sentCustom.status, 0, sentCustom.stderr)
        XCTAssertEqual(listener.stop(), 0)

        // The listener's JSON lines, and the target's independent verdicts.
        let events = listener.stdout.split(separator: "\n").map { try! JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
        XCTAssertEqual(events.map { $0["event"] as? String }, types + ["invoice.paid"])
        XCTAssertTrue(events.allSatisfy { $0["valid"] as? Bool == true && $0["status"] as? Int == 200 })
        XCTAssertTrue(events.allSatisfy { ($0["forward"] as? [String: Any])?["status"] as? Int == 200 })
        let received = try bodies(in: target.bodies)
        XCTAssertEqual(received.count, types.count + 1)
        XCTAssertTrue(received.allSatisfy { $0.name.hasSuffix("-ok.body") }, "\(received.map(\.name))")
        XCTAssertEqual(received.last?.bytes, Data([0x00, 0xFF, 0x7B, 0x0A, 0xC3]))

        // The record file: 0600, one line per delivery, no secret.
        let attributes = try FileManager.default.attributesOfItem(atPath: record)
        XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o600)
        let recorded = try String(contentsOfFile: record, encoding: .utf8)
        XCTAssertEqual(recorded.split(separator: "\n").count, types.count + 1)
        XCTAssertTrue(recorded.contains("body_base64"))
        assertNoSecrets(in: [recorded, listener.stdout, listener.stderr])

        // Replay straight to the target: byte-identical bodies, original signatures still good.
        try FileManager.default.removeItem(atPath: target.bodies)
        try FileManager.default.createDirectory(atPath: target.bodies, withIntermediateDirectories: true)
        let replayed = try Binary.run(["webhook", "trigger", "--replay", record, "--to", targetURL])
        XCTAssertEqual(replayed.status, 0, replayed.stderr)
        let again = try bodies(in: target.bodies)
        XCTAssertEqual(again.map(\.bytes), received.map(\.bytes))
        XCTAssertTrue(again.allSatisfy { $0.name.hasSuffix("-ok.body") })

        // --resign with another secret: the target (which knows only the new one) refuses them all.
        let resigned = try Binary.run(["webhook", "trigger", "--replay", record, "--resign", "--to", targetURL, "--secret-file", oldSecretPath])
        XCTAssertEqual(resigned.status, 1)
        XCTAssertTrue(resigned.text.contains("HTTP 400"), resigned.text)
        assertNoSecrets(in: [replayed.text, replayed.stderr, resigned.text, resigned.stderr])
    }

    func testSIGTERMDuringARequestFinishesAndRecordsIt() throws {
        let record = path("sigterm.ndjson")
        let listener = try startListener(["--secret-file", secretPath, "--record", record])
        let body = try demoBody("in-flight")
        let signature = try pythonSignature(bodyPath: body, keyPath: secretPath)
        // Sends the headers and half the body, waits for the go file, then sends the rest.
        let go = path("go")
        let script = """
        import socket,sys,os,time
        port,body_path,sig,go=int(sys.argv[1]),sys.argv[2],sys.argv[3],sys.argv[4]
        body=open(body_path,'rb').read()
        s=socket.create_connection(('127.0.0.1',port))
        s.sendall(b'POST /webhooks HTTP/1.1\\r\\nHost: x\\r\\nX-AppDNA-Signature: '+sig.encode()+b'\\r\\nContent-Length: %d\\r\\n\\r\\n'%len(body)+body[:20])
        print('sent', flush=True)
        while not os.path.exists(go): time.sleep(0.02)
        s.sendall(body[20:]); s.settimeout(10)
        print(s.recv(100).split(b' ')[1].decode(), flush=True)
        """
        let (helper, output) = try startPython(script, [String(listener.port), body, signature, go])
        XCTAssertEqual(String(decoding: output.readData(ofLength: 5), as: UTF8.self), "sent\n")
        usleep(200_000)
        kill(listener.process.processIdentifier, SIGTERM)
        usleep(300_000)
        XCTAssertTrue(listener.process.isRunning, "the listener must finish the request under way")
        _ = FileManager.default.createFile(atPath: go, contents: nil)
        let status = String(decoding: output.readDataToEndOfFile(), as: UTF8.self)
        helper.waitUntilExit()
        listener.process.waitUntilExit()
        XCTAssertEqual(status.trimmingCharacters(in: .whitespacesAndNewlines), "200")
        XCTAssertEqual(listener.process.terminationStatus, 0)
        let recorded = try String(contentsOfFile: record, encoding: .utf8)
        XCTAssertTrue(recorded.contains("evt_in-flight"), recorded)
        XCTAssertTrue(listener.stderr.contains("stopped: 1 received, 1 valid"), listener.stderr)
    }

    /// The second signal ends the listener at once with 128 + that signal: 143 for SIGTERM,
    /// 130 for SIGINT, whichever came first.
    func testASecondSignalQuitsAtOnceWithItsOwnStatus() throws {
        // A handler that takes its time: the delivery is under way (being forwarded) when the
        // first signal comes, so the listener waits for it; the second ends it at once.
        let slow = try LoopbackHTTPServer { _, _ in var reply = LoopbackHTTPServer.Reply(status: 200); reply.delay = 20; return reply }
        defer { slow.stop() }
        let body = try demoBody("under-way")
        let signature = try pythonSignature(bodyPath: body, keyPath: secretPath)
        for (first, second, expected) in [(SIGTERM, SIGTERM, Int32(143)), (SIGINT, SIGINT, Int32(130)), (SIGINT, SIGTERM, Int32(143))] {
            let listener = try startListener(["--secret-file", secretPath, "--forward-to", slow.baseURL + "/hook", "--forward-timeout", "30"])
            let forwardedBefore = slow.requests.count
            let sender = Process()
            sender.executableURL = URL(fileURLWithPath: try requireTool("curl", because: "the sender of the delivery under way"))
            sender.arguments = ["-s", "-o", "/dev/null", "--max-time", "30", "-X", "POST", "--data-binary", "@" + body,
                                "-H", "X-AppDNA-Signature: \(signature)", listener.url]
            try sender.run()
            let deadline = Date().addingTimeInterval(10)
            while slow.requests.count == forwardedBefore && Date() < deadline { usleep(20_000) }
            XCTAssertEqual(slow.requests.count, forwardedBefore + 1, "the delivery did not reach the handler")
            kill(listener.process.processIdentifier, first)
            usleep(300_000)
            XCTAssertTrue(listener.process.isRunning, "the first signal waits for the request under way")
            // 128 + the signal: ended by it while the request was still being handled (the handler
            // waits 20 s); a listener that had waited for the request would have exited 0.
            XCTAssertEqual(listener.stop(second), expected, "\(first) then \(second)")
            XCTAssertTrue(listener.stderr.contains("appdna: interrupted again"), listener.stderr)
            sender.terminate()
            sender.waitUntilExit()
        }
    }

    func testTriggerExitStatusesAndOutputs() throws {
        let refusing = try LoopbackHTTPServer { _, _ in .init(status: 422, body: Array("nope".utf8)) }
        defer { refusing.stop() }
        let environment = ["APPDNA_WEBHOOK_SECRET": secret]
        let refused = try Binary.run(["webhook", "trigger", "push.delivered", "--to", refusing.baseURL], environment: environment)
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.text.contains("HTTP 422"), refused.text)
        XCTAssertTrue(refused.text.contains("nope"), refused.text)

        let gone = try LoopbackHTTPServer { _, _ in .init(status: 200) }
        let url = gone.baseURL
        gone.stop()
        let unreachable = try Binary.run(["webhook", "trigger", "push.delivered", "--to", url], environment: environment)
        XCTAssertEqual(unreachable.status, 69, unreachable.stderr)
        XCTAssertTrue(unreachable.stderr.hasPrefix("appdna: "), unreachable.stderr)

        // A demo delivery verifies with webhook verify (the same secret, from the environment).
        let printed = try Binary.run(["webhook", "trigger", "experiment.conversion", "--print", "--id", "evt_fixed"], environment: environment)
        XCTAssertEqual(printed.status, 0, printed.stderr)
        let parts = printed.text.components(separatedBy: "\n\n")
        let signatureLine = try XCTUnwrap(parts[0].split(separator: "\n").first { $0.hasPrefix("X-AppDNA-Signature: ") })
        let bodyPath = try write("printed.json", Data(parts[1].dropLast().utf8))
        let verified = try Binary.run(["webhook", "verify", bodyPath, "--header", String(signatureLine)], environment: environment)
        XCTAssertEqual(verified.status, 0, verified.text + verified.stderr)
        XCTAssertTrue(parts[1].contains(#""id":"evt_fixed""#))

        let unknown = try Binary.run(["webhook", "trigger", "subscription.renew", "--to", "http://127.0.0.1:1"], environment: environment)
        XCTAssertEqual(unknown.status, 64)
        XCTAssertTrue(unknown.stderr.contains("subscription.renewed"), unknown.stderr)

        let listed = try Binary.run(["webhook", "trigger", "--list"])
        XCTAssertEqual(listed.text.split(separator: "\n").count, 17)
        for type in ["user.trait_updated", "subscription.cancelled", "experiment.conversion", "paywall.dismissed", "push.opened", "onboarding.completed"] {
            XCTAssertTrue(listed.text.contains(type + " "), type)
        }
    }
}
