import Foundation
import XCTest
import TestSupport

/// README.md and the guides under docs/ cannot lie: every ```console block in them is run, and
/// its output must be what the block shows, byte for byte. The rules (also in
/// docs/development.md, "Writing a console block"):
///
/// - A line starting with `$ ` is a command; the lines after it, up to the next `$ ` line or the
///   end of the block, are its output: stdout and stderr as they arrive in one stream (2>&1).
/// - The commands of one block run in order in one bash process (so `$ export NAME=value` holds
///   for the rest of the block, and only for it), with the built `appdna` first on PATH (then
///   the directory of the suite's `python3`, which has chDB for the warehouse examples), in a
///   scratch copy of the repository's `examples/` directory (`examples/...` paths work as from
///   the repository root, and files a command writes do not land in the repository). Each
///   document gets its own scratch copy; its blocks run in document order and share it (a
///   replay's journal is there for the next block's resume).
/// - `http://127.0.0.1:18791` stands for the server README.md tells a reader to start: its
///   `APPDNA_SDK_KEY=KEY appdna api serve --port 18791 …` line, run as written (the same
///   environment variable and arguments) except on a free port, started for the block and
///   stopped with Ctrl-C after it; the test replaces the placeholder with the server's real
///   address in the commands and in the expected output. A block exporting another key gets
///   what a reader gets: 401. An HTML comment `<!-- fake API: STATUS from request N -->` right
///   before the block adds `--fail STATUS --fail-after N`: request N (0-based) and every later
///   one get STATUS.
/// - A ```sh block is run too, as written, in one `bash -e` (its output is not shown, so it
///   must only succeed), with the same server when it names the placeholder. A block that
///   cannot run here (it needs a device, the live API, a warehouse, root) says so in the
///   document, visibly, on the line before it: `*Not run here: REASON.*`; the test counts
///   those and runs every other one. README.md's own server line is the server: it is
///   started for every block that names its address.
/// - Output that does not end with a newline is compared as if it did (a block cannot show it).
/// - Durations are masked on both sides, nothing else: a number followed by ` s` or ` ms`
///   becomes `<duration>`, and a rate `N events/s` becomes `<rate>`.
final class ReadmeConsoleTests: XCTestCase {
    static let fakeAPIPlaceholder = "http://127.0.0.1:18791"
    static let repository = repositoryRoot

    struct Command {
        let line: String
        var expected: String
        /// README line indexes (0-based) of the expected output: first, and one past the last.
        var outputLines: Range<Int>
        var indent: Int
    }

    struct Block {
        let startLine: Int
        var commands: [Command]
        /// From `<!-- fake API: STATUS from request N -->`.
        var failure: (status: Int, fromRequest: Int)?
        /// How far the fence is indented (a block inside a list item); its lines lose as much.
        var indent = 0
        /// A ```sh block: a script shown without its output (one command per line).
        var isScript = false
        /// From `*Not run here: REASON.*` on the line before the fence (or before its
        /// fake-API comment).
        var notRunReason: String?
    }

