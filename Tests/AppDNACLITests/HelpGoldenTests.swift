import Foundation
import XCTest
@testable import AppDNACLI
import AppDNACore
import TestSupport

/// Help pages that describe their own command only, and say what a user needs.
final class HelpGoldenTests: XCTestCase {
    let table = CommandTable.appdna

    /// `appdna --help`, `appdna bundle --help`, `appdna bundle validate --help`, …
    static func helpPaths(_ table: CommandTable) -> [[String]] {
        [[]] + table.groups.map { [$0.name] } + table.visibleCommands.map(\.path)
    }

    var helpPaths: [[String]] { Self.helpPaths(table) }

    /// `appdna help X` prints the same page as `appdna X --help`.
    func testHelpCommandMatchesHelpFlag() {
        for path in helpPaths {
            XCTAssertEqual(runCLI(["help"] + path).stdout, runCLI(path + ["--help"]).stdout, path.joined(separator: " "))
        }
    }

    /// A command's help names only flags it accepts: text written for another command (such as
    /// `--request` in `webhook sign`) would send the user to a flag that is refused.
    func testACommandsHelpMentionsOnlyItsOwnFlags() {
        var total = 0
        for command in table.visibleCommands {
            let own = Set(table.allFlags(for: command).map(\.long))
            let help = HelpRenderer(table: table).render(path: command.path)
            // Example lines may run other tools (curl -H …); the rest is appdna's text.
            let prose = help.split(separator: "\n").filter { !$0.hasPrefix("  curl ") }.joined(separator: "\n")
            var mentioned: Set<String> = []
            var rest = Substring(prose)
            while let range = rest.range(of: #"(?<![\w-])--[a-z][a-z0-9-]*"#, options: .regularExpression) {
                mentioned.insert(String(rest[range].dropFirst(2)))
                rest = rest[range.upperBound...]
            }
            XCTAssertEqual(mentioned.subtracting(own), [], "\(command.name) --help mentions flags it does not have")
            total += mentioned.count
        }
        XCTAssertGreaterThan(total, 40, "the flag pattern finds the flags help text mentions")
    }

    func testNoRepeatedAnnotationsAndWebhookSignIsAboutSigning() {
        for path in helpPaths {
            let help = HelpRenderer(table: table).render(path: path)
            XCTAssertFalse(help.contains("(repeatable) (repeatable)"), path.joined(separator: " "))
        }
        for flag in table.globalFlags + table.commands.flatMap(\.flags) {
            XCTAssertFalse(flag.summary.contains("(repeatable)"), "--\(flag.long): the renderer adds (repeatable) itself")
        }
        let sign = HelpRenderer(table: table).render(path: ["webhook", "sign"])
        XCTAssertFalse(sign.contains("rotation"))
        XCTAssertFalse(sign.contains("(repeatable)"))
        XCTAssertTrue(HelpRenderer(table: table).render(path: ["webhook", "verify"]).contains("rotating"))
    }

    /// Every command that reads APPDNA_SDK_KEY says so in its help and man page section.
    func testEveryCommandThatUsesTheKeyDescribesIt() {
        let keyCommands = table.commands.filter { command in command.flags.contains { $0.long == "key-file" } }
        XCTAssertFalse(keyCommands.isEmpty)
        let page = ManPageRenderer(table: table).render()
        for command in keyCommands {
            let help = HelpRenderer(table: table).render(path: command.path)
            XCTAssertTrue(help.contains("Environment:\n  APPDNA_SDK_KEY"), command.name)
            let section = page.components(separatedBy: ".Ss appdna \(command.name)\n")[1].components(separatedBy: ".Ss ")[0]
            XCTAssertTrue(section.contains(".It Ev APPDNA_SDK_KEY"), command.name)
        }
    }

    /// 34.8: `appdna --help` is about commands; the environment variables (20 rows, most of
    /// its lines) are a help topic it names in one line, `appdna help environment`.
    func testTheEnvironmentIsAHelpTopicNotPartOfTheToolsHelp() {
        let tool = runCLI(["--help"])
        XCTAssertEqual(tool.status, 0)
        let rows = tool.stdout.split(separator: "\n").map(String.init)
        for variable in table.environment {
            XCTAssertFalse(rows.contains { $0.hasPrefix("  \(variable.name)") }, "\(variable.name) is back in appdna --help")
        }
        XCTAssertTrue(tool.stdout.contains("\n  environment  "), tool.stdout)
        XCTAssertLessThan(tool.stdout.split(separator: "\n").count, 70, "appdna --help is a page about commands")

        let topic = runCLI(["help", "environment"])
        XCTAssertEqual(topic.status, 0, topic.stderr)
        XCTAssertEqual(topic.stderr, "")
        XCTAssertGreaterThanOrEqual(table.environment.count, 20)
        for variable in table.environment {
            XCTAssertTrue(topic.stdout.contains("\n  \(variable.name)"), variable.name)
        }
        // A command's help still lists what it reads.
        XCTAssertTrue(runCLI(["bundle", "fetch", "--help"]).stdout.contains("Environment:\n  APPDNA_SDK_KEY"))

        // Issue 44: a word after `help` is a topic, and is called one when it is none.
        let misspelt = runCLI(["help", "enviroment"])
        XCTAssertEqual(misspelt.status, 64)
        XCTAssertEqual(misspelt.stderr, "appdna: unknown help topic 'enviroment'; did you mean 'environment'? (see 'appdna --help')\n")
        let misspeltCommand = runCLI(["help", "bundle", "valdate"])
        XCTAssertEqual(misspeltCommand.stderr, "appdna: unknown help topic 'bundle valdate'; did you mean 'bundle validate'? (see 'appdna bundle --help')\n")
        // Outside `help`, a command is still a command.
        XCTAssertTrue(runCLI(["bundl"]).stderr.hasPrefix("appdna: unknown command 'bundl'"))
    }

