import XCTest
@testable import AppDNACLI

/// Checks over the whole table, so a new flag cannot break parsing or the generated docs.
final class CommandTableInvariantTests: XCTestCase {
    let table = CommandTable.appdna

    func testNoCommandHasTwoFlagsWithOneName() {
        for command in table.commands {
            let flags = table.allFlags(for: command)
            let longs = flags.map(\.long)
            XCTAssertEqual(Set(longs).count, longs.count, "duplicate long flag in \(command.name)")
            let shorts = flags.compactMap(\.short)
            XCTAssertEqual(Set(shorts).count, shorts.count, "duplicate short flag in \(command.name)")
        }
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
