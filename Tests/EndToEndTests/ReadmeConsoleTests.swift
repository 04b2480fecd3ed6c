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
/// - `http://127.0.0.1:18791` stands for `appdna api serve` (started for the block on a free
///   port, serving examples/bundles/appdna-config.json and accepting only the key the block
///   exports as APPDNA_SDK_KEY, stopped with Ctrl-C after it); the test replaces it with the
///   server's real address in the commands and in the expected output. An HTML comment
///   `<!-- fake API: STATUS from request N -->` right before the block adds
///   `--fail STATUS --fail-after N`: request N (0-based) and every later one get STATUS.
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
    }

    static func blocks(in readme: String) -> [Block] {
        var blocks: [Block] = []
        var current: Block?
        var previous = ""
        for (number, line) in readme.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            // Blocks may be indented (inside a list item): strip the fence's indentation.
            let trimmed = line.drop { $0 == " " }
            let indent = line.count - trimmed.count
            if current == nil {
                if trimmed == "```console" {
                    current = Block(startLine: number + 1, commands: [], failure: failureDirective(previous), indent: indent)
                }
                previous = String(line)
                continue
            }
            if trimmed == "```" {
                blocks.append(current!)
                current = nil
                continue
            }
            let text = String(line.dropFirst(min(indent, current!.indent)))
            if text.hasPrefix("$ ") {
                current!.commands.append(Command(line: String(text.dropFirst(2)), expected: "",
                                                 outputLines: (number + 1)..<(number + 1), indent: current!.indent))
            } else if !current!.commands.isEmpty {
                current!.commands[current!.commands.count - 1].expected += text + "\n"
                current!.commands[current!.commands.count - 1].outputLines = current!.commands[current!.commands.count - 1].outputLines.lowerBound..<(number + 1)
            }
        }
        return blocks
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
        var total = 0
        for document in documents {
            total += try checkConsoleBlocks(of: document)
        }
        XCTAssertGreaterThan(total, 20)
    }

    /// Runs (and compares) every block of one document; how many blocks it has.
    func checkConsoleBlocks(of document: String) throws -> Int {
        let url = Self.repository.appendingPathComponent(document)
        let text = try String(contentsOf: url, encoding: .utf8)
        let blocks = Self.blocks(in: text)

        // APPDNA_UPDATE_GENERATED=1 writes what the commands really print into the document (as
        // for the other generated files); review the diff before committing it.
        let update = ProcessInfo.processInfo.environment["APPDNA_UPDATE_GENERATED"] == "1"
        let outputs = try runAll(blocks, of: document, report: !update)
        if update {
            var replacements: [(Range<Int>, [String])] = []
            for (block, blockOutputs) in zip(blocks, outputs) {
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
        return blocks.count
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
        for document in try Self.documents() {
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
        let script = block.commands.map(\.line).joined(separator: "\n")
        var server: APIServeProcess?
        if script.contains(Self.fakeAPIPlaceholder) {
            // `appdna api serve` itself, accepting only the key the block exports; a failure
            // directive becomes its fault flags.
            let key = script.firstMatch(of: /APPDNA_SDK_KEY=([A-Za-z0-9_]+)/).map { String($0.1) } ?? "adn_live_missing"
            let faults = block.failure.map { ["--fail", "\($0.status)", "--fail-after", "\($0.fromRequest)"] } ?? []
            server = try APIServeProcess(["--bundle", "examples/bundles/appdna-config.json", "--key-from-env"] + faults,
                                         environment: ["APPDNA_SDK_KEY": key], directory: directory)
        }
        defer { XCTAssertEqual(server?.stop() ?? 0, 0, "\(document):\(block.startLine): api serve: \(server?.stderr ?? "")") }
        let address = server?.baseURL ?? Self.fakeAPIPlaceholder

        // One bash for the block; a separator byte after each command splits the output.
        let separator = "\u{1}"
        let body = ["exec 2>&1"] + block.commands.map {
            $0.line.replacingOccurrences(of: Self.fakeAPIPlaceholder, with: address) + "\nprintf '\\001'"
        }
        let binDirectory = Binary.url.deletingLastPathComponent().path
        // The python3 the suite's tools were installed for (chDB runs the warehouse examples).
        let pythonDirectory = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
            .first { FileManager.default.isExecutableFile(atPath: "\($0)/python3") }.map { "\($0):" } ?? ""
        let result = try runBash(body.joined(separator: "\n"), directory: directory,
                                 environment: ["PATH": "\(binDirectory):\(pythonDirectory)/usr/bin:/bin", "HOME": directory.path, "LANG": "C.UTF-8"])
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
