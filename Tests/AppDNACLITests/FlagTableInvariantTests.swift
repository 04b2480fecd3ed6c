import XCTest
@testable import AppDNACLI
import AppDNACore

/// Checks over every flag of the typed table (the `Flag` descriptors behind each command's
/// `flags`): a new flag is covered without touching this file.
final class FlagTableInvariantTests: XCTestCase {
    let table = CommandTable.appdna
    lazy var parser = ArgumentParser(table: table)

    /// Every (command, flag) pair, global flags included.
    var everyFlag: [(command: CommandSpec, flag: FlagSpec)] {
        table.commands.flatMap { command in table.allFlags(for: command).map { (command, $0) } }
    }

    /// Operands that satisfy `command` when `flag` is given.
    func operands(_ command: CommandSpec, with flag: FlagSpec) -> [String] {
        var given = ParsedArguments()
        try? given.record(flag, value: flag.takesValue ? flag.sampleValue : nil)
        return command.operandsGiven(given).filter { !$0.optional }.map { operand in
            if case .choices(let words) = operand.completion { return words[0] }
            return "operand"
        }
    }

    /// The parse of `command --flag value OPERANDS…`: nil when accepted, else the error.
    func failure(_ command: CommandSpec, _ flag: FlagSpec, _ value: String) -> Failure? {
        do {
            _ = try parser.parse(command.path + ["--\(flag.long)=\(value)"] + operands(command, with: flag))
            return nil
        } catch {
            return error
        }
    }

    func testEachFlagIsStoredOnceInACommand() {
        for command in table.commands {
            let longs = table.allFlags(for: command).map(\.long)
            XCTAssertEqual(Set(longs).count, longs.count, "a flag declared twice in \(command.name)")
        }
    }

    func testValueFlagsHaveAValueNameAndSwitchesNoValueFacts() {
        for (command, flag) in everyFlag {
            let context = "\(command.name) --\(flag.long)"
            if flag.defaultValue != nil || flag.range != nil || flag.bounds != nil || flag.choices != nil || flag.repeatable {
                XCTAssertNotNil(flag.valueName, "\(context) has value facts but no value name")
            }
            if let valueName = flag.valueName { XCTAssertFalse(valueName.isEmpty, context) }
        }
    }

    /// A default goes through the same validation step as a value typed by the user.
    func testDefaultsAndSamplesParseWithTheirOwnParser() {
        for (command, flag) in everyFlag where flag.takesValue {
            for value in [flag.defaultValue, flag.sampleValue].compactMap({ $0 }) {
                XCTAssertNoThrow(try flag.convert(value), "\(command.name) --\(flag.long) \(value)")
            }
        }
    }

    /// Every ranged flag accepts its bounds and refuses what is beyond them or not a number,
    /// as a usage error (64) with the one wording of range errors.
    func testRangedFlagsAcceptTheirBoundsAndRefuseTheRestWith64() {
        var checked = 0
        for (command, flag) in everyFlag {
            guard let bounds = flag.bounds else { continue }
            let context = "\(command.name) --\(flag.long)"
            for bound in [bounds.lowerBound, bounds.upperBound] where bound < 9e15 {
                let text = FlagValue<Double>.shortText(bound)
                XCTAssertNil(failure(command, flag, text), "\(context) refuses its bound \(text)")
            }
            var outside = ["abc", ""]
            let step = bounds.lowerBound == bounds.lowerBound.rounded() ? 1 : bounds.lowerBound / 2
            outside.append(FlagValue<Double>.shortText(bounds.lowerBound - step))
            if bounds.upperBound < 9e15 { outside.append(FlagValue<Double>.shortText(bounds.upperBound + 1)) }
            for text in outside {
                guard let error = failure(command, flag, text) else {
                    XCTFail("\(context) accepts '\(text)'")
                    continue
                }
                XCTAssertEqual(ExitStatus(error.kind), .usage, context)
                XCTAssertTrue(error.message.hasPrefix("--\(flag.long) takes a "), error.message)
                XCTAssertTrue(error.message.hasSuffix(", not '\(text)'"), error.message)
            }
            checked += 1
        }
        XCTAssertGreaterThan(checked, 15)
    }

    /// Help shows the range of every numeric flag, unless its summary states per-mode ranges.
    func testHelpShowsEachRange() {
        for (command, flag) in everyFlag where flag.range != nil {
            let help = HelpRenderer(table: table).commandHelp(command)
            XCTAssertTrue(help.contains("(\(flag.range!)"), "\(command.name) --\(flag.long): no range in help")
        }
    }

    /// Typed reads: the default when absent, the value as typed otherwise, and the same
    /// descriptor serving every command that shares it.
    func testDescriptorsReadTypedValuesAndDefaults() throws {
        guard case .run(_, let absent) = try parser.parse(["bundle", "fetch"]),
              case .run(_, let given) = try parser.parse(["bundle", "diff", "a", "b", "--retries", "7", "--timeout=2.5"]),
              case .run(_, let replay) = try parser.parse(["queue", "replay", "q.json", "--max-age", "36h"]) else {
            return XCTFail("expected commands")
        }
        XCTAssertEqual(absent[APIFlags.retries], 3)
        XCTAssertEqual(absent[APIFlags.timeout], 60)
        XCTAssertNil(absent[APIFlags.keyFile])
        XCTAssertEqual(given[APIFlags.retries], 7)
        XCTAssertEqual(given[APIFlags.timeout], 2.5)
        XCTAssertEqual(replay[APIFlags.batchTimeout], 600)
        XCTAssertEqual(replay[QueueReplayFlags.maxAge], 36 * 3_600_000)
        XCTAssertEqual(replay[QueueReplayFlags.batchSize], 20)
    }
}