    static func blocks(in readme: String) -> [Block] {
        var blocks: [Block] = []
        var current: Block?
        var previous = ""
        var beforePrevious = ""
        for (number, line) in readme.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            // Blocks may be indented (inside a list item): strip the fence's indentation.
            let trimmed = line.drop { $0 == " " }
            let indent = line.count - trimmed.count
            if current == nil {
                if trimmed == "```console" || trimmed == "```sh" || trimmed == "```bash" {
                    current = Block(startLine: number + 1, commands: [], failure: failureDirective(previous), indent: indent,
                                    isScript: trimmed != "```console",
                                    notRunReason: notRunMarker(previous) ?? notRunMarker(beforePrevious))
                }
                beforePrevious = previous
                previous = String(line)
                continue
            }
            if trimmed == "```" {
                blocks.append(current!)
                current = nil
                continue
            }
            let text = String(line.dropFirst(min(indent, current!.indent)))
            if current!.isScript {
                current!.commands.append(Command(line: text, expected: "", outputLines: (number + 1)..<(number + 1), indent: current!.indent))
            } else if text.hasPrefix("$ ") {
                current!.commands.append(Command(line: String(text.dropFirst(2)), expected: "",
                                                 outputLines: (number + 1)..<(number + 1), indent: current!.indent))
            } else if !current!.commands.isEmpty {
                current!.commands[current!.commands.count - 1].expected += text + "\n"
                current!.commands[current!.commands.count - 1].outputLines = current!.commands[current!.commands.count - 1].outputLines.lowerBound..<(number + 1)
            }
        }
        return blocks
    }

    /// The visible marker of a block that cannot run here: `*Not run here: REASON.*`.
    static func notRunMarker(_ line: String) -> String? {
        line.wholeMatch(of: /\s*\*Not run here: (.+)\.\*/).map { String($0.1) }
    }

    static func failureDirective(_ line: String) -> (Int, Int)? {
        guard let match = line.firstMatch(of: /<!-- fake API: (\d+) from request (\d+) -->/) else { return nil }
        return (Int(match.1)!, Int(match.2)!)
    }

    /// What the masking rule does to a text.
    static func masked(_ text: String) -> String {
        text.replacing(/\d+ events\/s/, with: "<rate>").replacing(/\d+(\.\d+)? m?s\b/, with: "<duration>")
    }

    /// README.md, then every guide in docs/ (sorted): the documents whose blocks are run.
    static func documents() throws -> [String] {
        let guides = try FileManager.default.contentsOfDirectory(atPath: repository.appendingPathComponent("docs").path)
            .filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
        return ["README.md"] + guides
    }

    func testEveryConsoleBlockPrintsWhatItShows() throws {
        let documents = try Self.documents()
        XCTAssertGreaterThan(documents.count, 5)
        var console = Tally(), script = Tally()
        for document in documents {
            let (consoleBlocks, scriptBlocks) = try checkConsoleBlocks(of: document)
            console.add(consoleBlocks)
            script.add(scriptBlocks)
        }
        // The figures a reader can check against the documents' markers.
        print("documentation blocks: console \(console.run) run, \(console.notRun) not run here; sh \(script.run) run, \(script.notRun) not run here")
        XCTAssertGreaterThan(console.run, 20)
    }

    /// Blocks run, and blocks marked `*Not run here: …*`.
    struct Tally {
        var run = 0, notRun = 0
        mutating func add(_ blocks: [Block]) {
            run += blocks.filter { $0.notRunReason == nil }.count
            notRun += blocks.filter { $0.notRunReason != nil }.count
        }
    }

    /// The documents whose blocks are not run by this test (another test runs them).
    static let documentsRunElsewhere: Set<String> = ["docs/device-variants.md"]

    /// README.md's `APPDNA_SDK_KEY=KEY appdna api serve --port 18791 …` line: the environment
    /// and the arguments (without the port) a reader starts the server with.
    static func readmeServer() throws -> (environment: [String: String], arguments: [String]) {
        let readme = try String(contentsOf: repository.appendingPathComponent("README.md"), encoding: .utf8)
        let line = try XCTUnwrap(readme.split(separator: "\n").first { $0.contains(" appdna api serve ") }, "no api serve command in README.md")
        let words = line.split(separator: " ").map(String.init)
        let serve = try XCTUnwrap(words.firstIndex(of: "appdna"))
        XCTAssertEqual(Array(words[serve...(serve + 2)]), ["appdna", "api", "serve"], String(line))
        var environment: [String: String] = [:]
        for assignment in words[..<serve] {
            let parts = assignment.split(separator: "=", maxSplits: 1).map(String.init)
            XCTAssertEqual(parts.count, 2, String(line))
            environment[parts[0]] = parts.last
        }
        var arguments = Array(words[(serve + 3)...])
        let port = try XCTUnwrap(arguments.firstIndex(of: "--port"), String(line))
        XCTAssertEqual(arguments[port + 1], String(fakeAPIPlaceholder.split(separator: ":").last!))
        arguments.removeSubrange(port...(port + 1))
        return (environment, arguments)
    }

    /// Runs (and compares) every block of one document; its console blocks and its sh blocks.
    func checkConsoleBlocks(of document: String) throws -> ([Block], [Block]) {
        let url = Self.repository.appendingPathComponent(document)
        let text = try String(contentsOf: url, encoding: .utf8)
        if Self.documentsRunElsewhere.contains(document) { return ([], []) }
        let blocks = Self.blocks(in: text)

        // APPDNA_UPDATE_GENERATED=1 writes what the commands really print into the document (as
        // for the other generated files); review the diff before committing it.
        let update = ProcessInfo.processInfo.environment["APPDNA_UPDATE_GENERATED"] == "1"
        let outputs = try runAll(blocks, of: document, report: !update)
        if update {
            var replacements: [(Range<Int>, [String])] = []
            for (block, blockOutputs) in zip(blocks, outputs) where block.notRunReason == nil && !block.isScript {
                for (command, output) in zip(block.commands, blockOutputs) {
                    let lines = output.isEmpty ? [] : output.dropLast(output.hasSuffix("\n") ? 1 : 0)
                        .split(separator: "\n", omittingEmptySubsequences: false)
                        .map { $0.isEmpty ? "" : String(repeating: " ", count: command.indent) + $0 }
                    replacements.append((command.outputLines, lines))
                }
            }
            var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            for (range, output) in replacements.reversed() { lines.replaceSubrange(range, with: output) }
            try lines.joined(separator: "\n").write(to: url, atomically: false, encoding: .utf8)
        }
        return (blocks.filter { !$0.isScript }, blocks.filter(\.isScript))
    }

    /// Every block of a document in order, in one fresh scratch copy of `examples/` (removed
    /// after); each block's commands' outputs.
    func runAll(_ blocks: [Block], of document: String, report: Bool) throws -> [[String]] {
        var leftovers: [String] = []
        return try runAll(blocks, of: document, report: report, leftovers: &leftovers)
    }

    /// The same, with the files the blocks added to the scratch checkout or changed in it
    /// (sorted paths).
    func runAll(_ blocks: [Block], of document: String, report: Bool, leftovers: inout [String]) throws -> [[String]] {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("appdna-readme-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        try FileManager.default.copyItem(at: Self.repository.appendingPathComponent("examples"),
                                         to: scratch.appendingPathComponent("examples"))
        let before = Self.files(under: scratch)
        let outputs = try blocks.map { block in
            XCTAssertFalse(block.commands.isEmpty, "\(document):\(block.startLine): a console block without a `$ ` command")
            return try check(block, of: document, in: scratch, report: report)
        }
        leftovers = Self.files(under: scratch).filter { before[$0.key] != $0.value }.keys.sorted()
        return outputs
    }

    /// Issue 44: the README shows the `appdna api serve` command its API examples need (the
    /// first one used to fail after 8 s with no hint). That command, run as shown (on a free
    /// port instead of 18791), serves what the examples ask for, and only to their key.
    func testTheReadmeShowsTheAPIServeCommandItsExamplesNeed() throws {
        let readme = try String(contentsOf: Self.repository.appendingPathComponent("README.md"), encoding: .utf8)
        let line = try XCTUnwrap(readme.split(separator: "\n").first { $0.contains(" appdna api serve ") }, "no api serve command in README.md")
        let words = line.split(separator: " ").map(String.init)
        XCTAssertEqual(Array(words[1...3]), ["appdna", "api", "serve"], String(line))
        // KEY=VALUE: the key the examples export, with the address they use.
        let key = try XCTUnwrap(words[0].split(separator: "=", maxSplits: 1).last.map(String.init))
        XCTAssertEqual(words[0], "APPDNA_SDK_KEY=" + key)
        XCTAssertTrue(readme.contains("$ export APPDNA_SDK_KEY=\(key) APPDNA_API_URL=\(Self.fakeAPIPlaceholder)\n"), "the examples use another key or address")
        var arguments = Array(words[4...])
        let port = try XCTUnwrap(arguments.firstIndex(of: "--port"))
        XCTAssertEqual(arguments[port + 1], String(Self.fakeAPIPlaceholder.split(separator: ":").last!))
        arguments.removeSubrange(port...(port + 1))
        let server = try APIServeProcess(arguments, environment: ["APPDNA_SDK_KEY": key], directory: Self.repository)
        defer { server.stop() }
        let bundle = Self.repository.appendingPathComponent("examples/bundles/appdna-config.json").path
        let check = try Binary.run(["bundle", "fetch", "--check", "-o", bundle], environment: ["APPDNA_SDK_KEY": key, "APPDNA_API_URL": server.baseURL])
        XCTAssertEqual(check.status, 0, check.stderr)
        XCTAssertEqual(check.text, "up to date (bundle_version 3)\n")
        let other = try Binary.run(["bundle", "fetch", "--check", "-o", bundle],
                                   environment: ["APPDNA_SDK_KEY": "adn_test_another000000000000000001", "APPDNA_API_URL": server.baseURL])
        XCTAssertEqual(other.status, 77, "--key-from-env accepts only the examples' key: \(other.stderr)")
    }

    /// The documents' examples can be run again and again: the same output each time (the
    /// blocks that send events, the replay journal's resume included), and the checkout as it
    /// was (the replay state and written files stay in the scratch copy).
    func testRunningTheDocumentsTwiceGivesTheSameOutputAndLeavesTheCheckoutClean() throws {
        _ = try requireTool("git", because: "git status shows the checkout as it was")
        guard FileManager.default.fileExists(atPath: Self.repository.appendingPathComponent(".git").path) else {
            throw missing("a git checkout", because: "git status shows the checkout as it was", remedy: "run the suite in a clone")
        }
        // A git that refuses the checkout fails the test: two empty outputs would compare equal.
        let status = { try gitOutput(["status", "--porcelain", "--ignored", "--", "examples", "README.md", "docs"], in: Self.repository.path) }
        let before = try status()
        for document in try Self.documents() where !Self.documentsRunElsewhere.contains(document) {
            let blocks = Self.blocks(in: try String(contentsOf: Self.repository.appendingPathComponent(document), encoding: .utf8))
            var leftovers: [String] = []
            let first = try runAll(blocks, of: document, report: false, leftovers: &leftovers).map { $0.map(Self.masked) }
            let second = try runAll(blocks, of: document, report: false).map { $0.map(Self.masked) }
            XCTAssertEqual(first, second, document)
            // A reader runs the blocks in a checkout: what they write, they remove (or write
            // outside it), so that `git status` stays clean after following the document.
            XCTAssertEqual(leftovers, [], "\(document): its blocks leave these behind in the checkout")
        }
        XCTAssertEqual(try status(), before, "running the documents' blocks changed the checkout")
    }

    /// Every file under `directory` (relative path) with its contents.
    static func files(under directory: URL) -> [String: Data] {
        var files: [String: Data] = [:]
        let base = directory.resolvingSymlinksInPath().path + "/"
        guard let walk = FileManager.default.enumerator(at: directory.resolvingSymlinksInPath(), includingPropertiesForKeys: [.isRegularFileKey]) else { return [:] }
        for case let url as URL in walk where (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true {
            files[String(url.resolvingSymlinksInPath().path.dropFirst(base.count))] = FileManager.default.contents(atPath: url.path) ?? Data()
        }
        return files
    }

    /// Runs the block and compares (when `report`); returns each command's output as the
    /// document would show it (the fake's address put back as the placeholder).
    func check(_ block: Block, of document: String, in directory: URL, report: Bool) throws -> [String] {
        if block.notRunReason != nil { return block.commands.map { _ in "" } }
        let script = block.commands.map(\.line).joined(separator: "\n")
        // README.md's server line is the server every other block runs against: started below.
        if block.isScript, script.contains(" appdna api serve "), script.contains(Self.fakeAPIPlaceholder.split(separator: ":").last!) {
            return block.commands.map { _ in "" }
        }
        var server: APIServeProcess?
        if script.contains(Self.fakeAPIPlaceholder) {
            // The server README.md tells a reader to start, as written; a failure directive
            // adds its fault flags.
            let readme = try Self.readmeServer()
            let faults = block.failure.map { ["--fail", "\($0.status)", "--fail-after", "\($0.fromRequest)"] } ?? []
            server = try APIServeProcess(readme.arguments + faults, environment: readme.environment, directory: directory)
        }
        defer { XCTAssertEqual(server?.stop() ?? 0, 0, "\(document):\(block.startLine): api serve: \(server?.stderr ?? "")") }
        let address = server?.baseURL ?? Self.fakeAPIPlaceholder
        if block.isScript {
            return try runScript(block, script: script.replacingOccurrences(of: Self.fakeAPIPlaceholder, with: address),
                                 of: document, in: directory, report: report)
        }

        // One bash for the block; a separator byte after each command splits the output.
        let separator = "\u{1}"
        let body = ["exec 2>&1"] + block.commands.map {
            $0.line.replacingOccurrences(of: Self.fakeAPIPlaceholder, with: address) + "\nprintf '\\001'"
        }
        let result = try runBash(body.joined(separator: "\n"), directory: directory, environment: Self.blockEnvironment(directory))
        // Output without a final newline (`cat` of a file without one) gets one: a block cannot
        // show the difference.
        let outputs = result.components(separatedBy: separator).map { $0.isEmpty || $0.hasSuffix("\n") ? $0 : $0 + "\n" }
        XCTAssertEqual(outputs.count, block.commands.count + 1, "\(document):\(block.startLine): \(result)")
        if report {
            for (command, output) in zip(block.commands, outputs) {
                let expected = Self.withAddress(address, in: command.expected)
                XCTAssertEqual(Self.masked(output), Self.masked(expected),
                               "\(document):\(block.startLine): `\(command.line)` printed:\n\(output)")
            }
        }
        return outputs.dropLast().map { Self.withPlaceholder(address, in: $0) }
    }

    /// A ```sh block as written, in one `bash -e`: it must succeed (its output is shown only
    /// when it does not).
    func runScript(_ block: Block, script: String, of document: String, in directory: URL, report: Bool) throws -> [String] {
        let result = try runBash("set -e\n" + script + "\nprintf '\\001'", directory: directory, environment: Self.blockEnvironment(directory))
        if report {
            XCTAssertTrue(result.hasSuffix("\u{1}"), "\(document):\(block.startLine): the sh block failed (mark it `*Not run here: REASON.*` if it cannot run here):\n\(script)\n\(result)")
        }
        return block.commands.map { _ in "" }
    }

    /// PATH: the built `appdna` first, then the suite's `python3` (chDB runs the warehouse
    /// examples); HOME: the scratch directory.
    static func blockEnvironment(_ directory: URL) -> [String: String] {
        let binDirectory = Binary.url.deletingLastPathComponent().path
        let pythonDirectory = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
            .first { FileManager.default.isExecutableFile(atPath: "\($0)/python3") }.map { "\($0):" } ?? ""
        return ["PATH": "\(binDirectory):\(pythonDirectory)/usr/bin:/bin", "HOME": directory.path, "LANG": "C.UTF-8"]
    }

    /// The placeholder's `host:port` stands for the server's too (messages that name the peer).
    static func withAddress(_ address: String, in text: String) -> String {
        text.replacingOccurrences(of: fakeAPIPlaceholder, with: address)
            .replacingOccurrences(of: fakeAPIPlaceholder.dropFirst(7), with: address.dropFirst(7))
    }

    static func withPlaceholder(_ address: String, in text: String) -> String {
        text.replacingOccurrences(of: address.dropFirst(7), with: fakeAPIPlaceholder.dropFirst(7))
    }

    func runBash(_ script: String, directory: URL, environment: [String: String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["--noprofile", "--norc", "-c", script]
        process.environment = environment
        process.currentDirectoryURL = directory
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    /// The parser and the masking rule themselves.
    func testBlockParsingAndMasking() {
        let readme = """
        text
        <!-- fake API: 503 from request 3 -->
        ```console
        $ export A=1
        $ appdna x
        line 1

        line 3
        ```
          ```console
          $ appdna y
          out
          ```
        """
        let blocks = Self.blocks(in: readme)
        XCTAssertEqual(blocks.count, 2)
        XCTAssertEqual(blocks[0].commands.map(\.line), ["export A=1", "appdna x"])
        XCTAssertEqual(blocks[0].commands.map(\.expected), ["", "line 1\n\nline 3\n"])
        XCTAssertEqual(blocks[0].failure?.status, 503)
        XCTAssertEqual(blocks[0].failure?.fromRequest, 3)
        XCTAssertNil(blocks[1].failure)
        XCTAssertEqual(blocks[1].commands.map(\.expected), ["out\n"])
        XCTAssertEqual(Self.masked("Delivered 60 of 129 events in 7 requests (7.9 s, 8 events/s), 12 ms"),
                       "Delivered 60 of 129 events in 7 requests (<duration>, <rate>), <duration>")
        XCTAssertEqual(Self.masked("60 of 129 events, 5 batches"), "60 of 129 events, 5 batches")
    }
}
