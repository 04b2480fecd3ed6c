import Foundation
import XCTest
@testable import AppDNACLI
import TestSupport

/// The committed completion scripts, loaded into real shells and asked to complete.
final class ShellCompletionTests: XCTestCase {
    func path(_ shell: CompletionShell) -> String {
        repositoryRoot.appendingPathComponent(shell.committedPath).path
    }

    /// Runs the bash completion function for a command line ending at the cursor.
    func bashComplete(_ line: String) throws -> [String] {
        let bash = try requireTool("bash", because: "runs the completion script")
        let script = """
        source '\(path(.bash))'
        read -r -a COMP_WORDS <<< "$LINE"
        [[ "$LINE" == *" " ]] && COMP_WORDS+=("")
        COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
        _appdna
        printf '%s\\n' "${COMPREPLY[@]}"
        """
        let result = try runProgram(bash, ["--norc", "-c", script], environment: ["LINE": line, "PATH": "/usr/bin:/bin"],
                                    currentDirectory: repositoryRoot)
        XCTAssertEqual(result.status, 0, result.stderr)
        return result.stdout.split(separator: "\n").map(String.init)
    }

    func testBashCompletesCommandsFlagsAndValues() throws {
        XCTAssertEqual(try bashComplete("appdna buc"), ["bucket"])
        XCTAssertTrue(try bashComplete("appdna ").contains("completions"))
        XCTAssertEqual(try bashComplete("appdna bucket --sch"), ["--scheme"])
        XCTAssertEqual(try bashComplete("appdna bucket --scheme "), ["sdk", "docs"])
        XCTAssertEqual(try bashComplete("appdna bucket u e s --format n"), ["ndjson"])
        XCTAssertEqual(try bashComplete("appdna --color a"), ["auto", "always"])
        XCTAssertEqual(try bashComplete("appdna completions f"), ["fish"])
        // A file value: completes paths of the working directory.
        XCTAssertTrue(try bashComplete("appdna bucket --bundle Packa").contains("Package.swift"))
        // The value of a global flag is skipped when finding the command.
        XCTAssertEqual(try bashComplete("appdna --color never bucket --expl"), ["--explain"])
        // After `help`: the commands and the help topics (34.8: `appdna help environment`).
        XCTAssertEqual(try bashComplete("appdna help env"), ["environment"])
        XCTAssertTrue(try bashComplete("appdna help ").contains("bundle"))
    }

    func fishComplete(_ line: String) throws -> [String] {
        let fish = try requireTool("fish", because: "runs the completion script")
        let result = try runProgram(fish, ["--no-config", "-c", "source '\(path(.fish))'; complete -C '\(line)'"],
                                    currentDirectory: repositoryRoot)
        XCTAssertEqual(result.status, 0, result.stderr)
        return result.stdout.split(separator: "\n").map { String($0.split(separator: "\t").first ?? "") }
    }

    func testFishCompletesCommandsFlagsAndValues() throws {
        XCTAssertTrue(try fishComplete("appdna buc").contains("bucket"))
        XCTAssertTrue(try fishComplete("appdna bucket --sch").contains("--scheme"))
        XCTAssertEqual(Set(try fishComplete("appdna bucket --scheme ")), ["sdk", "docs"])
        XCTAssertEqual(Set(try fishComplete("appdna bucket --format ")), ["tsv", "csv", "ndjson"])
        XCTAssertTrue(try fishComplete("appdna --col").contains("--color"))
        XCTAssertEqual(Set(try fishComplete("appdna completions ")), ["bash", "zsh", "fish", "install"])
        XCTAssertEqual(try fishComplete("appdna help env"), ["environment"])
    }

    /// zsh's completion system needs a terminal to run for real; instead the script is loaded
    /// with `_arguments` and `_describe` replaced by stubs that print what they were given, and
    /// each command's function must list exactly the table's flags.
    func testZshLoadsAndListsTheSameOptions() throws {
        let zsh = try requireTool("zsh", because: "runs the completion script")
        for command in CommandTable.appdna.visibleCommands {
            let function = "_appdna_" + command.path.joined(separator: "_").replacingOccurrences(of: "-", with: "_")
            let script = """
            _arguments() { printf '%s\\n' "$@" }
            _describe() { :; }
            compdef() { :; }
            source '\(path(.zsh))'
            \(function)
            """
            let result = try runProgram(zsh, ["-f", "-c", script])
            XCTAssertEqual(result.status, 0, result.stderr)
            let listed = Set(result.stdout.split(separator: "\n").compactMap { line -> String? in
                guard let range = line.range(of: "--[a-z0-9-]+", options: .regularExpression) else { return nil }
                return String(line[range].dropFirst(2))
            })
            let expected = Set((command.flags + CommandTable.appdna.globalFlags).filter { !$0.hidden }.map(\.long))
            XCTAssertEqual(listed, expected, command.name)
        }
    }

    func testBashScriptPassesShellcheck() throws {
        let shellcheck = try requireTool("shellcheck", because: "lints the completion script")
        let result = try runProgram(shellcheck, ["-s", "bash", path(.bash)])
        XCTAssertEqual(result.status, 0, result.stdout)
    }
}
