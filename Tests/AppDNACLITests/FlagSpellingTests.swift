import XCTest
@testable import AppDNACLI
import AppDNACore

/// Every spelling of every flag in the table parses to the same value: `--flag v`,
/// `--flag=v`, `-f v`, `-fv`, `-f=v`, and switches alone or combined with another short switch.
/// A flag added to the table is covered without touching this file.
final class FlagSpellingTests: XCTestCase {
    let table = CommandTable.appdna
    lazy var parser = ArgumentParser(table: table)

    /// A value the flag's validation step accepts: its default, a range's lower bound, its
    /// first choice, or a plain word (the table gives it: `FlagSpec.sampleValue`).
    func sampleValue(_ flag: FlagSpec) -> String {
        flag.sampleValue
    }

    /// Operands that satisfy `command` when `flag` is given (a flag like --self-test needs none).
    func operands(_ command: CommandSpec, with flag: FlagSpec) -> [String] {
        var given = ParsedArguments()
        try? given.record(flag, value: flag.takesValue ? sampleValue(flag) : nil)
        return command.operandsGiven(given).filter { !$0.optional }.map { operand in
            if case .choices(let words) = operand.completion { return words[0] }
            return "operand"
        }
    }

    func spellings(_ flag: FlagSpec) -> [[String]] {
        guard flag.takesValue else {
            var forms = [["--" + flag.long]]
            if let short = flag.short {
                forms.append(["-" + String(short)])
                // Combined with another switch, on either side.
                let other: Character = short == "q" ? "v" : "q"
                forms += [["-\(short)\(other)"], ["-\(other)\(short)"]]
            }
            return forms
        }
        let value = sampleValue(flag)
        var forms = [["--" + flag.long, value], ["--\(flag.long)=\(value)"]]
        if let short = flag.short {
            forms += [["-\(short)", value], ["-\(short)\(value)"], ["-\(short)=\(value)"], ["-q\(short)\(value)"], ["-q\(short)", value]]
        }
        return forms
    }

    func testEverySpellingOfEveryFlagParses() throws {
        var checked = 0
        for command in table.commands {
            for flag in table.allFlags(for: command) {
                for spelling in spellings(flag) {
                    let words = command.path + spelling + operands(command, with: flag)
                    let result: ParsedCommandLine
                    do {
                        result = try parser.parse(words)
                    } catch {
                        XCTFail("\(words.joined(separator: " ")): \(error.message)")
                        continue
                    }
                    checked += 1
                    switch (flag.long, result) {
                    case ("help", .help(let path, _, _)):
                        XCTAssertEqual(path, command.path, words.joined(separator: " "))
                    case ("version", .version):
                        break
                    case (_, .run(let parsedCommand, let arguments)):
                        XCTAssertEqual(parsedCommand.path, command.path)
                        XCTAssertTrue(arguments.has(flag.long), words.joined(separator: " "))
                        if flag.takesValue {
                            XCTAssertEqual(arguments.value(flag.long), sampleValue(flag), words.joined(separator: " "))
                        }
                    default:
                        XCTFail("\(words.joined(separator: " ")) parsed as \(result)")
                    }
                }
            }
        }
        XCTAssertGreaterThan(checked, 200)
    }

    /// Global flags go before the command as well.
    func testGlobalFlagsBeforeTheCommand() throws {
        for command in table.commands {
            for flag in table.globalFlags where flag.long != "help" && flag.long != "version" {
                for spelling in spellings(flag) {
                    let words = spelling + command.path + operands(command, with: flag)
                    guard case .run(_, let arguments) = try parser.parse(words) else {
                        XCTFail(words.joined(separator: " "))
                        continue
                    }
                    XCTAssertTrue(arguments.has(flag.long), words.joined(separator: " "))
                }
            }
        }
    }
}
