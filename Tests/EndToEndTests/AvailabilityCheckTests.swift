import Foundation
import TestSupport
import XCTest

/// `scripts/check-availability` is how a Linux machine knows the package still builds for its
/// macOS target (Linux ignores `@available`): it passes on the tree, and a newer API planted in
/// Sources/, Tests/ or Plugins/ of a copy is named with its file and line.
final class AvailabilityCheckTests: XCTestCase {
    var script: String { repositoryRoot.appendingPathComponent("scripts/check-availability").path }

    /// The build this test binary belongs to (`.build` or another `--scratch-path`, debug or
    /// release): its compile flags and module files are what the checker reuses.
    static let build: (directory: String, configuration: String)? = {
        var directory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        var configuration: String?
        while directory.path != "/" {
            let name = directory.lastPathComponent
            if configuration == nil, name == "debug" || name == "release" { configuration = name }
            if let configuration, FileManager.default.fileExists(atPath: directory.appendingPathComponent(configuration + ".yaml").path) {
                return (directory.path, configuration)
            }
            directory = directory.deletingLastPathComponent()
        }
        return nil
    }()

    func checker() throws -> [String] {
        #if os(macOS)
        throw XCTSkip("on macOS the compiler checks availability itself; the script is for Linux")
        #else
        let python = try requireTool("python3", because: "runs scripts/check-availability")
        _ = try requireTool("swiftc", because: "scripts/check-availability type-checks with it")
        guard let build = Self.build else {
            throw missing("the build's .yaml manifest", because: "scripts/check-availability reads the compile commands from it",
                          remedy: "build first (swift build --build-tests)")
        }
        return [python, script, "--build-dir", build.directory, "--configuration", build.configuration]
        #endif
    }

    func run(_ command: [String], _ arguments: [String] = []) throws -> ProcessRunner.Output {
        try ProcessRunner.run(command[0], Array(command.dropFirst()) + arguments, environment: nil)
    }

    func testTheTreeUsesNothingNewerThanItsMacOSTarget() throws {
        let tree = try run(try checker(), ["--verbose"])
        XCTAssertEqual(tree.status, 0, tree.stdout + tree.stderr)
        XCTAssertEqual(tree.stdout, "", "findings on the tree")
        XCTAssertTrue(tree.stderr.contains("macOS 13.0 target, Swift 6.0.3 (Xcode 16.2) or newer: 0 finding(s)"), tree.stderr)
        // Every kind of module was checked: product, test, test-support and plugin modules.
        let checked = try XCTUnwrap(tree.stderr.split(separator: "\n").first { $0.hasPrefix("checked: ") })
        for module in ["AppDNACore", "AppDNANet", "AppDNAReplay", "AppDNAServers", "AppDNACLI", "appdna", "AppDNACoreTests", "EndToEndTests",
                       "TestSupport", "LoopbackHTTPServer", "AppDNABundlePlugin"] {
            XCTAssertTrue(checked.split(separator: " ").contains { $0.trimmingCharacters(in: [","]) == module }, "\(module) in \(checked)")
        }
    }