    /// Issue 44: `-h` is the short help, as git and ripgrep give it (usage, one paragraph, every
    /// option on one line, examples, at most 40 lines), and `--help` the full text; both come from
    /// the command table (the short pages are golden files too, `*.short.txt`).
    func testDashHIsAShortHelpAndDashDashHelpTheFullText() {
        let renderer = HelpRenderer(table: table)
        for command in table.visibleCommands {
            let name = command.path.joined(separator: " ")
            let short = runCLI(command.path + ["-h"])
            XCTAssertEqual(short.status, 0, name)
            let lines = short.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
            XCTAssertLessThanOrEqual(lines.count, 40, "\(name) -h:\n\(short.stdout)")
            // Over 80 columns only what --help has so too: the title, usage forms and example commands.
            for line in lines where line.count > 80 {
                XCTAssertTrue(line.hasPrefix("appdna ") || line.hasPrefix("       appdna ") || line.hasPrefix("  appdna ") || line.hasPrefix("  APPDNA_")
                              || line.hasPrefix("  curl "), "\(name) -h: \(line)")
            }
            XCTAssertTrue(short.stdout.contains("\nUsage: " + renderer.usage(for: command) + "\n"), name)
            for flag in command.flags where !flag.hidden {
                XCTAssertTrue(short.stdout.contains("--\(flag.long)"), "\(name) -h lacks --\(flag.long)")
            }
            if let example = command.examples.first {
                XCTAssertTrue(short.stdout.contains("\nExamples:\n  " + example.command + "\n"), name)
            }
            if let paragraph = command.discussion.split(separator: "\n").first {
                let firstWords = paragraph.split(separator: " ").prefix(5).joined(separator: " ")
                XCTAssertTrue(short.stdout.contains(firstWords), "\(name) -h lacks its paragraph")
            }
            XCTAssertTrue(short.stdout.contains("'appdna \(name) --help'"), "\(name) -h says where the full text is")
            // --help is the full text, -h --help too; the short help is shorter.
            let full = runCLI(command.path + ["--help"]).stdout
            XCTAssertEqual(full, renderer.render(path: command.path))
            XCTAssertEqual(runCLI(command.path + ["-h", "--help"]).stdout, full, name)
            XCTAssertEqual(runCLI(["help"] + command.path).stdout, full, name)
            XCTAssertLessThan(short.stdout.count, full.count, name)
        }
        let tool = runCLI(["-h"])
        XCTAssertLessThanOrEqual(tool.stdout.split(separator: "\n").count, 40, tool.stdout)
        XCTAssertTrue(tool.stdout.contains("\nCommands:\n"), tool.stdout)
    }

    func testFindingCodesAreInValidateHelpAndTheManPage() {
        let help = HelpRenderer(table: table).render(path: ["bundle", "validate"])
        let page = ManPageRenderer(table: table).render()
        for code in BundleRule.allCases.map(\.code) {
            XCTAssertEqual(help.components(separatedBy: "\n  \(code)  ").count, 2, code)
            XCTAssertTrue(page.contains(".It \(code)\n"), code)
        }
    }
}

/// Every `--help` page (the tool, each group, each command) is kept as a golden file under
/// Golden/help/, so a change to what a user reads shows up in review as a diff of that page.
/// Part of GeneratedFilesTests, so the one command re-records them with the man page and the
/// completions: APPDNA_UPDATE_GENERATED=1 swift test --filter GeneratedFilesTests
extension GeneratedFilesTests {
    func testEveryHelpPageMatchesItsGoldenFile() throws {
        let goldenDirectory = repositoryRoot.appendingPathComponent("Tests/AppDNACLITests/Golden/help")
        let update = ProcessInfo.processInfo.environment["APPDNA_UPDATE_GENERATED"] == "1"
        var expectedFiles: Set<String> = []
        // `-h` pages (the short help of the tool and of each command) as NAME.short.txt.
        let shortPages = [[]] + CommandTable.appdna.visibleCommands.map(\.path)
        let pages = HelpGoldenTests.helpPaths(.appdna).map { $0 + ["--help"] } + HelpTopic.allCases.map { ["help", $0.rawValue] }
            + shortPages.map { $0 + ["-h"] }
        for arguments in pages {
            // Through the real runner, as a user gets it.
            let run = runCLI(arguments)
            XCTAssertEqual(run.status, 0)
            XCTAssertEqual(run.stderr, "")
            let short = arguments.last == "-h"
            let name = (["appdna"] + arguments.filter { $0 != "--help" && $0 != "-h" }).joined(separator: "-") + (short ? ".short.txt" : ".txt")
            expectedFiles.insert(name)
            let url = goldenDirectory.appendingPathComponent(name)
            if update {
                try FileManager.default.createDirectory(at: goldenDirectory, withIntermediateDirectories: true)
                try run.stdout.write(to: url, atomically: false, encoding: .utf8)
            }
            let golden = try String(contentsOf: url, encoding: .utf8)
            XCTAssertEqual(run.stdout, golden, "\(name) is out of date: run APPDNA_UPDATE_GENERATED=1 swift test --filter GeneratedFilesTests")
        }
        // No golden file for a command that is gone.
        let present = Set(try FileManager.default.contentsOfDirectory(atPath: goldenDirectory.path))
        if update {
            for stale in present.subtracting(expectedFiles) {
                try FileManager.default.removeItem(at: goldenDirectory.appendingPathComponent(stale))
            }
        } else {
            XCTAssertEqual(present, expectedFiles)
        }
    }

}
