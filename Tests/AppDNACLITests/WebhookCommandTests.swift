import AppDNACore
import Foundation
import XCTest
@testable import AppDNACLI

/// `appdna webhook verify` / `sign`, in-process. Every run goes through `webhookCLI`, which
/// asserts that no secret is in argv and that no secret appears in stdout or stderr.
final class WebhookCommandTests: XCTestCase {
    /// Distinctive, so a leak cannot hide in ordinary text.
    static let secret = "whsec_TOPSECRET_c0ffee_91a7"
    static let oldSecret = "whsec_OLDSECRET_dead_beef_44"
    static let allSecrets = [secret, oldSecret, "  " + secret + "  ", secret + "\n"]

    static let body = #"{"id":"evt-123","type":"payment.completed","created_at":"2026-02-19T10:00:00Z","data":{"amount":1299,"currency":"EUR","note":"café"}}"#

    var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("appdna-webhook-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    // MARK: - helpers

    func file(_ name: String, _ bytes: [UInt8]) throws -> String {
        let url = directory.appendingPathComponent(name)
        try Data(bytes).write(to: url)
        return url.path
    }

    func file(_ name: String, _ text: String) throws -> String { try file(name, Array(text.utf8)) }

    static func hmac(_ body: [UInt8], _ key: String) -> String {
        "sha256=" + Hex.encode(HMACSHA256.authenticationCode(for: body, key: Array(key.utf8)))
    }

    static func hmac(_ body: String, _ key: String) -> String { hmac(Array(body.utf8), key) }

    /// Runs the CLI and checks the secrets never reach argv or any output.
    func webhookCLI(_ arguments: [String], secret: String? = WebhookCommandTests.secret, stdin: String? = nil,
                    file: StaticString = #filePath, line: UInt = #line) -> CapturedRun {
        for argument in arguments {
            for value in Self.allSecrets {
                XCTAssertFalse(argument.contains(HeaderText.trimmed(value)), "a secret in argv: \(argument)", file: file, line: line)
            }
        }
        var environment: [String: String] = [:]
        if let secret { environment["APPDNA_WEBHOOK_SECRET"] = secret }
        let result = runCLI(arguments, environment: environment, stdin: stdin)
        for value in Self.allSecrets.map({ HeaderText.trimmed($0) }) {
            XCTAssertFalse(result.stdout.contains(value), "secret in stdout of \(arguments)", file: file, line: line)
            XCTAssertFalse(result.stderr.contains(value), "secret in stderr of \(arguments)", file: file, line: line)
        }
        return result
    }

    func diagnoses(_ result: CapturedRun) -> [String] {
        guard let data = result.stdout.data(using: .utf8),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let explain = object["explain"] as? [String: Any],
              let list = explain["diagnoses"] as? [[String: Any]] else { return [] }
        return list.compactMap { $0["id"] as? String }
    }

    // MARK: - verdicts

    func testValidFromFileStdinAndEachSecretSource() throws {
        let path = try file("body.json", Self.body)
        let signature = Self.hmac(Self.body, Self.secret)

        var result = webhookCLI(["webhook", "verify", path, "--signature", signature])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.hasPrefix("valid: signature matches (secret 1 of 1, from APPDNA_WEBHOOK_SECRET)\n"), result.stdout)
        XCTAssertTrue(result.stdout.contains("body length  \(Self.body.utf8.count) bytes\n"), result.stdout)
        XCTAssertTrue(result.stdout.contains("body sha256  " + Hex.encode(SHA256.hash(Array(Self.body.utf8)))), result.stdout)
        XCTAssertEqual(result.stderr, "")

        // Bare hex, upper case, from a header line, from stdin.
        result = webhookCLI(["webhook", "verify", "--header", "x-appdna-signature: " + signature.dropFirst(7).uppercased()], stdin: Self.body)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains("body         standard input\n"), result.stdout)
        result = webhookCLI(["webhook", "verify", "-", "--signature", signature], stdin: Self.body)
        XCTAssertEqual(result.status, 0, result.stderr)

