import XCTest
@testable import AppDNACLI
import TestSupport

final class ManPageLintTests: XCTestCase {
    func testManPageIsLintCleanUnderMandoc() throws {
        let mandoc = try requireTool("mandoc", because: "lints the man page")
        let page = repositoryRoot.appendingPathComponent("man/appdna.1").path
        let result = try runProgram(mandoc, ["-T", "lint", "-W", "style", page])
        XCTAssertEqual(result.status, 0, result.stdout + result.stderr)
        XCTAssertEqual(result.stdout + result.stderr, "")
    }

    /// The page is ASCII (other characters as roff names: "…" as "...", "±" as \(+-), so that
    /// `man` in the C locale renders it without a warning; "…" used to give groff's "invalid
    /// input character code 128".
    func testManPageRendersWithoutWarningsInTheCLocale() throws {
        let page = repositoryRoot.appendingPathComponent("man/appdna.1").path
        let bytes = try Data(contentsOf: URL(fileURLWithPath: page))
        XCTAssertNil(bytes.firstIndex { $0 >= 0x80 }, "a byte outside ASCII in man/appdna.1")
        let groff = try requireTool("groff", because: "renders the man page")
        let result = try runProgram(groff, ["-mdoc", "-Tascii", "-ww", page], environment: ["LC_ALL": "C", "PATH": "/usr/bin:/bin"])
        XCTAssertEqual(result.stderr, "")
        XCTAssertTrue(result.stdout.contains("adn_live_...3f9a"), "the glyph's ASCII form is drawn")
        XCTAssertEqual(ManPageRenderer.portableGlyphs("a → b × 2 ± 1…"), "a \\(-> b \\(mu 2 \\(+- 1...")
    }

    func testManPageDocumentsEveryCommandFlagAndExitStatus() {
        let page = ManPageRenderer(table: .appdna).render()
        for command in CommandTable.appdna.visibleCommands {
            XCTAssertTrue(page.contains(".Ss appdna \(command.name)"), command.name)
            for flag in command.flags where !flag.hidden {
                XCTAssertTrue(page.contains("Fl -\(flag.long)"), "--\(flag.long)")
            }
        }
        for status in ExitStatus.allCases {
            XCTAssertTrue(page.contains(".It \(status.rawValue)\n"))
        }
    }

    /// The header and footer name the tool, not "BSD General Commands Manual".
    func testHeaderIsTheTools() throws {
        let mandoc = try requireTool("mandoc", because: "lints the man page")
        let page = repositoryRoot.appendingPathComponent("man/appdna.1").path
        let rendered = try runProgram(mandoc, ["-T", "ascii", page]).stdout
        let lines = rendered.split(separator: "\n")
        XCTAssertFalse(rendered.contains("BSD"), String(lines.first ?? ""))
        XCTAssertTrue(lines.first?.hasPrefix("APPDNA(1)") == true)
        XCTAssertTrue(lines.last?.hasPrefix("appdna 0.1.0") == true, String(lines.last ?? ""))
        // groff (what `man` uses on Linux) writes "BSD General Commands Manual" for a page
        // without a volume; the page names one.
        let groff = try requireTool("groff", because: "renders the man page as man does on Linux")
        let header = try runProgram(groff, ["-mdoc", "-Tascii", page]).stdout.split(separator: "\n").first ?? ""
        XCTAssertFalse(header.contains("BSD"), String(header))
        XCTAssertTrue(header.hasPrefix("APPDNA(1)"), String(header))
    }

    /// Each EXAMPLES caption starts a paragraph and is followed by its own example, so no
    /// caption runs on after the previous example's display.
    func testEachExampleCaptionSitsWithItsExample() {
        let page = ManPageRenderer(table: .appdna).render()
        let examples = page.components(separatedBy: ".Sh EXAMPLES\n")[1]
        let entries = examples.components(separatedBy: ".Pp\n")
        let all = CommandTable.appdna.visibleCommands.flatMap(\.examples)
        XCTAssertEqual(entries.count, all.count)
        for (entry, example) in zip(entries, all) {
            XCTAssertTrue(entry.contains(ManPageRenderer(table: .appdna).literal(example.command)), example.command)
            XCTAssertTrue(entry.hasPrefix(ManPageRenderer(table: .appdna).text(example.explanation)), example.explanation)
        }
    }

    /// Every variable the sources read is in ENVIRONMENT.
    func testEnvironmentListsEveryVariableRead() {
        let page = ManPageRenderer(table: .appdna).render()
        for name in ["APPDNA_SDK_KEY", "APPDNA_API_URL", "APPDNA_WEBHOOK_SECRET", "APPDNA_LIBCURL", "NO_COLOR", "TERM",
                     "CONFIGURATION", "TMPDIR", "https_proxy", "HTTPS_PROXY", "http_proxy", "ALL_PROXY", "NO_PROXY",
                     "no_proxy", "CURL_CA_BUNDLE", "SSL_CERT_FILE", "SSL_CERT_DIR"] {
            XCTAssertTrue(page.contains(".It Ev \(name)") || page.contains(", \(name)"), name)
        }
        // And whatever a source file reads by name (getenv, the environment dictionary, the
        // API access constants), so a new variable cannot go undocumented.
        let sources = repositoryRoot.appendingPathComponent("Sources")
        let files = FileManager.default.enumerator(atPath: sources.path)!.compactMap { $0 as? String }
            .filter { $0.hasSuffix(".swift") || $0.hasSuffix(".c") }
        var found: Set<String> = []
        for file in files {
            let text = (try? String(contentsOfFile: sources.appendingPathComponent(file).path, encoding: .utf8)) ?? ""
            for match in text.matches(of: /(?:getenv|ProcessEnvironment\.value)\("([A-Za-z_]+)"\)|environment\["([A-Z_]+)"\]|Variable = "([A-Z_]+)"/) {
                if let name = match.1 ?? match.2 ?? match.3 { found.insert(String(name)) }
            }
        }
        XCTAssertTrue(found.isSuperset(of: ["APPDNA_SDK_KEY", "NO_COLOR", "TMPDIR", "APPDNA_LIBCURL"]), "\(found)")
        for name in found {
            XCTAssertTrue(page.contains(".It Ev \(name)") || page.contains(", \(name)"), "\(name) is read but not in ENVIRONMENT")
        }
    }
}

/// The man page follows the guides: one section per job, then ENVIRONMENT, FILES, EXIT STATUS.
final class ManPageStructureTests: XCTestCase {
    func testSectionsFollowTheJobs() {
        let page = ManPageRenderer(table: .appdna).render()
        let sections = page.split(separator: "\n").filter { $0.hasPrefix(".Sh ") }.map { String($0.dropFirst(4)) }
        XCTAssertEqual(sections, ["NAME", "SYNOPSIS", "DESCRIPTION", "CONFIG BUNDLES", "EXPERIMENT ASSIGNMENT", "EVENT QUEUES", "WEBHOOKS",
                                  "LOCAL API", "OTHER COMMANDS", "ENVIRONMENT", "FILES", "EXIT STATUS", "EXAMPLES"])
        // Every command is in exactly one section.
        for command in CommandTable.appdna.visibleCommands {
            XCTAssertEqual(page.components(separatedBy: ".Ss appdna \(command.name)\n").count, 2, command.name)
        }
    }
}
