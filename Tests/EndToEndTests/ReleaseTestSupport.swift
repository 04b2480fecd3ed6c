import Foundation
import XCTest
import TestSupport

/// What the packaging tests (install script, release archive, .deb, Homebrew formula, the GitHub
/// Action) share: the self-contained release binary that `.ci/run` builds before the tests, the
/// external tools they run, and reading an ELF binary's sections and glibc symbol versions.
enum ReleaseBinary {
    static let path = repositoryRoot.appendingPathComponent(".build/release/appdna").path

    /// The release binary, or `missing` (a skip here, a failure under CI): building it here
    /// would take minutes and wait on the lock of the `swift test` that runs us.
    static func require() throws -> String {
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw missing("the release binary \(path)", because: "it is what gets installed and packaged",
                          remedy: "run `swift build -c release --product appdna --static-swift-stdlib` first (.ci/run and scripts/install do)")
        }
        return path
    }

    /// The version the release binary prints (`appdna 0.1.0` → `0.1.0`).
    static func version() throws -> String {
        let output = try ProcessRunner.run(try require(), ["--version"], environment: ["PATH": "/usr/bin:/bin"])
        return String(output.stdout.split(separator: " ").last ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// The archive name's platform part for this machine, as scripts/package-archive names it
    /// for a binary built here (one architecture).
    static var platform: String {
        let machine = (try? ProcessRunner.run("/usr/bin/uname", ["-m"], environment: nil).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)) ?? ""
        let arch = machine == "aarch64" ? "arm64" : machine
        #if os(macOS)
        return "macos-" + arch
        #else
        return "linux-" + arch
        #endif
    }
}

extension XCTestCase {
    /// An external tool a packaging test runs (see `requireTool`: a skip here, a failure under CI).
    func requiredTool(_ name: String) throws -> String {
        try requireTool(name, because: "a packaging test runs it")
    }

    /// Runs a repository script with bash, in a bare environment plus `environment`.
    func runScript(_ script: String, _ arguments: [String], environment: [String: String] = [:],
                   currentDirectory: String? = nil) throws -> ProcessRunner.Output {
        let base = ["PATH": "/usr/sbin:/usr/bin:/sbin:/bin:/usr/local/bin:/opt/homebrew/bin"]
        return try ProcessRunner.run("/bin/bash", [repositoryRoot.appendingPathComponent(script).path] + arguments,
                                     environment: base.merging(environment) { $1 }, currentDirectory: currentDirectory)
    }

    /// The lower-case hex SHA-256 of a file, from the system's own tool.
    func sha256Hex(_ path: String) throws -> String {
        let output: ProcessRunner.Output
        if let sha256sum = findTool("sha256sum") {
            output = try ProcessRunner.run(sha256sum, [path], environment: nil)
        } else {
            output = try ProcessRunner.run(try requiredTool("shasum"), ["-a", "256", path], environment: nil)
        }
        XCTAssertEqual(output.status, 0, output.stderr)
        return String(output.stdout.prefix(64))
    }
}

/// An ELF binary as binutils reads it (Linux only: macOS binaries are Mach-O).
enum ELF {
    /// The section names (`readelf -S`).
    static func sections(_ path: String) throws -> Set<String> {
        let readelf = try XCTUnwrap(findTool("readelf"), "readelf (binutils) is needed")
        let output = try ProcessRunner.run(readelf, ["-S", "--wide", path], environment: nil)
        XCTAssertEqual(output.status, 0, output.stderr)
        // "  [12] .text  PROGBITS ...": the name follows the bracketed index.
        return Set(output.stdout.split(separator: "\n").compactMap { line -> String? in
            guard let close = line.firstIndex(of: "]") else { return nil }
            return line[line.index(after: close)...].split(separator: " ").first.map(String.init)
        }.filter { $0.hasPrefix(".") })
    }

    /// The symbol table and debug sections the binary carries: none once it is stripped.
    static func symbolSections(_ path: String) throws -> [String] {
        try sections(path).filter { $0 == ".symtab" || $0.hasPrefix(".debug_") }.sorted()
    }

    /// Every glibc symbol version the binary asks the dynamic linker for (`objdump -T`), as
    /// numbers: `GLIBC_2.35` → [2, 35].
    static func glibcVersionsNeeded(_ path: String) throws -> [[Int]] {
        let objdump = try XCTUnwrap(findTool("objdump"), "objdump (binutils) is needed")
        let output = try ProcessRunner.run(objdump, ["-T", path], environment: nil)
        XCTAssertEqual(output.status, 0, output.stderr)
        let regex = try NSRegularExpression(pattern: #"\(GLIBC_([0-9][0-9.]*)\)"#)
        let text = output.stdout
        let versions = regex.matches(in: text, range: NSRange(text.startIndex..., in: text)).map {
            String(text[Range($0.range(at: 1), in: text)!])
        }
        return Set(versions).map(versionNumbers).sorted { $0.lexicographicallyPrecedes($1) }
    }

    /// "2.35" → [2, 35].
    static func versionNumbers(_ text: String) -> [Int] {
        text.split(separator: ".").map { Int($0) ?? 0 }
    }
}

/// YAML (a workflow, the action) and a Ruby DSL evaluated by Ruby, read back as JSON: a real
/// parser, not a line matcher. Ruby ships with macOS; scripts/install-test-tools installs it on Linux.
extension XCTestCase {
    func rubyJSON(_ script: String, _ arguments: [String]) throws -> Any {
        let ruby = try requiredTool("ruby")
        let output = try ProcessRunner.run(ruby, ["-rjson", "-ryaml", "-e", script] + arguments, environment: nil)
        XCTAssertEqual(output.status, 0, output.stderr)
        return try JSONSerialization.jsonObject(with: Data(output.stdout.utf8))
    }

    func loadYAML(_ path: String) throws -> [String: Any] {
        try XCTUnwrap(try rubyJSON("puts JSON.generate(YAML.safe_load(File.read(ARGV[0])))", [path]) as? [String: Any])
    }
}
