import Foundation
import XCTest
@testable import AppDNACLI
import TestSupport

/// `appdna completions install` into a fresh $HOME, then each real shell, started as a user
/// starts it (with only what install said to add to its rc file), completes appdna under tmux.
final class CompletionInstallTests: XCTestCase {
    var home: URL!

    override func setUpWithError() throws {
        home = FileManager.default.temporaryDirectory.appendingPathComponent("appdna-home-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        let directory = home!
        addTeardownBlock { try? FileManager.default.removeItem(at: directory) }
    }

    func install(_ shell: String?, environment extra: [String: String] = [:]) -> CapturedRun {
        runCLI(["completions", "install"] + (shell.map { ["--shell", $0] } ?? []), environment: ["HOME": home.path].merging(extra) { $1 })
    }

    /// The rc lines install printed (indented by two spaces after "add to …:").
    func rcLines(_ output: String) -> [String] {
        output.split(separator: "\n").filter { $0.hasPrefix("  ") }.map { String($0.dropFirst(2)) }
    }

    func testPlacesPerShellAndWhatToAdd() throws {
        let bash = install("bash")
        XCTAssertEqual(bash.status, 0, bash.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: home.path + "/.local/share/bash-completion/completions/appdna"))
        XCTAssertEqual(try String(contentsOfFile: home.path + "/.local/share/bash-completion/completions/appdna", encoding: .utf8),
                       CompletionShell.bash.script(for: .appdna))
        XCTAssertTrue(bash.stdout.contains("nothing to add"), bash.stdout)
        XCTAssertEqual(install("bash", environment: ["XDG_DATA_HOME": home.path + "/data"]).status, 0)
        XCTAssertTrue(FileManager.default.fileExists(atPath: home.path + "/data/bash-completion/completions/appdna"))

        let zsh = install(nil, environment: ["SHELL": "/usr/bin/zsh"])
        XCTAssertEqual(zsh.status, 0, zsh.stderr)
        XCTAssertEqual(rcLines(zsh.stdout), ["fpath=(\(home.path)/.zsh/completions $fpath)", "autoload -Uz compinit && compinit"])
        XCTAssertTrue(zsh.stdout.contains("add to \(home.path)/.zshrc:"), zsh.stdout)
        // An exported FPATH with a writable entry under $HOME: that entry, nothing to add.
        let functions = home.path + "/my-functions"
        try FileManager.default.createDirectory(atPath: functions, withIntermediateDirectories: true)
        let onPath = install("zsh", environment: ["FPATH": "/usr/share/zsh/functions:\(functions)"])
        XCTAssertTrue(FileManager.default.fileExists(atPath: functions + "/_appdna"))
        XCTAssertEqual(rcLines(onPath.stdout), [])

        let fish = install("fish")
        XCTAssertTrue(FileManager.default.fileExists(atPath: home.path + "/.config/fish/completions/appdna.fish"))
        XCTAssertTrue(fish.stdout.contains("nothing to add"), fish.stdout)

        XCTAssertEqual(install(nil, environment: ["SHELL": "/bin/tcsh"]).status, 64)
        XCTAssertEqual(runCLI(["completions", "bash", "--shell", "zsh"]).status, 64)
        XCTAssertEqual(runCLI(["completions", "install", "--shell", "bash"], environment: [:]).status, 78)
    }

    func testBashFindsTheInstalledScript() throws {
        let bash = try requireTool("bash", because: "loads the installed completion")
        guard FileManager.default.fileExists(atPath: "/usr/share/bash-completion/bash_completion") else {
            throw missing("bash-completion", because: "it loads the user directory's completions")
        }
        XCTAssertEqual(install("bash").status, 0)
        // As a user has it: bash-completion sourced, nothing about appdna.
        try "PS1='$ '\n. /usr/share/bash-completion/bash_completion\nbind 'set bell-style none'\n"
            .write(to: home.appendingPathComponent("bashrc"), atomically: false, encoding: .utf8)
        let session = try TerminalSession(test: self, command: [bash, "--noprofile", "--rcfile", home.path + "/bashrc", "-i"], directory: home)
        let screen = try session.complete("appdna bundle valid", keys: ["Tab"], until: "validate")
        XCTAssertEqual(screen.inputLine, "appdna bundle validate ")
    }

    func testZshFindsTheInstalledScriptWithTheLinesItPrinted() throws {
        let zsh = try requireTool("zsh", because: "loads the installed completion")
        let result = install("zsh")
        XCTAssertEqual(result.status, 0)
        try (["PS1='%% '", "unsetopt beep"] + rcLines(result.stdout)).joined(separator: "\n")
            .write(to: home.appendingPathComponent(".zshrc"), atomically: false, encoding: .utf8)
        let session = try TerminalSession(test: self, command: ["/usr/bin/env", "ZDOTDIR=\(home.path)", zsh, "-i"], directory: home, prompt: "% ")
        let screen = try session.complete("appdna bundle valid", keys: ["Tab"], until: "validate")
        XCTAssertEqual(screen.inputLine, "appdna bundle validate ")
    }

    func testFishFindsTheInstalledScript() throws {
        let fish = try requireTool("fish", because: "loads the installed completion")
        XCTAssertEqual(install("fish").status, 0)
        // fish loads a command's completions only when the command is on PATH: an executable
        // named appdna stands in for the installed binary.
        let bin = home.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        try "#!/bin/sh\n".write(to: bin.appendingPathComponent("appdna"), atomically: false, encoding: .utf8)
        chmod(bin.appendingPathComponent("appdna").path, 0o755)
        // A normal fish (its config read), only the prompt made predictable.
        let session = try TerminalSession(test: self, command: ["/usr/bin/env", "PATH=\(bin.path):/usr/bin:/bin", fish, "-i", "-C", "function fish_prompt; echo -n '> '; end; set -g fish_greeting"],
                                          directory: home, prompt: "> ")
        let screen = try session.complete("appdna bundle valid", keys: ["Tab"], until: "validate")
        XCTAssertEqual(screen.inputLine, "appdna bundle validate ")
    }
}
