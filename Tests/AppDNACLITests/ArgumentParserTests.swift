import XCTest
@testable import AppDNACLI
import AppDNACore

/// Every spelling the contract promises, parsed in-process.
final class ArgumentParserTests: XCTestCase {
    let parser = ArgumentParser(table: .appdna)

    func parse(_ words: [String]) throws -> (CommandSpec, ParsedArguments) {
        guard case .run(let command, let arguments) = try parser.parse(words) else {
            XCTFail("expected a command for \(words)")
            throw Failure(.internalError, "not a command")
        }
        return (command, arguments)
    }

    func usageError(_ words: [String]) -> String {
        do {
            _ = try parser.parse(words)
            XCTFail("expected a usage error for \(words)")
            return ""
        } catch {
            XCTAssertEqual(error.kind, .usage)
            return error.message
        }
    }

    func testLongFlagWithSeparateAndInlineValue() throws {
        for words in [["bucket", "u", "e", "s", "--scheme", "docs"], ["bucket", "u", "e", "s", "--scheme=docs"]] {
            let (command, arguments) = try parse(words)
            XCTAssertEqual(command.name, "bucket")
            XCTAssertEqual(arguments.value("scheme"), "docs")
            XCTAssertEqual(arguments.operands, ["u", "e", "s"])
        }
    }

    func testShortFlagsCombinedAndWithAttachedValue() throws {
        var (_, arguments) = try parse(["bucket", "-qv", "u", "e", "s"])
        XCTAssertTrue(arguments.has("quiet"))
        XCTAssertTrue(arguments.has("verbose"))
        (_, arguments) = try parse(["-q", "bucket", "u", "e", "s"])
        XCTAssertTrue(arguments.has("quiet"))
    }

    func testDoubleDashEndsOptionsAndLoneDashIsAnOperand() throws {
        var (_, arguments) = try parse(["bucket", "--", "--weird-user", "e", "s"])
        XCTAssertEqual(arguments.operands, ["--weird-user", "e", "s"])
        (_, arguments) = try parse(["bucket", "-", "e", "s"])
        XCTAssertEqual(arguments.operands, ["-", "e", "s"])
    }

    func testLastFlagWinsAndRepeatableFlagsAccumulate() throws {
        let (_, arguments) = try parse(["bucket", "u", "e", "s", "--scheme", "docs", "--scheme", "sdk", "--trait", "a=1", "--trait=b=2"])
        XCTAssertEqual(arguments.value("scheme"), "sdk")
        XCTAssertEqual(arguments.all("trait"), ["a=1", "b=2"])
    }

    func testGlobalFlagsBeforeOrAfterTheCommand() throws {
        for words in [["--color", "never", "bucket", "u", "e", "s"], ["bucket", "u", "e", "s", "--color=never"], ["--no-input", "bucket", "u", "e", "s"]] {
            let (command, _) = try parse(words)
            XCTAssertEqual(command.name, "bucket")
        }
    }

    func testValuesThatLookLikeFlagsAreTakenAsValues() throws {
        let (_, arguments) = try parse(["bucket", "--prefix", "-x-", "--find", "b", "e", "s"])
        XCTAssertEqual(arguments.value("prefix"), "-x-")
    }

    func testUnknownFlagSuggestsTheClosest() {
        XCTAssertEqual(usageError(["bucket", "u", "e", "s", "--jsn"]), "unknown flag '--jsn' for 'appdna bucket'; did you mean '--json'?")
        XCTAssertTrue(usageError(["bucket", "u", "e", "s", "--explian"]).contains("did you mean '--explain'?"))
        XCTAssertTrue(usageError(["bucket", "u", "e", "s", "-Z"]).hasPrefix("unknown flag '-Z'"))
    }

    func testCommandFlagBeforeTheCommandSaysWhereItBelongs() {
        XCTAssertTrue(usageError(["--json", "bucket", "u", "e", "s"]).contains("belongs to 'appdna bucket'"))
    }

    func testUnknownCommandSuggestsTheClosest() {
        XCTAssertTrue(usageError(["bukcet"]).contains("did you mean 'bucket'?"))
        XCTAssertTrue(usageError(["help", "bukcet"]).contains("unknown help topic 'bukcet'; did you mean 'bucket'?"))
    }

