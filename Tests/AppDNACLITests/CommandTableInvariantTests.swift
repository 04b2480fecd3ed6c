import XCTest
@testable import AppDNACLI

/// Checks over the whole table, so a new flag cannot break parsing or the generated docs.
final class CommandTableInvariantTests: XCTestCase {
    let table = CommandTable.appdna

    /// Issue 54.2: no two declarations one command reaches (its flags and the global ones)
    /// share a name or a short letter, over every command of the table.
    func testNoCommandHasTwoFlagsWithOneName() {
        XCTAssertEqual(table.flagClashes, [])
    }

    /// The same check over a table of its own with a clash planted in each way: the two
    /// `--timeout` declarations in one command, a command's `-q` beside the global `--quiet`,
    /// one declaration listed twice.
    static let nothing = CommandRun.planned(plan: { _, _ in }, perform: { _, _ in .success })

    func testAPlantedClashIsFound() {
        let bound = Flag.switch("bound", short: "q", "A flag whose letter is the global --quiet's")
        let commands = [
            CommandSpec(["both"], summary: "Two timeouts", flags: [APIFlags.timeout.spec, APIOverrideFlags.timeout.spec], run: Self.nothing),
            CommandSpec(["letter"], summary: "A global's letter", flags: [bound.spec], run: Self.nothing),
            CommandSpec(["again"], summary: "One flag twice", flags: [APIFlags.retries.spec, APIFlags.retries.spec], run: Self.nothing),
            CommandSpec(["sound"], summary: "No clash", flags: [APIFlags.timeout.spec, APIFlags.retries.spec], run: Self.nothing),
        ]
        let planted = CommandTable(programName: "appdna", version: "0", summary: "test", globalFlags: table.globalFlags, groups: [],
                                   commands: commands, environment: [])
        XCTAssertEqual(planted.flagClashes, [
            "'both': --timeout is declared twice (two declarations)",
            "'letter': -q (--bound, --quiet) is declared twice (two declarations)",
            "'again': --retries is declared twice (the same declaration listed twice)",
        ])
    }

    func testEveryFlagIsDocumentedAndChoicesHaveAValueName() {
        for flag in table.globalFlags + table.commands.flatMap(\.flags) {
            XCTAssertFalse(flag.summary.isEmpty, "--\(flag.long) has no summary")
            XCTAssertFalse(flag.long.hasPrefix("-"))
            if flag.choices != nil { XCTAssertNotNil(flag.valueName, "--\(flag.long) has choices but takes no value") }
            if let value = flag.defaultValue, let choices = flag.choices {
                XCTAssertTrue(choices.contains(value), "--\(flag.long) default is not a choice")
            }
        }
    }

    /// The bash script skips the word after any value-taking spelling, so a spelling must not
    /// take a value in one command and be a switch in another.
    func testAFlagSpellingTakesAValueEverywhereOrNowhere() {
        var takesValue: [String: Bool] = [:]
        for flag in table.globalFlags + table.commands.flatMap(\.flags) {
            if let seen = takesValue[flag.long] { XCTAssertEqual(seen, flag.takesValue, "--\(flag.long)") }
            takesValue[flag.long] = flag.takesValue
        }
    }

    func testOptionalOperandsComeLast() {
        for command in table.commands {
            let firstOptional = command.operands.firstIndex { $0.optional } ?? command.operands.count
            XCTAssertTrue(command.operands[firstOptional...].allSatisfy { $0.optional }, command.name)
        }
    }

    /// The contract's sysexits numbers, plus 128 + SIGINT / SIGTERM for an interrupted replay
    /// (issue 9: Ctrl-C and SIGTERM end with a summary and 130 / 143, as shells report them).
    func testExitStatusesAreTheContractsNumbers() {
        XCTAssertEqual(ExitStatus.allCases.map(\.rawValue), [0, 1, 64, 65, 66, 69, 70, 73, 74, 75, 77, 78, 130, 143])
    }
}
