import Foundation
import XCTest
import TestSupport

/// `Formula/appdna.rb` cannot be installed here (no Homebrew, no macOS), so what can be checked
/// is: Ruby accepts it, every file it installs exists in a checkout with a release build, and
/// what its `test do` block asserts is what the built binary prints. The macOS CI job installs
/// it for real (`brew install --HEAD` and `brew test`).
final class HomebrewFormulaTests: XCTestCase {
    static let formula = repositoryRoot.appendingPathComponent("Formula/appdna.rb")

    func text() throws -> String { try String(contentsOf: Self.formula, encoding: .utf8) }

    func testRubyAcceptsTheFormula() throws {
        guard let ruby = findTool("ruby") else {
            if runningInCI { return XCTFail("ruby is not installed, but CI must have it (scripts/install-test-tools)") }
            throw XCTSkip("ruby is not installed (scripts/install-test-tools installs it)")
        }
        let result = try ProcessRunner.run(ruby, ["-c", Self.formula.path], environment: nil)
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(result.stdout, "Syntax OK\n")
    }

    /// `x.install "source"` and `x.install "source" => "name"`: the sources, relative to the checkout.
    static func installedSources(_ formula: String) -> [String] {
        let regex = try! NSRegularExpression(pattern: #"\b\w+\.install\s+"([^"]+)""#)
        return regex.matches(in: formula, range: NSRange(formula.startIndex..., in: formula)).map {
            String(formula[Range($0.range(at: 1), in: formula)!])
        }
    }

    func testEveryInstalledPathExistsInABuild() throws {
        let sources = Self.installedSources(try text())
        XCTAssertEqual(Set(sources), [".build/release/appdna", "man/appdna.1", "completions/appdna.bash", "completions/_appdna", "completions/appdna.fish"],
                       "binary, man page and the three completions")
        for source in sources where !source.hasPrefix(".build/") {
            XCTAssertTrue(FileManager.default.fileExists(atPath: repositoryRoot.appendingPathComponent(source).path), source)
        }
        // The release binary is built by .ci/run before the tests (as the formula builds it).
        let binary = repositoryRoot.appendingPathComponent(".build/release/appdna").path
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            throw XCTSkip("no release binary: run `swift build -c release --static-swift-stdlib` first (.ci/run does)")
        }
        XCTAssertTrue(try text().contains(#"system "swift", "build", *args"#) && text().contains(#""--configuration", "release""#),
                      "the formula builds with swift build -c release, which writes .build/release/appdna")
    }

    func testTheFormulasTestBlockExpectsWhatTheBinaryPrints() throws {
        let formula = try text()
        XCTAssertTrue(formula.contains("test do"))
        let bucket = try Binary.run(["bucket", "user_12345", "exp_paywall_v3", "a8f3c9d2", "--variants", "control=0.5,variant_b=0.5"])
        XCTAssertEqual(bucket.status, 0)
        XCTAssertTrue(bucket.text.contains("hash           3214585791\n") && formula.contains(#"/^hash\s+3214585791$/"#), bucket.text)
        XCTAssertTrue(bucket.text.contains("variant        variant_b\n") && formula.contains(#"/^variant\s+variant_b$/"#), bucket.text)

        let body = try temporaryFile(#"{"event":"ping"}"#, name: "body.json")
        let secret = URL(fileURLWithPath: body).deletingLastPathComponent().appendingPathComponent("secret").path
        try Data("whsec_test".utf8).write(to: URL(fileURLWithPath: secret))
        let signed = try Binary.run(["webhook", "sign", "--secret-file", secret, body])
        XCTAssertEqual(signed.status, 0)
        let signature = signed.text.trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertTrue(formula.contains(#"assert_equal "\#(signature)", signature"#), "the formula's expected signature is \(signature)")
        XCTAssertEqual(try Binary.run(["webhook", "verify", "--secret-file", secret, "--signature", "sha256=" + String(repeating: "0", count: 64), body]).status, 1)
    }
}