    func testMissingAndSurplusOperandsAndValues() {
        XCTAssertTrue(usageError(["bucket", "u"]).contains("needs EXPERIMENT"))
        XCTAssertTrue(usageError(["bucket", "u", "e", "s", "extra"]).contains("unexpected argument 'extra'"))
        XCTAssertEqual(usageError(["bucket", "u", "e", "s", "--scheme"]), "--scheme needs a value (SCHEME)")
        XCTAssertEqual(usageError(["bucket", "u", "e", "s", "--json=yes"]), "--json is a switch and takes no value")
        XCTAssertTrue(usageError(["bucket", "u", "e", "s", "--scheme", "dcos"]).contains("did you mean 'docs'?"))
    }

    func testHelpFormsAllLeadToTheSamePage() throws {
        for words in [["bucket", "--help"], ["bucket", "-h"], ["help", "bucket"], ["--help", "bucket"]] {
            guard case .help(let path, _, _) = try parser.parse(words) else { return XCTFail("\(words) is not help") }
            XCTAssertEqual(path, ["bucket"])
        }
        guard case .version = try parser.parse(["--version"]) else { return XCTFail("not version") }
    }

    func testFlagsDependingOnOtherFlagsChangeTheOperands() throws {
        _ = try parse(["bucket", "--self-test"])
        let (_, arguments) = try parse(["bucket", "--find", "b", "exp", "salt"])
        XCTAssertEqual(arguments.operands, ["exp", "salt"])
    }

    func testEditDistance() {
        XCTAssertEqual(Suggestions.editDistance("json", "jsno"), 1)
        XCTAssertEqual(Suggestions.editDistance("", "abc"), 3)
        XCTAssertEqual(Suggestions.editDistance("kitten", "sitting"), 3)
    }
}

/// Mistakes a new user makes first, and what they are told (status 64 each).
final class UsageMistakeTests: XCTestCase {
    func testUnknownShellListsTheShellsAndSuggests() {
        for shell in ["tcsh", "", "bsh"] {
            let run = runCLI(["completions", shell])
            XCTAssertEqual(run.status, 64, shell)
            XCTAssertEqual(run.stdout, "", shell)
            XCTAssertTrue(run.stderr.contains("one of bash, zsh, fish, install, not '\(shell)'"), run.stderr)
        }
        XCTAssertTrue(runCLI(["completions", "bsh"]).stderr.contains("did you mean 'bash'?"))
        XCTAssertTrue(runCLI(["completions", "fsh"]).stderr.contains("did you mean 'fish'?"))
    }

    func testVersionAsACommandAndCapitalV() {
        XCTAssertEqual(runCLI(["version"]).status, 64)
        XCTAssertEqual(runCLI(["version"]).stderr, "appdna: unknown command 'version'; did you mean 'appdna --version'?\n")
        XCTAssertEqual(runCLI(["-V"]).stderr, "appdna: unknown flag '-V'; did you mean '--version'?\n")
        XCTAssertEqual(runCLI(["-V"]).status, 64)
    }

    func testBatchOnlyFlagsOnASingleUserAreRefused() {
        for flag in [["--summary"], ["--format", "csv"]] {
            let run = runCLI(["bucket", "user_1", "exp", "salt", "--variants", "a=0.5,b=0.5"] + flag)
            XCTAssertEqual(run.status, 64)
            XCTAssertEqual(run.stdout, "")
            XCTAssertEqual(run.stderr, "appdna: \(flag[0]) does not go with one user's report; it is for a batch: give USER '-' and one user id per line on stdin\n")
        }
        // The batch form still takes them, one at a time (--summary prints counts, not rows).
        XCTAssertEqual(runCLI(["bucket", "-", "exp", "salt", "--summary"], stdin: "u1\n").status, 0)
        XCTAssertEqual(runCLI(["bucket", "-", "exp", "salt", "--format", "csv"], stdin: "u1\n").status, 0)
        XCTAssertEqual(runCLI(["bucket", "-", "exp", "salt", "--summary", "--format", "csv"], stdin: "u1\n").stderr,
                       "appdna: --format does not go with --summary; --summary prints counts, not rows\n")
    }
}
