import Foundation
import XCTest
import TestSupport

/// `Formula/appdna.rb` cannot be installed here (no Homebrew, no macOS), so what can be checked
/// is: Ruby accepts it, its stanzas say what they should (evaluated by Ruby, see `stanzas`),
/// every file it installs exists in a checkout with a release build, what its `test do` block
/// asserts is what the built binary prints, and scripts/homebrew-formula makes the formula that
/// the macOS CI job installs for real from a tarball of the checkout
/// (`brew install --build-from-source` and `brew test`).
final class HomebrewFormulaTests: XCTestCase {
    static let formula = repositoryRoot.appendingPathComponent("Formula/appdna.rb")

    func text() throws -> String { try String(contentsOf: Self.formula, encoding: .utf8) }

    func testRubyAcceptsTheFormula() throws {
        let ruby = try requireTool("ruby", because: "`ruby -c` checks the formula's syntax")
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
        _ = try ReleaseBinary.require()
        XCTAssertTrue(try text().contains(#"system "swift", "build", *args"#) && text().contains(#""--configuration", "release""#),
                      "the formula builds with swift build -c release, which writes .build/release/appdna")
        XCTAssertTrue(try text().contains(#""--product", "appdna""#), "only the appdna product is built")
    }

    /// The formula's class-level calls (url, sha256, version, license, head…), evaluated by Ruby
    /// with a Formula base class that records them: [name: [[positional arguments, keywords]]].
    func stanzas(_ path: String) throws -> [String: [[Any]]] {
        let recorder = """
            class Formula
              def self.method_missing(name, *args, **keywords, &block)
                ((@calls ||= {})[name.to_s] ||= []) << [args, keywords]
                nil
              end
              def self.respond_to_missing?(*)
                true
              end
              def self.calls
                @calls
              end
              # Kernel#test would take `test do … end`; the block runs only in brew test.
              def self.test(*)
              end
            end
            load ARGV[0]
            puts JSON.generate(Appdna.calls)
            """
        return try XCTUnwrap(try rubyJSON(recorder, [path]) as? [String: [[Any]]])
    }

    /// The one value of a stanza called once with one argument (`license :x` → "x").
    func single(_ stanzas: [String: [[Any]]], _ name: String) -> String? {
        guard let calls = stanzas[name], calls.count == 1, let arguments = calls[0].first as? [Any], arguments.count == 1 else { return nil }
        return "\(arguments[0])"
    }

    func testStableURLPinsTheReleaseTagAndItsCommitAndTheLicenceIsDeclared() throws {
        let formula = try stanzas(Self.formula.path)
        let url = try XCTUnwrap(formula["url"]?.first)
        XCTAssertEqual((url[0] as? [String])?.first, "https://github.com/appdna/appdna-cli.git")
        let keywords = try XCTUnwrap(url[1] as? [String: String])
        XCTAssertEqual(keywords["tag"], "v" + (try ReleaseBinary.version()), "the stable url is the tag of the version the sources declare")
        let revision = try XCTUnwrap(keywords["revision"], "a tag can move: Homebrew checks the commit named by revision:")
        XCTAssertTrue(revision.count == 40 && revision.allSatisfy(\.isHexDigit), revision)
        // Once the tag exists here, it names that commit.
        let tag = try ProcessRunner.run("/usr/bin/env", ["git", "-C", repositoryRoot.path, "rev-parse", "--verify", "--quiet", keywords["tag"]! + "^{commit}"], environment: nil)
        // 1: no such tag here. Anything else is git failing (a checkout it refuses), not an answer.
        XCTAssertTrue(tag.status == 0 || tag.status == 1, "git rev-parse: status \(tag.status): \(tag.stderr)")
        if tag.status == 0 { XCTAssertEqual(tag.stdout.trimmingCharacters(in: .whitespacesAndNewlines), revision) }

        // No licence is chosen (the Debian copyright says so): SPDX cannot name that.
        let copyright = try String(contentsOf: repositoryRoot.appendingPathComponent("packaging/debian/copyright"), encoding: .utf8)
        XCTAssertTrue(copyright.contains("License: proprietary"), "the licence changed: update the formula's license and this test")
        XCTAssertEqual(single(formula, "license"), "cannot_represent")
        XCTAssertEqual(single(formula, "head"), "https://github.com/appdna/appdna-cli.git")
    }

    /// On Linux the formula's `uses_from_macos` libraries are dependencies, and the binary loads
    /// them with dlopen: its build gives the binary a RUNPATH to each dependency's lib directory,
    /// so what the formula installs is what the binary loads. The `install` method runs under
    /// Ruby with a Homebrew stand-in that records the `swift build` arguments on Linux.
    func testOnLinuxTheBinaryFindsTheLibrariesTheFormulaDependsOn() throws {
        let recorder = """
            class Formula
              def self.method_missing(name, *args, **keywords, &block)
                ((@calls ||= {})[name.to_s] ||= []) << args
                nil
              end
              def self.respond_to_missing?(*)
                true
              end
              def self.calls
                @calls
              end
              def self.test(*)
              end
              Dependency = Struct.new(:name) do
                def opt_lib
                  "/home/linuxbrew/.linuxbrew/opt/#{name}/lib"
                end
              end
              def self.[](name)
                Dependency.new(name)
              end
              def system(*args)
                $built = args
              end
              def method_missing(*)
                Class.new { def install(*) end }.new
              end
              def respond_to_missing?(*)
                true
              end
            end
            module OS
              def self.linux?
                true
              end
            end
            load ARGV[0]
            Appdna.new.install
            puts JSON.generate({ "uses" => Appdna.calls["uses_from_macos"].map(&:first).grep(String), "build" => $built })
            """
        let result = try XCTUnwrap(try rubyJSON(recorder, [Self.formula.path]) as? [String: [String]])
        let uses = try XCTUnwrap(result["uses"]).filter { $0 != "swift" }
        XCTAssertEqual(Set(uses), ["curl", "sqlite", "zlib"], "the libraries SystemLibrary loads")
        let build = try XCTUnwrap(result["build"]).joined(separator: " ")
        XCTAssertTrue(build.hasPrefix("swift build "), build)
        XCTAssertTrue(build.contains("--static-swift-stdlib"), build)
        for library in uses {
            XCTAssertTrue(build.contains("-Xlinker -rpath -Xlinker /home/linuxbrew/.linuxbrew/opt/\(library)/lib"),
                          "\(library): the binary would load the system's copy, not the dependency's: \(build)")
        }
    }

    /// What the macOS CI job installs: the formula with its url at a tarball of HEAD.
    func testCheckoutFormulaBuildsATarballOfTheCheckout() throws {
        let scratch = try ScratchDirectory("formula")
        defer { scratch.remove() }
        let result = try runScript("scripts/homebrew-formula", ["--checkout", "--output", scratch.path + "/source"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let path = try scratch.file("appdna.rb", Array(result.stdout.utf8))
        let formula = try stanzas(path)
        let version = try ReleaseBinary.version()
        let tarball = scratch.path + "/source/appdna-\(version).tar.gz"
        XCTAssertEqual(single(formula, "url"), "file://" + tarball)
        XCTAssertEqual(single(formula, "sha256"), try sha256Hex(tarball))
        XCTAssertEqual(single(formula, "version"), version, "the version the formula's test expects `appdna --version` to print")
        XCTAssertNil(formula["head"], "only the checkout can be built")
        XCTAssertEqual(single(formula, "license"), "cannot_represent")
        XCTAssertFalse(result.stdout.contains("github.com/appdna/appdna-cli.git"), "nothing is fetched from upstream")

        // The tarball is the committed tree: the files the formula installs, and Package.swift as HEAD has it.
        let listing = try ProcessRunner.run("/usr/bin/env", ["tar", "-tzf", tarball], environment: nil)
        for file in ["Package.swift", "man/appdna.1", "completions/appdna.bash", "completions/_appdna", "completions/appdna.fish"] {
            XCTAssertTrue(listing.stdout.split(separator: "\n").contains(Substring("appdna-\(version)/\(file)")), file)
        }
        let packaged = try ProcessRunner.run("/usr/bin/env", ["tar", "-xzOf", tarball, "appdna-\(version)/Package.swift"], environment: nil)
        let committed = try gitOutput(["show", "HEAD:Package.swift"], in: repositoryRoot.path)
        XCTAssertEqual(packaged.stdout, committed)
        let ruby = try requireTool("ruby", because: "`ruby -c` checks the formula's syntax")
        XCTAssertEqual(try ProcessRunner.run(ruby, ["-c", path], environment: nil).stdout, "Syntax OK\n")
    }

    /// After tagging, `--tag` pins the formula to the tag's commit (a scratch repository with a
    /// copy of what the script reads, tagged there).
    func testTagFormulaPinsTheTagsCommit() throws {
        let scratch = try ScratchDirectory("formula-tag")
        defer { scratch.remove() }
        let repo = scratch.path + "/repo"
        for file in ["Formula/appdna.rb", "scripts/homebrew-formula", "Sources/AppDNACLI/Commands/CommandTable+AppDNA.swift"] {
            try FileManager.default.createDirectory(atPath: repo + "/" + (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try FileManager.default.copyItem(atPath: repositoryRoot.appendingPathComponent(file).path, toPath: repo + "/" + file)
        }
        let git = { (arguments: [String]) throws -> String in
            let result = try ProcessRunner.run("/usr/bin/env", ["git", "-C", repo, "-c", "user.name=t", "-c", "user.email=t@example.com"] + arguments, environment: nil)
            XCTAssertEqual(result.status, 0, result.stderr)
            return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        _ = try git(["init", "-q"])
        _ = try git(["add", "."])
        _ = try git(["commit", "-q", "-m", "release"])
        _ = try git(["tag", "-a", "v7.7.7", "-m", "v7.7.7"])
        let result = try ProcessRunner.run("/bin/bash", [repo + "/scripts/homebrew-formula", "--tag", "v7.7.7"], environment: ["PATH": "/usr/bin:/bin"])
        XCTAssertEqual(result.status, 0, result.stderr)
        let formula = try stanzas(try scratch.file("appdna.rb", Array(result.stdout.utf8)))
        let url = try XCTUnwrap(formula["url"]?.first)
        XCTAssertEqual((url[0] as? [String])?.first, "https://github.com/appdna/appdna-cli.git")
        // The commit, not the annotated tag object.
        XCTAssertEqual(url[1] as? [String: String], ["tag": "v7.7.7", "revision": try git(["rev-parse", "HEAD"])])
        XCTAssertNotNil(formula["head"])
        // Everything but the stable url is the formula as it was.
        let original = try String(contentsOf: Self.formula, encoding: .utf8).split(separator: "\n").filter { !$0.hasPrefix("  url ") && !$0.hasPrefix("      ") }
        XCTAssertEqual(result.stdout.split(separator: "\n").filter { !$0.hasPrefix("  url ") && !$0.hasPrefix("      ") }, original)

        let missing = try ProcessRunner.run("/bin/bash", [repo + "/scripts/homebrew-formula", "--tag", "v0.0.0"], environment: ["PATH": "/usr/bin:/bin"])
        XCTAssertEqual(missing.status, 65)
        XCTAssertTrue(missing.stderr.contains("no tag v0.0.0"), missing.stderr)
    }

    /// The Xcode the formula requires is the oldest compiler the code is held to: the one
    /// scripts/check-availability declares (MINIMUM_COMPILER), which the oldest macOS job in
    /// ci.yml selects (AvailabilityCheckTests). It said 16.0 while both said 16.2.
    func testTheFormulaRequiresTheXcodeTheCheckerHoldsTheCodeTo() throws {
        let script = try String(contentsOf: repositoryRoot.appendingPathComponent("scripts/check-availability"), encoding: .utf8)
        let declared = try XCTUnwrap(script.firstMatch(of: /MINIMUM_COMPILER = \{"xcode": "([0-9.]+)"/)?.1, "MINIMUM_COMPILER in scripts/check-availability")
        let required = try XCTUnwrap(try text().firstMatch(of: /depends_on xcode: \["([0-9.]+)", :build\]/)?.1, "depends_on xcode in the formula")
        XCTAssertEqual(required, declared)
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