    /// A copy of the tree with newer APIs planted in one product module, one test module and the
    /// plugin; guarded and annotated uses beside them must pass.
    func testPlantedNewerAPIsAreNamedWithFileAndLine() throws {
        let checker = try checker()
        let scratch = try ScratchDirectory("availability")
        defer { scratch.remove() }
        for item in ["Package.swift", "Sources", "Tests", "Plugins"] {
            try FileManager.default.copyItem(at: repositoryRoot.appendingPathComponent(item), to: scratch.url.appendingPathComponent(item))
        }
        try plant(in: scratch, "Sources/appdna/main.swift", """

        func plantedValidation(_ bytes: [UInt8]) -> String? {
            String(validating: bytes, as: UTF8.self)
        }
        func plantedGuarded(_ bytes: [UInt8]) -> String? {
            if #available(macOS 15, *) { return String(validating: bytes, as: UTF8.self) }
            guard #available(macOS 15, *) else { return nil }
            return String(validating: bytes, as: UTF8.self)
        }
        @available(macOS 15, *)
        func plantedAnnotated(_ bytes: [UInt8]) -> String? { String(validating: bytes, as: UTF8.self) }
        """)
        try plant(in: scratch, "Tests/TestSupport/PlantedLock.swift", """
        import Synchronization

        final class PlantedLock: Sendable {
            let count = Mutex<Int>(0)
        }
        """)
        try plant(in: scratch, "Plugins/AppDNABundlePlugin/AppDNABundlePlugin.swift", """

        func plantedWide() -> Int128 { 0 }
        """)
        let modules = "appdna,TestSupport,AppDNABundlePlugin"
        let planted = try run(checker, ["--package-dir", scratch.path, "--modules", modules])
        XCTAssertEqual(planted.status, 1, planted.stdout + planted.stderr)
        let places = planted.stdout.split(separator: "\n").map { $0.split(separator: ":").prefix(2).joined(separator: ":") }
        let plugin = "Plugins/AppDNABundlePlugin/AppDNABundlePlugin.swift", main = "Sources/appdna/main.swift"
        let support = "Tests/TestSupport/PlantedLock.swift"
        // Only the unguarded lines; a line is named once per declaration it uses.
        XCTAssertEqual(Array(Set(places)).sorted(), ["\(plugin):\(try line(of: "-> Int128", in: scratch, plugin))",
                                                     "\(main):\(try line(of: "String(validating:", in: scratch, main))",
                                                     "\(support):\(try line(of: "Mutex<Int>", in: scratch, support))"], planted.stdout)
        XCTAssertTrue(planted.stdout.contains("Swift.String.init(validating:as:) is macOS 15.0+, newer than the package's macOS 13.0 target"), planted.stdout)
        XCTAssertTrue(planted.stdout.contains("Synchronization.Mutex is macOS 15.0+"), planted.stdout)
        XCTAssertTrue(planted.stdout.contains("Synchronization.Mutex.init(_:) is macOS 15.0+"), planted.stdout)
        XCTAssertTrue(planted.stdout.contains("Swift.Int128 is macOS 15.0+"), planted.stdout)
        // The literal's initialiser is underscored: dated from the toolchain's ABI dump.
        XCTAssertTrue(planted.stdout.contains("Swift.Int128.init(_builtinIntegerLiteral:) is macOS 15.0+"), planted.stdout)

        // The target is read from Package.swift: at macOS 15 the same code passes.
        let manifest = scratch.url.appendingPathComponent("Package.swift")
        let text = try String(contentsOf: manifest, encoding: .utf8)
        XCTAssertTrue(text.contains(".macOS(.v13)"))
        try text.replacingOccurrences(of: ".macOS(.v13)", with: ".macOS(.v15)").write(to: manifest, atomically: true, encoding: .utf8)
        let raised = try run(checker, ["--package-dir", scratch.path, "--modules", modules])
        XCTAssertEqual(raised.status, 0, raised.stdout + raised.stderr)
        XCTAssertTrue(raised.stderr.contains("macOS 15.0 target, Swift 6.0.3 (Xcode 16.2) or newer: 0 finding(s)"), raised.stderr)
    }

    /// Every form of AvailabilityPlantedCorpus, planted in one file of a copy: each line marked
    /// "caught" is named (with the line, not just the file), each marked "allowed" is not, and
    /// nothing else is. One run of the checker over the small `appdna` module checks them all.
    func testEveryPlantedFormIsCaughtOrAllowed() throws {
        let checker = try checker()
        let scratch = try ScratchDirectory("availability-corpus")
        defer { scratch.remove() }
        for item in ["Package.swift", "Sources", "Tests", "Plugins"] {
            try FileManager.default.copyItem(at: repositoryRoot.appendingPathComponent(item), to: scratch.url.appendingPathComponent(item))
        }
        let path = "Sources/appdna/PlantedCorpus.swift"
        try plant(in: scratch, path, AvailabilityPlantedCorpus.source)
        let lines = AvailabilityPlantedCorpus.source.split(separator: "\n", omittingEmptySubsequences: false)
        func marked(_ mark: String) -> [Int: String] {
            var forms: [Int: String] = [:]
            for (index, line) in lines.enumerated() {
                if let range = line.range(of: "// \(mark): ") { forms[index + 1] = String(line[range.upperBound...]) }
            }
            return forms
        }
        let caught = marked("caught"), allowed = marked("allowed")
        XCTAssertGreaterThanOrEqual(caught.count + allowed.count, 108, "the corpus holds at least 108 forms")

        let planted = try run(checker, ["--package-dir", scratch.path, "--modules", "appdna"])
        XCTAssertEqual(planted.status, 1, planted.stdout + planted.stderr)
        var named: [Int: [Substring]] = [:]
        for finding in planted.stdout.split(separator: "\n") {
            let parts = finding.split(separator: ":", maxSplits: 3)
            XCTAssertEqual(parts.first.map(String.init), path, String(finding))
            guard parts.count == 4, let line = Int(parts[1]) else { continue }
            named[line, default: []].append(parts[3])
        }
        for (line, form) in caught.sorted(by: { $0.key < $1.key }) {
            XCTAssertNotNil(named[line], "line \(line) (\(form)) is not named:\n" + planted.stdout)
        }
        for (line, form) in allowed.sorted(by: { $0.key < $1.key }) {
            XCTAssertNil(named[line], "line \(line) (\(form)) is allowed but named: \(named[line] ?? [])")
        }
        XCTAssertEqual(Set(named.keys).subtracting(caught.keys).sorted(), [], "named lines that are not marked:\n" + planted.stdout)

        // Each kind of finding says why, for the lines that only it explains.
        for (form, expected) in [("typed throws metatype", "typed-throws function type as a generic argument, metatype or cast (runtime support) is macOS 15.0+"),
                                 ("@isolated(any) as a generic argument", "@isolated(any) function type as a generic argument, metatype or cast (runtime support) is macOS 15.0+"),
                                 ("parameter pack in a generic type", "parameter pack in a generic type (runtime support) is macOS 14.0+"),
                                 ("own macOS 15 function", "appdna.plantedOwnNew() -> Swift.Int is macOS 15.0+"),
                                 ("own declaration unavailable on macOS", "appdna.plantedOwnNever() -> () is unavailable on macOS"),
                                 ("Span (Swift 6.2, back-deployed)", "Swift.Array.span is not in Swift 6.0.3 (Xcode 16.2, the oldest compiler CI builds with)"),
                                 ("InlineArray (Swift 6.2)", "Swift.InlineArray is not in Swift 6.0.3 (Xcode 16.2, the oldest compiler CI builds with)"),
                                 ("trailing comma in a parameter list", "a trailing comma in a parameter, argument, tuple, generic or subscript list (SE-0439, Swift 6.1) is not in Swift 6.0.3 (Xcode 16.2, the oldest compiler CI builds with): it does not parse there"),
                                 ("nonisolated on an extension", "`nonisolated` on a type or an extension (SE-0449, Swift 6.1) is not in Swift 6.0.3"),
                                 ("raw identifier", "a raw identifier (SE-0451, Swift 6.2) is not in Swift 6.0.3"),
                                 ("Task(name:)", "Swift.Task.init(name:priority:operation:): a task name (SE-0469, Swift 6.2) is not in Swift 6.0.3"),
                                 ("withTaskGroup without of:", "Swift.withTaskGroup(of:returning:isolation:body:): the default of `of:` (the child task's result type inferred, SE-0442, Swift 6.1) is not in Swift 6.0.3"),
                                 ("Never: Encodable used implicitly", "conformance Swift.Never: Swift.Encodable (used by the code, written or not) is macOS 14.0+"),
                                 ("a Set of AsyncStream.Continuation", "conformance Swift.AsyncStream<Swift.Int>.Continuation: Swift.Hashable (used by the code, written or not) is not in Swift 6.0.3")] {
            let line = try XCTUnwrap(caught.first { $0.value == form }?.key, form)
            XCTAssertTrue(named[line]?.contains { $0.contains(expected) } ?? false, "\(form): \(named[line] ?? [])")
        }
    }

    /// A build whose modules were not compiled (a plain `swift build` compiles no test target):
    /// the checker names them and exits 2, without a Python traceback (it died in `open` on the
    /// missing source list). Here every module of the build is missing: its manifest is copied
    /// to a directory that holds nothing else.
    func testModulesTheBuildDidNotCompileAreNamedWithStatus2() throws {
        let checker = try checker()
        guard let build = Self.build else { return }
        let scratch = try ScratchDirectory("availability-unbuilt")
        defer { scratch.remove() }
        let manifest = try String(contentsOfFile: build.directory + "/" + build.configuration + ".yaml", encoding: .utf8)
        _ = try scratch.file(build.configuration + ".yaml", Array(manifest.replacingOccurrences(of: build.directory + "/", with: scratch.path + "/").utf8))
        var command = checker
        command[command.firstIndex(of: "--build-dir")! + 1] = scratch.path
        let unbuilt = try run(command, ["--modules", "appdna,EndToEndTests"])
        XCTAssertEqual(unbuilt.status, 2, unbuilt.stdout + unbuilt.stderr)
        XCTAssertFalse(unbuilt.stderr.contains("Traceback"), unbuilt.stderr)
        XCTAssertTrue(unbuilt.stderr.hasPrefix("check-availability: not built in \(scratch.path): EndToEndTests, appdna ("), unbuilt.stderr)
        XCTAssertTrue(unbuilt.stderr.contains("swift build --build-tests"), unbuilt.stderr)
        XCTAssertEqual(unbuilt.stdout, "")
    }

    /// The checker's minimum compiler is the Xcode the oldest macOS job in CI selects: when CI moves
    /// to a newer Xcode (or adds an older one), the checker's declaration moves with it.
    func testTheMinimumCompilerIsTheOldestXcodeInCI() throws {
        let workflow = try String(contentsOf: repositoryRoot.appendingPathComponent(".github/workflows/ci.yml"), encoding: .utf8)
        let versions = workflow.split(separator: "\n").compactMap { line -> [Int]? in
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard trimmed.hasPrefix("xcode: ") else { return nil }
            return trimmed.dropFirst("xcode: ".count).trimmingCharacters(in: ["'", "\""]).split(separator: ".").compactMap { Int($0) }
        }
        let oldest = try XCTUnwrap(versions.min { $0.lexicographicallyPrecedes($1) }, "no xcode: in ci.yml")
        let script = try String(contentsOfFile: script, encoding: .utf8)
        let declared = oldest.map(String.init).joined(separator: ".")
        XCTAssertTrue(script.contains(#"MINIMUM_COMPILER = {"xcode": "\#(declared)", "#), "scripts/check-availability declares another minimum than Xcode \(declared)")
    }

    /// Appends `code` to the file (creating it).
    func plant(in scratch: ScratchDirectory, _ path: String, _ code: String) throws {
        let url = scratch.url.appendingPathComponent(path)
        let before = (try? String(contentsOf: url, encoding: .utf8)) ?? ""
        try (before + code + "\n").write(to: url, atomically: true, encoding: .utf8)
    }

    /// The number of the first line of the file that contains `text`.
    func line(of text: String, in scratch: ScratchDirectory, _ path: String) throws -> Int {
        let lines = try String(contentsOf: scratch.url.appendingPathComponent(path), encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        return try XCTUnwrap(lines.firstIndex { $0.contains(text) }) + 1
    }
}
