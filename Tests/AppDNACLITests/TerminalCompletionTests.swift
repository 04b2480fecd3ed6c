import Foundation
import XCTest
@testable import AppDNACLI
import TestSupport

/// The committed completion scripts in real interactive shells: each shell runs in a tmux
/// pseudo-terminal, the test types the keys a user types (TAB included) and reads the screen.
/// Skipped only when tmux or that shell is not installed (CI installs them:
/// scripts/install-test-tools).
final class TerminalCompletionTests: XCTestCase {
    /// A scratch directory with the names a user has: one with a space, and a bundle.
    var workDirectory: URL!

    override func setUpWithError() throws {
        workDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("appdna-pty-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: workDirectory.appendingPathComponent("My Bundles"), withIntermediateDirectories: true)
        try Data("{}\n".utf8).write(to: workDirectory.appendingPathComponent("My Bundles/appdna-config.json"))
        let directory = workDirectory!
        addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
    }

    func script(_ shell: CompletionShell) -> String {
        repositoryRoot.appendingPathComponent(shell.committedPath).path
    }

    // MARK: - bash

    func startBash() throws -> TerminalSession {
        let bash = try requireTool("bash", because: "the completion is typed into it")
        let rc = workDirectory.appendingPathComponent("bashrc")
        // As a user has it: bash-completion (when installed) and the script from completions/.
        try """
        PS1='$ '
        [ -r /usr/share/bash-completion/bash_completion ] && . /usr/share/bash-completion/bash_completion
        . '\(script(.bash))'
        bind 'set bell-style none'
        """.write(to: rc, atomically: false, encoding: .utf8)
        return try TerminalSession(test: self, command: [bash, "--noprofile", "--rcfile", rc.path, "-i"], directory: workDirectory)
    }

    func testBashValuesArePerCommand() throws {
        let session = try startBash()
        var screen = try session.complete("appdna bundle validate --format ", keys: ["Tab", "Tab"], until: "github")
        XCTAssertTrue(screen.containsWords(["github", "json", "text"]), screen.text)
        XCTAssertFalse(screen.containsWords(["csv"]) || screen.containsWords(["ndjson"]), screen.text)
        screen = try session.complete("appdna bundle diff --format ", keys: ["Tab", "Tab"], until: "patch")
        XCTAssertTrue(screen.containsWords(["json", "patch", "text"]), screen.text)
        screen = try session.complete("appdna bucket - e s --format nd", keys: ["Tab"], until: "ndjson")
        XCTAssertEqual(screen.inputLine, "appdna bucket - e s --format ndjson ")
    }

    func testBashEscapesFileNamesAndMarksDirectories() throws {
        let session = try startBash()
        var screen = try session.complete("appdna bundle validate My", keys: ["Tab"], until: "Bundles/")
        XCTAssertEqual(screen.inputLine, #"appdna bundle validate My\ Bundles/"#)
        screen = try session.complete("appdna bucket u e --bundle My", keys: ["Tab"], until: "Bundles/")
        XCTAssertEqual(screen.inputLine, #"appdna bucket u e --bundle My\ Bundles/"#)
        // Into the directory: the escaped prefix still matches.
        screen = try session.complete(#"appdna bundle validate My\ Bundles/a"#, keys: ["Tab"], until: "config.json")
        XCTAssertEqual(screen.inputLine, #"appdna bundle validate My\ Bundles/appdna-config.json "#)
    }

    func testBashHelpCompletesCommandPaths() throws {
        let session = try startBash()
        var screen = try session.complete("appdna help bundle ", keys: ["Tab", "Tab"], until: "validate")
        XCTAssertTrue(screen.containsWords(["diff", "fetch", "validate"]), screen.text)
        XCTAssertFalse(screen.containsWords(["bucket"]), screen.text)
        screen = try session.complete("appdna help que", keys: ["Tab"], until: "queue")
        XCTAssertEqual(screen.inputLine, "appdna help queue ")
    }

    func testBashCompletesPlatformsAndTheEqualsForm() throws {
        let session = try startBash()
        var screen = try session.complete("appdna bucket u --platform ", keys: ["Tab", "Tab"], until: "android")
        XCTAssertTrue(screen.containsWords(["ios", "android"]), screen.text)
        screen = try session.complete("appdna bundle validate --format=j", keys: ["Tab"], until: "--format=json")
        XCTAssertEqual(screen.inputLine, "appdna bundle validate --format=json ")
        screen = try session.complete("appdna --color=never bundle diff --format=pa", keys: ["Tab"], until: "--format=patch")
        XCTAssertEqual(screen.inputLine, "appdna --color=never bundle diff --format=patch ")
        screen = try session.complete("appdna bucket u --bundle=My", keys: ["Tab"], until: "Bundles/")
        XCTAssertEqual(screen.inputLine, #"appdna bucket u --bundle=My\ Bundles/"#)
    }

    // MARK: - zsh

    func startZsh() throws -> TerminalSession {
        let zsh = try requireTool("zsh", because: "the completion is typed into it")
        let functions = workDirectory.appendingPathComponent("zfunctions")
        try FileManager.default.createDirectory(at: functions, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: script(.zsh), toPath: functions.appendingPathComponent("_appdna").path)
        // As a user installs it: _appdna in $fpath, then compinit.
        try """
        PS1='%% '
        fpath=('\(functions.path)' $fpath)
        autoload -Uz compinit && compinit -u -D
        unsetopt beep
        """.write(to: workDirectory.appendingPathComponent(".zshrc"), atomically: false, encoding: .utf8)
        return try TerminalSession(test: self, command: ["/usr/bin/env", "ZDOTDIR=\(workDirectory.path)", zsh, "-i"],
                                   directory: workDirectory, prompt: "% ")
    }

    func testZshInsertsAFlagAndCompletesValuesFilesAndHelp() throws {
        let session = try startZsh()
        // A flag that takes a value is inserted as `--scheme=` (zsh's own style); the value
        // follows in the same word, or as the next word.
        var screen = try session.complete("appdna bucket --sch", keys: ["Tab"], until: "--scheme=")
        XCTAssertEqual(screen.inputLine, "appdna bucket --scheme=")
        screen = try session.complete("appdna bucket --scheme=d", keys: ["Tab"], until: "--scheme=docs")
        XCTAssertEqual(screen.inputLine, "appdna bucket --scheme=docs ")
        screen = try session.complete("appdna bundle validate --format ", keys: ["Tab"], until: "github")
        XCTAssertTrue(screen.containsWords(["github", "json", "text"]), screen.text)
        XCTAssertFalse(screen.containsWords(["csv"]), screen.text)
        screen = try session.complete("appdna bundle validate My", keys: ["Tab"], until: "Bundles/")
        XCTAssertEqual(screen.inputLine, #"appdna bundle validate My\ Bundles/"#)
        screen = try session.complete("appdna help ", keys: ["Tab"], until: "webhook")
        XCTAssertTrue(screen.containsWords(["bucket", "bundle", "queue", "webhook", "completions", "manpage"]), screen.text)
        screen = try session.complete("appdna help bundle ", keys: ["Tab"], until: "validate")
        XCTAssertTrue(screen.containsWords(["diff", "fetch", "validate"]), screen.text)
        XCTAssertFalse(screen.containsWords(["bucket"]), screen.text)
    }

    func testZshCompletesPlatformsAndTheEqualsForm() throws {
        let session = try startZsh()
        var screen = try session.complete("appdna bucket u --platform ", keys: ["Tab"], until: "android")
        XCTAssertTrue(screen.containsWords(["ios", "android"]), screen.text)
        screen = try session.complete("appdna bundle validate --format=j", keys: ["Tab"], until: "--format=json")
        XCTAssertEqual(screen.inputLine, "appdna bundle validate --format=json ")
        screen = try session.complete("appdna bucket u --platform=i", keys: ["Tab"], until: "--platform=ios")
        XCTAssertEqual(screen.inputLine, "appdna bucket u --platform=ios ")
    }

    // MARK: - fish

    func startFish() throws -> TerminalSession {
        let fish = try requireTool("fish", because: "the completion is typed into it")
        return try TerminalSession(
            test: self,
            command: [fish, "--no-config", "-i", "-C",
                      "function fish_prompt; echo -n '> '; end; set -g fish_greeting; source '\(script(.fish))'"],
            directory: workDirectory, prompt: "> ")
    }

    func testFishCompletesHelpPathsAndValuesWithoutRepeatingTheFlagsText() throws {
        let session = try startFish()
        var screen = try session.complete("appdna help ", keys: ["Tab"], until: "webhook")
        XCTAssertTrue(screen.containsWords(["bucket", "bundle", "queue", "webhook"]), screen.text)
        screen = try session.complete("appdna help bundle ", keys: ["Tab"], until: "validate")
        XCTAssertTrue(screen.containsWords(["diff", "fetch", "validate"]), screen.text)
        screen = try session.complete("appdna bundle validate --format ", keys: ["Tab"], until: "github")
        XCTAssertTrue(screen.containsWords(["github", "json", "text"]), screen.text)
        // The flag's description ("text (FILE:LINE:COL…") is not printed beside each value.
        XCTAssertFalse(screen.text.contains("Actions annotations"), screen.text)
        screen = try session.complete("appdna bucket --sch", keys: ["Tab"], until: "--scheme ")
        XCTAssertEqual(screen.inputLine, "appdna bucket --scheme ")
    }
}
