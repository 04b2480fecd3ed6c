import Foundation
import XCTest
@testable import AppDNACLI
import AppDNACore

/// Issue 54.3: `completions install` makes its directories and writes its script only through
/// `CommandIO.files`, and finds a directory it may not write before it makes anything. The home
/// directory is under /proc, where nothing can be made even by root: a directory made or a
/// script written around the injected files would fail (73) instead of landing in memory.
final class CompletionInstallFileAccessTests: XCTestCase {
    static let home = "/proc/appdna-in-memory-home"

    func install(_ shell: String, files: InMemoryFiles, environment: [String: String] = [:]) -> CapturedRun {
        runCLI(["completions", "install", "--shell", shell], environment: ["HOME": Self.home].merging(environment) { $1 }, files: files)
    }

    func testInstallMakesTheMissingDirectoriesAndWritesTheScript() {
        let files = InMemoryFiles(directories: ["/proc", Self.home])
        let bash = install("bash", files: files)
        XCTAssertEqual(bash.status, 0, bash.stderr)
        let directory = Self.home + "/.local/share/bash-completion/completions"
        XCTAssertEqual(files.directoryPaths, ["/", "/proc", Self.home, Self.home + "/.local", Self.home + "/.local/share",
                                           Self.home + "/.local/share/bash-completion", directory])
        XCTAssertEqual(files.writes, [directory + "/appdna"])
        XCTAssertEqual(files.contents[directory + "/appdna"], Array(CompletionShell.bash.script(for: .appdna).utf8))
        XCTAssertTrue(bash.stdout.hasPrefix("installed bash completions: \(directory)/appdna\n"), bash.stdout)

        // Again: everything exists, nothing more is made, the script is replaced.
        XCTAssertEqual(install("bash", files: files).status, 0)
        XCTAssertEqual(files.directoryPaths.count, 7)
        XCTAssertEqual(files.writes, [directory + "/appdna", directory + "/appdna"])
    }

    func testAnUnwritableHomeIs73BeforeAnythingIsMade() {
        let files = InMemoryFiles(directories: ["/proc", Self.home], refused: [Self.home])
        let fish = install("fish", files: files)
        XCTAssertEqual(fish.status, 73)
        XCTAssertEqual(fish.stderr, "appdna: \(Self.home)/.config: cannot create the directory: permission denied\n")
        XCTAssertEqual(files.directoryPaths, ["/", "/proc", Self.home], "no directory made")
        XCTAssertEqual(files.writes, [])
        XCTAssertEqual(fish.stdout, "")

        // A file where a directory has to be: 73, nothing made.
        let blocked = InMemoryFiles([Self.home + "/.config": []], directories: ["/proc", Self.home])
        let onFile = install("fish", files: blocked)
        XCTAssertEqual(onFile.status, 73)
        XCTAssertEqual(onFile.stderr, "appdna: \(Self.home)/.config: not a directory\n")
        XCTAssertEqual(blocked.directoryPaths, ["/", "/proc", Self.home])
        XCTAssertEqual(blocked.writes, [])
    }

    /// The walk up to an existing directory ends at the top: a relative HOME where not even
    /// "." is there is 73, not a loop.
    func testTheWalkUpEndsAtTheTop() {
        let files = InMemoryFiles()
        let result = runCLI(["completions", "install", "--shell", "fish"], environment: ["HOME": "home"], files: files)
        XCTAssertEqual(result.status, 73, result.stderr)
        XCTAssertEqual(result.stderr, "appdna: .: no such file or directory\n")
        XCTAssertEqual(files.directoryPaths, ["/"])
    }

    /// zsh takes the first FPATH entry under the home directory that it may write, and passes
    /// over one it may not (then ~/.zsh/completions, with the lines for .zshrc).
    func testZshPassesOverAnFPATHEntryItMayNotWrite() {
        let locked = Self.home + "/locked-functions", open = Self.home + "/my-functions"
        let files = InMemoryFiles(directories: ["/proc", Self.home, locked, open], refused: [locked])
        let onPath = install("zsh", files: files, environment: ["FPATH": "/usr/share/zsh/functions:\(locked):\(open)"])
        XCTAssertEqual(onPath.status, 0, onPath.stderr)
        XCTAssertEqual(files.writes, [open + "/_appdna"])
        XCTAssertTrue(onPath.stdout.contains("nothing to add"), onPath.stdout)

        let lockedOnly = InMemoryFiles(directories: ["/proc", Self.home, locked], refused: [locked])
        let fallback = install("zsh", files: lockedOnly, environment: ["FPATH": locked])
        XCTAssertEqual(fallback.status, 0, fallback.stderr)
        XCTAssertEqual(lockedOnly.writes, [Self.home + "/.zsh/completions/_appdna"])
        XCTAssertTrue(fallback.stdout.contains("fpath=(\(Self.home)/.zsh/completions $fpath)"), fallback.stdout)
    }

    /// Printing a script or the man page touches no file.
    func testPrintingTouchesNoFile() {
        let files = InMemoryFiles(directories: ["/proc", Self.home])
        XCTAssertEqual(runCLI(["completions", "zsh"], files: files).status, 0)
        XCTAssertEqual(runCLI(["manpage"], files: files).status, 0)
        XCTAssertEqual(files.writes, [])
        XCTAssertEqual(files.directoryPaths, ["/", "/proc", Self.home])
    }
}