        // --secret-file (its final newline removed) takes precedence over the environment.
        let secretPath = try file("secret.txt", Self.secret + "\n")
        result = webhookCLI(["webhook", "verify", path, "--signature", signature, "--secret-file", secretPath], secret: "wrong")
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.hasPrefix("valid: signature matches (secret 1 of 1, from --secret-file \(secretPath))"), result.stdout)

        // --secret-stdin with the body from a file.
        result = webhookCLI(["webhook", "verify", path, "--signature", signature, "--secret-stdin"], secret: nil, stdin: Self.secret + "\r\n")
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.hasPrefix("valid: signature matches (secret 1 of 1, from --secret-stdin)"), result.stdout)
    }

    func testRotationNamesTheMatchingSecretByPosition() throws {
        let path = try file("body.json", Self.body)
        let oldPath = try file("old.txt", Self.oldSecret), newPath = try file("new.txt", Self.secret + "\n")
        for (signedWith, position, source) in [(Self.oldSecret, 1, oldPath), (Self.secret, 2, newPath)] {
            let result = webhookCLI(["webhook", "verify", path, "--signature", Self.hmac(Self.body, signedWith),
                                     "--secret-file", oldPath, "--secret-file", newPath, "--json"], secret: nil)
            XCTAssertEqual(result.status, 0, result.stderr)
            let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
            let matched = try XCTUnwrap(object["matched_secret"] as? [String: Any])
            XCTAssertEqual(matched["position"] as? Int, position)
            XCTAssertEqual(matched["source"] as? String, "--secret-file \(source)")
        }
        let result = webhookCLI(["webhook", "verify", path, "--signature", Self.hmac(Self.body, "third"),
                                 "--secret-file", oldPath, "--secret-file", newPath], secret: nil)
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stdout.hasPrefix("mismatch: the signature does not match this body with any of the 2 secrets\n"), result.stdout)
    }

    func testJSONOutputFields() throws {
        let path = try file("body.json", Self.body)
        let result = webhookCLI(["webhook", "verify", path, "--signature", Self.hmac(Self.body, Self.secret), "--json"])
        XCTAssertEqual(result.status, 0)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(Set(object.keys), ["valid", "verdict", "matched_secret", "secrets", "signature", "signature_from", "body", "warnings"])
        XCTAssertEqual(object["valid"] as? Bool, true)
        XCTAssertEqual(object["verdict"] as? String, "valid")
        XCTAssertEqual(object["signature_from"] as? String, "--signature")
        let body = try XCTUnwrap(object["body"] as? [String: Any])
        XCTAssertEqual(body["length"] as? Int, Self.body.utf8.count)
        XCTAssertEqual(body["sha256"] as? String, Hex.encode(SHA256.hash(Array(Self.body.utf8))))
    }

    // MARK: - --explain: each mistake, made for real, is named

    struct Mistake {
        let id: String
        let body: [UInt8]
        let signature: String
        var secretFile: String? = nil
        var status: Int32 = 1
    }

    func mistakes() throws -> [Mistake] {
        let body = Array(Self.body.utf8)
        let secret = Self.secret
        let pretty = "{\n  \"id\": \"evt-123\",\n  \"type\": \"payment.completed\"\n}"
        let prettyLF = Array(pretty.utf8), prettyCRLF = Array(pretty.replacingOccurrences(of: "\n", with: "\r\n").utf8)
        let python = #"{"id": "evt-123", "type": "payment.completed", "created_at": "2026-02-19T10:00:00Z", "data": {"amount": 1299, "currency": "EUR", "note": "caf\u00e9"}}"#
        let padded = try file("padded-secret.txt", "  " + secret + "  \n")
        let sha1 = HMAC<SHA1>.authenticationCode(for: body, key: Array(secret.utf8))
        let mac = HMACSHA256.authenticationCode(for: body, key: Array(secret.utf8))
        return [
            Mistake(id: "trailing-newline-added", body: body + [0x0a], signature: Self.hmac(body, secret)),
            Mistake(id: "trailing-crlf-added", body: body + [0x0d, 0x0a], signature: Self.hmac(body, secret)),
            Mistake(id: "trailing-newline-removed", body: body, signature: Self.hmac(body + [0x0a], secret)),
            Mistake(id: "trailing-crlf-removed", body: body, signature: Self.hmac(body + [0x0d, 0x0a], secret)),
            Mistake(id: "crlf-converted-to-lf", body: prettyLF, signature: Self.hmac(prettyCRLF, secret)),
            Mistake(id: "lf-converted-to-crlf", body: prettyCRLF, signature: Self.hmac(prettyLF, secret)),
            Mistake(id: "bom-added", body: [0xef, 0xbb, 0xbf] + body, signature: Self.hmac(body, secret)),
            Mistake(id: "bom-removed", body: body, signature: Self.hmac([0xef, 0xbb, 0xbf] + body, secret)),
            // The receiver's secret file has spaces around the secret; the sender used it trimmed.
            Mistake(id: "secret-surrounding-whitespace", body: body, signature: Self.hmac(body, secret), secretFile: padded),
            // The sender's secret still ends in its file's newline.
            Mistake(id: "secret-trailing-newline-kept", body: body, signature: Self.hmac(body, secret + "\n")),
            Mistake(id: "sha1-signature", body: body, signature: "sha1=" + Hex.encode(sha1), status: 65),
            Mistake(id: "base64-signature", body: body, signature: Base64.encode(mac), status: 65),
            Mistake(id: "empty-body-signed", body: body, signature: Self.hmac([UInt8](), secret)),
            Mistake(id: "unkeyed-sha256", body: body, signature: "sha256=" + Hex.encode(SHA256.hash(body))),
            // A framework parsed the JSON and wrote it out again (Python's json.dumps here).
            Mistake(id: "json-reserialised", body: Array(python.utf8), signature: Self.hmac(body, secret)),
            Mistake(id: "json-reserialised", body: body, signature: Self.hmac(python, secret)),
            Mistake(id: "json-reserialised", body: prettyLF, signature: Self.hmac(#"{"id":"evt-123","type":"payment.completed"}"#, secret)),
            Mistake(id: "json-reserialised", body: Array(#"{"type":"payment.completed","id":"evt-123"}"#.utf8),
                    signature: Self.hmac("{\n    \"id\": \"evt-123\",\n    \"type\": \"payment.completed\"\n}", secret)),
        ]
    }

    func testEachExplainDiagnosisIsNamedForExactlyThatMistake() throws {
        for (index, mistake) in try mistakes().enumerated() {
            let path = try file("body-\(index)", mistake.body)
            var arguments = ["webhook", "verify", path, "--signature", mistake.signature, "--explain", "--json"]
            // (The secret file, when there is one, comes after.)
            if let secretFile = mistake.secretFile { arguments += ["--secret-file", secretFile] }
            let result = webhookCLI(arguments)
            XCTAssertEqual(result.status, mistake.status, "\(mistake.id): \(result.stderr)")
            XCTAssertEqual(diagnoses(result), [mistake.id], "\(mistake.id): \(result.stdout)")

            // The human output names it too.
            let text = webhookCLI(arguments.filter { $0 != "--json" })
            XCTAssertTrue(text.stdout.contains("diagnosis") && text.stdout.contains(mistake.id + ": "), "\(mistake.id): \(text.stdout)")
        }
    }

    func testExplainNeverChangesTheStatusOfAMismatch() throws {
        var cases = try mistakes().map { ($0.body, $0.signature, $0.secretFile) }
        // And a plain wrong secret, where nothing is diagnosed.
        cases.append((Array(Self.body.utf8), Self.hmac(Self.body, "some other secret"), nil))
        for (index, (body, signature, secretFile)) in cases.enumerated() {
            let path = try file("case-\(index)", body)
            var arguments = ["webhook", "verify", path, "--signature", signature]
            if let secretFile { arguments += ["--secret-file", secretFile] }
            let plain = webhookCLI(arguments)
            XCTAssertNotEqual(plain.status, 0)
            for extra in [["--explain"], ["--explain", "--json"], ["--json"]] {
                XCTAssertEqual(webhookCLI(arguments + extra).status, plain.status, "\(arguments + extra)")
            }
        }
        let path = try file("body.json", Self.body)
        let result = webhookCLI(["webhook", "verify", path, "--signature", Self.hmac(Self.body, "other"), "--explain"])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stdout.contains("diagnosis    none of the known mistakes reproduces the signature"), result.stdout)
    }

    // MARK: - request dumps

    func dump(_ headers: [String], body: [UInt8]) -> [UInt8] {
        Array((["POST /webhooks/appdna HTTP/1.1", "Host: example.com"] + headers).joined(separator: "\r\n").utf8) + Array("\r\n\r\n".utf8) + body
    }

    func testRequestDumpsWithContentLengthAndChunkedBodies() throws {
        let body = Array(Self.body.utf8), signature = Self.hmac(body, Self.secret)
        let plain = try file("plain.http", dump(["Content-Type: application/json", "X-AppDNA-Event: payment.completed",
                                                 "X-AppDNA-Signature: \(signature)", "Content-Length: \(body.count)"], body: body))
        var result = webhookCLI(["webhook", "verify", "--request", plain])
        XCTAssertEqual(result.status, 0, result.stderr + result.stdout)
        XCTAssertEqual(result.stderr, "")

        var chunked = Array("\(String(40, radix: 16))\r\n".utf8) + body[0..<40] + Array("\r\n".utf8)
        chunked += Array("\(String(body.count - 40, radix: 16));ext=1\r\n".utf8) + body[40...] + Array("\r\n0\r\n\r\n".utf8)
        let chunkedPath = try file("chunked.http", dump(["X-AppDNA-Signature: \(signature)", "Transfer-Encoding: chunked"], body: chunked))
        result = webhookCLI(["webhook", "verify", "--request", chunkedPath, "--json"])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stdout.contains(#""signature_from": "the request's X-AppDNA-Signature header""#), result.stdout)

        // --signature overrides the dump's header.
        result = webhookCLI(["webhook", "verify", "--request", chunkedPath, "--signature", Self.hmac(body, "other")])
        XCTAssertEqual(result.status, 1)

        // A tampered dump: the amount changed after signing.
        let tampered = Array(Self.body.replacingOccurrences(of: "1299", with: "9999").utf8)
        let tamperedPath = try file("tampered.http", dump(["X-AppDNA-Signature: \(signature)", "Content-Length: \(tampered.count)"], body: tampered))
        result = webhookCLI(["webhook", "verify", "--request", tamperedPath, "--explain"])
        XCTAssertEqual(result.status, 1)

        // The X-AppDNA-Event header disagrees with the body: a warning only.
        let other = try file("event.http", dump(["X-AppDNA-Signature: \(signature)", "X-AppDNA-Event: refund.created",
                                                 "Content-Length: \(body.count)"], body: body))
        result = webhookCLI(["webhook", "verify", "--request", other])
        XCTAssertEqual(result.status, 0)
        XCTAssertTrue(result.stderr.contains("warning: the X-AppDNA-Event header says 'refund.created' but the body's type is 'payment.completed'"), result.stderr)
    }

    // MARK: - malformed input: documented status, one clear line

    func assertFails(_ arguments: [String], status: Int32, message: String, secret: String? = WebhookCommandTests.secret,
                     stdin: String? = nil, file: StaticString = #filePath, line: UInt = #line) {
        let result = webhookCLI(arguments, secret: secret, stdin: stdin, file: file, line: line)
        XCTAssertEqual(result.status, status, "\(arguments): \(result.stderr)", file: file, line: line)
        XCTAssertEqual(result.stdout, "", file: file, line: line)
        let lines = result.stderrLines
        XCTAssertTrue((1...2).contains(lines.count), "one message line (and a hint): \(result.stderr)", file: file, line: line)
        XCTAssertTrue(lines.first?.hasPrefix("appdna: ") == true, result.stderr, file: file, line: line)
        XCTAssertTrue(result.stderr.contains(message), "expected '\(message)' in: \(result.stderr)", file: file, line: line)
        if lines.count == 2 { XCTAssertTrue(lines[1].hasPrefix("hint: "), result.stderr, file: file, line: line) }
    }

    func testMalformedSignaturesExit65WithAClearMessage() throws {
        let path = try file("body.json", Self.body)
        let cases: [(String, String)] = [
            ("", "--signature: the signature is empty"),
            ("sha256=", "the signature has a 'sha256=' prefix but no hex digits after it"),
            ("sha1=", "this is a SHA-1 signature"),
            ("sha1=" + String(repeating: "ab", count: 20), "this is a SHA-1 signature"),
            ("sha256=" + String(repeating: "ab", count: 31), "the signature has 62 hex digits; an HMAC-SHA256 signature has 64"),
            ("sha256=" + String(repeating: "a", count: 65), "the signature has 65 hex digits"),
            ("sha256=" + String(repeating: "ab", count: 31) + "zz", "is not a hex digit"),
            ("md5=" + String(repeating: "ab", count: 16), "unknown signature scheme 'md5='"),
        ]
        for (value, message) in cases {
            assertFails(["webhook", "verify", path, "--signature", value], status: 65, message: message)
        }
        assertFails(["webhook", "verify", path, "--header", "sha256=abc"], status: 65, message: "--header: expected a header line")
        assertFails(["webhook", "verify", path, "--header", "X-Hub-Signature-256: sha256=" + String(repeating: "ab", count: 32)],
                    status: 65, message: "header 'X-Hub-Signature-256' is not X-AppDNA-Signature")
    }

    func testMalformedRequestDumpsExit65WithTheLine() throws {
        let body = Array(Self.body.utf8), signature = Self.hmac(body, Self.secret)
        let cases: [(String, [UInt8], String)] = [
            ("empty", [], "the request dump is empty"),
            ("no blank line", Array("POST / HTTP/1.1\r\nX-AppDNA-Signature: \(signature)\r\n".utf8) + body,
             "the headers are not followed by a blank line (input ends inside a header line)"),
            ("no blank line before a body line", Array("POST / HTTP/1.1\r\nX-AppDNA-Signature: \(signature)\r\n".utf8) + body + [0x0a],
             "is not a valid header name"),
            ("no blank line at all", Array("POST / HTTP/1.1\r\nX-AppDNA-Signature: \(signature)".utf8),
             "the headers are not followed by a blank line"),
            ("bad chunk size", dump(["X-AppDNA-Signature: \(signature)", "Transfer-Encoding: chunked"], body: Array("zz\r\nabc\r\n0\r\n\r\n".utf8)),
             "'zz' is not a chunk size"),
            ("chunk too long", dump(["X-AppDNA-Signature: \(signature)", "Transfer-Encoding: chunked"], body: Array("ff\r\nabc\r\n0\r\n\r\n".utf8)),
             "a chunk of 255 bytes is cut off"),
            ("chunk size wrong", dump(["X-AppDNA-Signature: \(signature)", "Transfer-Encoding: chunked"], body: Array("2\r\nabc\r\n0\r\n\r\n".utf8)),
             "expected CRLF after 2 bytes of chunk data"),
            ("short body", dump(["X-AppDNA-Signature: \(signature)", "Content-Length: 5000"], body: body),
             "Content-Length is 5000 but only"),
            ("no signature header", dump(["Content-Length: \(body.count)"], body: body),
             "the request has no X-AppDNA-Signature header"),
            ("bad signature header", dump(["X-AppDNA-Signature: sha1=abc", "Content-Length: \(body.count)"], body: body),
             "the request's X-AppDNA-Signature header: this is a SHA-1 signature"),
        ]
        for (name, bytes, message) in cases {
            let path = try file(name.replacingOccurrences(of: " ", with: "-") + ".http", bytes)
            assertFails(["webhook", "verify", "--request", path], status: 65, message: message)
        }
        assertFails(["webhook", "verify", "--request", directory.appendingPathComponent("missing.http").path],
                    status: 66, message: "missing.http: no such file or directory")
    }

    func testUsageSecretAndMissingFileStatuses() throws {
        let path = try file("body.json", Self.body)
        let signature = Self.hmac(Self.body, Self.secret)
        let missing = directory.appendingPathComponent("missing.json").path
        let empty = try file("empty-secret.txt", "\n")
        assertFails(["webhook", "verify", path], status: 64, message: "no signature given")
        assertFails(["webhook", "verify", path, "--signature", signature, "--header", "X-AppDNA-Signature: \(signature)"],
                    status: 64, message: "--signature and --header both give the signature")
        assertFails(["webhook", "verify", "-", "--signature", signature, "--secret-stdin"], status: 64,
                    message: "--secret-stdin reads the secret from standard input", stdin: Self.secret)
        assertFails(["webhook", "verify", "--signature", signature, "--secret-stdin"], status: 64,
                    message: "--secret-stdin reads the secret from standard input", stdin: Self.secret)
        assertFails(["webhook", "verify", path, "--request", path], status: 64, message: "not both")
        assertFails(["webhook", "verify", missing, "--signature", signature], status: 66, message: "missing.json: no such file or directory")
        assertFails(["webhook", "verify", path, "--signature", signature], status: 78, message: "no webhook secret given", secret: nil)
        assertFails(["webhook", "verify", path, "--signature", signature], status: 78,
                    message: "the webhook secret from APPDNA_WEBHOOK_SECRET is empty", secret: "")
        assertFails(["webhook", "verify", path, "--signature", signature, "--secret-file", empty], status: 78,
                    message: "the webhook secret from --secret-file \(empty) is empty")
        assertFails(["webhook", "verify", path, "--signature", signature, "--secret-file", missing], status: 78,
                    message: "cannot read the webhook secret")
        assertFails(["webhook", "verify", path, "--signature", signature, "--secret-stdin"], status: 78,
                    message: "the webhook secret from --secret-stdin is empty", stdin: "")
        assertFails(["webhook", "sign", path], status: 78, message: "no webhook secret given", secret: nil)
        assertFails(["webhook", "sign", missing], status: 66, message: "no such file or directory")
        // No flag takes a secret value.
        XCTAssertEqual(webhookCLI(["webhook", "verify", path, "--secret", "x"]).status, 64)
    }

    // MARK: - shape warnings, sign

    func testBodyShapeIsAWarningOnly() throws {
        let cases: [(String, String)] = [
            (#"{"id":"evt-1","type":"something.new","created_at":"2026-02-19T10:00:00Z","data":{}}"#, ""),
            (#"{"id":"evt-1","type":"payment.completed","data":{}}"#, #"the body has no "created_at" field"#),
            (#"{"id":"evt-1","type":"payment.completed","created_at":"yesterday","data":{}}"#, #""created_at" is not an ISO 8601 time"#),
            (#"{"id":1,"type":"payment.completed","created_at":"2026-02-19T10:00:00Z","data":[]}"#, #""id" is a number; AppDNA sends a string"#),
            ("[1,2]", "the body is a JSON array"),
            ("hello", "the body is not JSON (line 1, column 1"),
        ]
        for (body, warning) in cases {
            let path = try file("shape.json", body)
            let result = webhookCLI(["webhook", "verify", path, "--signature", Self.hmac(body, Self.secret)])
            XCTAssertEqual(result.status, 0, result.stderr)
            if warning.isEmpty {
                XCTAssertEqual(result.stderr, "", "unknown event types are fine")
            } else {
                XCTAssertTrue(result.stderr.hasPrefix("appdna: warning: ") && result.stderr.contains(warning), result.stderr)
            }
        }
    }

    func testSignPrintsTheHeaderValueThatVerifies() throws {
        let path = try file("body.json", Self.body)
        var result = webhookCLI(["webhook", "sign", path])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stdout, Self.hmac(Self.body, Self.secret) + "\n")
        XCTAssertEqual(webhookCLI(["webhook", "sign"], stdin: Self.body).stdout, result.stdout)
        let secretPath = try file("secret.txt", Self.secret + "\n")
        XCTAssertEqual(webhookCLI(["webhook", "sign", path, "--secret-file", secretPath], secret: nil).stdout, result.stdout)
        // sign takes one secret: --secret-file is not repeatable there, so as for any such flag
        // the last one given wins (verify takes several, for rotation).
        let otherPath = try file("other-secret.txt", "another secret\n")
        result = webhookCLI(["webhook", "sign", path, "--secret-file", otherPath, "--secret-file", secretPath], secret: nil)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stdout, Self.hmac(Self.body, Self.secret) + "\n")
    }
}
