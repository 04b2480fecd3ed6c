import Foundation
import XCTest
import TestSupport

/// An interactive shell in a tmux pseudo-terminal (its own tmux server, so nothing is shared
/// with a user's tmux), driven by keys and read back from the screen.
final class TerminalSession {
    let tmux: String
    /// The tmux server's socket, in the test's scratch directory so that it goes with it
    /// (tmux leaves its socket file behind after kill-server).
    let socket: String
    let prompt: String

    init(test: XCTestCase, command: [String], directory: URL, prompt: String = "$ ") throws {
        tmux = try requireTool("tmux", because: "the terminal the shells are typed into")
        self.prompt = prompt
        socket = directory.appendingPathComponent("tmux.sock").path
        let socket = socket, tmux = tmux
        // A fixed, wide screen; the shell gets a plain environment.
        // The tmux server forks from this first client and keeps its descriptors: they go to
        // /dev/null, and the client is started and reaped with posix_spawn/waitpid (Foundation's
        // Process never saw it end when a daemon outlived it).
        let arguments = [tmux, "-S", socket, "-f", "/dev/null", "new-session", "-d", "-x", "200", "-y", "50", "-c", directory.path,
                         "env", "-i", "HOME=\(directory.path)", "PATH=/usr/bin:/bin", "TERM=xterm", "LANG=C.UTF-8"] + command
        guard Self.spawnDetached(arguments) == 0 else { throw missing("a working tmux", because: "it could not start a session") }
        test.addTeardownBlock { _ = try? runProgram(tmux, ["-S", socket, "kill-server"]) }
        _ = try waitForScreen(timeout: 10) { $0.lines.contains { $0.hasPrefix(prompt) } }
    }

    /// Runs a program with every standard stream on /dev/null and returns its exit status.
    static func spawnDetached(_ arguments: [String]) -> Int32 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, arguments[0], &actions, nil, &argv, environ) == 0 else { return -1 }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return (status >> 8) & 0xff
    }

    @discardableResult
    private func run(_ arguments: [String]) throws -> String {
        let result = try runProgram(tmux, ["-S", socket] + arguments)
        guard result.status == 0 else {
            throw missing("a working tmux", because: "tmux \(arguments.first ?? "") failed: \(result.stderr)")
        }
        return result.stdout
    }

    struct Screen {
        let text: String
        let prompt: String
        var lines: [String] { text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) }

        /// What is typed after the last prompt on the screen.
        var inputLine: String {
            let line = lines.last { $0.hasPrefix(prompt) } ?? ""
            return String(line.dropFirst(prompt.count)).replacingOccurrences(of: #"\s+$"#, with: " ", options: .regularExpression)
        }

        /// Each word is listed on the screen as a whole word, outside the prompt lines (bash lists
        /// candidates above a fresh prompt, zsh and fish below the line; the screen is cleared
        /// before each completion).
        func containsWords(_ words: [String]) -> Bool {
            let listed = lines.filter { !$0.hasPrefix(prompt) }.joined(separator: "\n")
            let tokens = Set(listed.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" }).map(String.init))
            return words.allSatisfy(tokens.contains)
        }
    }

    func screen() throws -> Screen {
        // -N keeps trailing spaces: "--scheme " (inserted, with its space) differs from "--scheme".
        Screen(text: try run(["capture-pane", "-p", "-N"]), prompt: prompt)
    }

    func waitForScreen(timeout: TimeInterval = 5, _ done: (Screen) -> Bool) throws -> Screen {
        let deadline = Date().addingTimeInterval(timeout)
        var current = try screen()
        while !done(current) && Date() < deadline {
            Thread.sleep(forTimeInterval: 0.05)
            current = try screen()
        }
        return current
    }

    /// Clears the screen and the line, types `text`, presses `keys`, and returns the screen once
    /// `expected` shows up (or after a few seconds, for the caller's assertions to report).
    func complete(_ text: String, keys: [String], until expected: String) throws -> Screen {
        // A fresh, empty line on a cleared screen (asked again if a busy shell missed the keys).
        for _ in 0..<3 {
            try run(["send-keys", "C-c"])
            Thread.sleep(forTimeInterval: 0.1)
            try run(["send-keys", "C-l"])
            let cleared = try waitForScreen(timeout: 3) {
                $0.lines.first?.hasPrefix(prompt) == true && $0.inputLine.trimmingCharacters(in: .whitespaces).isEmpty
                    && $0.lines.dropFirst().allSatisfy { $0.trimmingCharacters(in: .whitespaces).isEmpty }
            }
            if cleared.lines.dropFirst().allSatisfy({ $0.trimmingCharacters(in: .whitespaces).isEmpty })
                && cleared.inputLine.trimmingCharacters(in: .whitespaces).isEmpty { break }
        }
        try run(["send-keys", "-l", text])
        _ = try waitForScreen { $0.inputLine.hasPrefix(text) }
        for key in keys {
            try run(["send-keys", key])
            Thread.sleep(forTimeInterval: 0.2)
        }
        return try waitForScreen { screen in
            screen.text.split(whereSeparator: \.isNewline).contains { $0.contains(expected) && !text.contains(expected) }
                || (text.contains(expected) && screen.inputLine != text)
        }
    }
}
