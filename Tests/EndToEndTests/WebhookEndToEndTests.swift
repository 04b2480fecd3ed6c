import Foundation
import XCTest
import TestSupport

/// `appdna webhook verify` / `sign` through the built binary, against independent HMACs.
/// Secrets reach appdna only through the environment, files or stdin, and reach the
/// reference implementations only through files: never argv. Every output is searched for them.
final class WebhookEndToEndTests: XCTestCase {
    var scratch: ScratchDirectory!
    var directory: URL { scratch.url }

    override func setUpWithError() throws {
        scratch = try ScratchDirectory("webhook-e2e")
    }

    override func tearDownWithError() throws {
        scratch.remove()
    }

    func write(_ name: String, _ data: Data) throws -> String {
        let url = directory.appendingPathComponent(name)
        try data.write(to: url)
        return url.path
    }

    static func randomData(_ count: Int, using generator: inout some RandomNumberGenerator) -> Data {
        var bytes = [UInt8](repeating: 0, count: count)
        for index in stride(from: 0, to: count, by: 8) {
            let word = generator.next()
            for offset in 0..<min(8, count - index) { bytes[index + offset] = UInt8(truncatingIfNeeded: word >> (offset * 8)) }
        }
        return Data(bytes)
    }

    /// A printable random secret with a distinctive prefix (so leaks are searchable).
    static func randomSecret(using generator: inout some RandomNumberGenerator) -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")
        let length = Int.random(in: 8...100, using: &generator)
        return "whsec_E2E_" + String((0..<length).map { _ in alphabet.randomElement(using: &generator)! })
    }

    /// Python's hmac module, key and body from files.
    func pythonHMAC(bodyPath: String, keyPath: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try requireTool("python3", because: "the independent HMAC"))
        process.arguments = ["-c", "import hmac,hashlib,sys; print(hmac.new(open(sys.argv[1],'rb').read(), open(sys.argv[2],'rb').read(), hashlib.sha256).hexdigest())", keyPath, bodyPath]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "python3's hmac failed")
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func assertNoSecret(_ result: Binary.Result, _ secrets: [String], file: StaticString = #filePath, line: UInt = #line) {
        for secret in secrets {
            XCTAssertFalse(result.text.contains(secret), "secret in stdout", file: file, line: line)
            XCTAssertFalse(result.stderr.contains(secret), "secret in stderr", file: file, line: line)
        }
    }

    func testSignAndVerifyAgreeWithPythonHMACOnRandomBodiesUpTo10MB() throws {
        var generator = SystemRandomNumberGenerator()
        let sizes = [0, 1, 55, 56, 63, 64, 65, 119, 120, 1000, 4096, 65_537, 1 << 20, 10_000_000]
        for (index, size) in sizes.enumerated() {
            let body = Self.randomData(size, using: &generator)
            let secret = Self.randomSecret(using: &generator)
            let bodyPath = try write("body-\(index).bin", body)
            let keyPath = try write("key-\(index).txt", Data(secret.utf8))
            let expected = "sha256=" + (try pythonHMAC(bodyPath: bodyPath, keyPath: keyPath))

            // sign: secret from a file, body from a file.
            let signed = try Binary.run(["webhook", "sign", bodyPath, "--secret-file", keyPath])
            XCTAssertEqual(signed.status, 0, signed.stderr)
            XCTAssertEqual(signed.text, expected + "\n", "size \(size)")
            assertNoSecret(signed, [secret])

            // verify: secret from the environment, binary body from stdin.
            let verified = try Binary.run(["webhook", "verify", "-", "--signature", expected, "--json"], stdin: body,
                                          environment: ["APPDNA_WEBHOOK_SECRET": secret])
            XCTAssertEqual(verified.status, 0, "size \(size): \(verified.stderr)")
            let object = try XCTUnwrap(JSONSerialization.jsonObject(with: verified.stdout) as? [String: Any])
            XCTAssertEqual((object["body"] as? [String: Any])?["length"] as? Int, size)
            assertNoSecret(verified, [secret])

            // One flipped bit: a mismatch.
            if size > 0 {
                var tampered = body
                tampered[size / 2] ^= 0x01
                let mismatch = try Binary.run(["webhook", "verify", "--signature", expected], stdin: tampered,
                                              environment: ["APPDNA_WEBHOOK_SECRET": secret])
                XCTAssertEqual(mismatch.status, 1, "size \(size)")
                assertNoSecret(mismatch, [secret])
            }
        }
    }

    func testAgreesWithOpenSSLWhenAvailable() throws {
        // openssl takes the key in argv, so only a public test key is used here.
        let openssl = try requireTool("openssl", because: "the second independent HMAC")
        var generator = SystemRandomNumberGenerator()
        let key = "public-test-key-not-a-secret"
        for size in [0, 64, 100_003, 3_000_000] {
            let path = try write("openssl-\(size).bin", Self.randomData(size, using: &generator))
            let process = Process()
            process.executableURL = URL(fileURLWithPath: openssl)
            process.arguments = ["dgst", "-sha256", "-hmac", key, "-r", path]
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            let hex = String(text.prefix(64))
            let result = try Binary.run(["webhook", "sign", path], environment: ["APPDNA_WEBHOOK_SECRET": key])
            XCTAssertEqual(result.text, "sha256=\(hex)\n", "size \(size)")
        }
    }

    func testRequestDumpsRotationAndStdinSecretThroughTheBinary() throws {
        let body = Data(#"{"id":"evt-9","type":"subscription.renewed","created_at":"2026-02-19T10:00:00Z","data":{"plan":"pro"}}"#.utf8)
        let oldSecret = "whsec_E2E_OLD_5a5a5a", newSecret = "whsec_E2E_NEW_a5a5a5"
        let oldPath = try write("old.txt", Data((oldSecret + "\n").utf8)), newPath = try write("new.txt", Data((newSecret + "\n").utf8))
        let bodyPath = try write("body.json", body)
        let signature = try Binary.run(["webhook", "sign", bodyPath, "--secret-file", newPath]).text.trimmingCharacters(in: .newlines)

        var dump = Data("POST /hooks HTTP/1.1\r\nHost: example.com\r\nX-AppDNA-Signature: \(signature)\r\nContent-Length: \(body.count)\r\n\r\n".utf8)
        dump.append(body)
        let dumpPath = try write("delivery.http", dump)
        var result = try Binary.run(["webhook", "verify", "--request", dumpPath, "--secret-file", oldPath, "--secret-file", newPath])
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.text.hasPrefix("valid: signature matches (secret 2 of 2, from --secret-file \(newPath))\n"), result.text)
        assertNoSecret(result, [oldSecret, newSecret])

        var chunked = Data("POST /hooks HTTP/1.1\r\nX-AppDNA-Signature: \(signature)\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
        for piece in stride(from: 0, to: body.count, by: 17) {
            let slice = body[piece..<min(piece + 17, body.count)]
            chunked.append(Data("\(String(slice.count, radix: 16))\r\n".utf8)); chunked.append(slice); chunked.append(Data("\r\n".utf8))
        }
        chunked.append(Data("0\r\n\r\n".utf8))
        let chunkedPath = try write("chunked.http", chunked)
        result = try Binary.run(["webhook", "verify", "--request", chunkedPath, "--secret-stdin"], stdin: Data((newSecret + "\n").utf8))
        XCTAssertEqual(result.status, 0, result.stderr)
        assertNoSecret(result, [newSecret])

        // Error paths print no secret either: empty secret file, wrong secret with --explain.
        let emptyPath = try write("empty.txt", Data())
        result = try Binary.run(["webhook", "verify", bodyPath, "--signature", signature, "--secret-file", emptyPath])
        XCTAssertEqual(result.status, 78)
        result = try Binary.run(["webhook", "verify", bodyPath, "--signature", signature, "--explain", "--json"],
                                environment: ["APPDNA_WEBHOOK_SECRET": oldSecret])
        XCTAssertEqual(result.status, 1)
        assertNoSecret(result, [oldSecret, newSecret])
    }

    func testTamperedDeliveryIsExplained() throws {
        let secret = "whsec_E2E_tamper_0077"
        let body = Data(#"{"id":"evt-1","type":"payment.completed","created_at":"2026-02-19T10:00:00Z","data":{"amount":1299}}"#.utf8)
        let bodyPath = try write("body.json", body)
        let signature = try Binary.run(["webhook", "sign", bodyPath], environment: ["APPDNA_WEBHOOK_SECRET": secret]).text.trimmingCharacters(in: .newlines)
        // Saved from an editor: a final newline was added.
        var edited = body
        edited.append(0x0a)
        let editedPath = try write("edited.json", edited)
        let result = try Binary.run(["webhook", "verify", editedPath, "--signature", signature, "--explain"],
                                    environment: ["APPDNA_WEBHOOK_SECRET": secret])
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.text.contains("diagnosis    trailing-newline-added: "), result.text)
        assertNoSecret(result, [secret])
    }
}
