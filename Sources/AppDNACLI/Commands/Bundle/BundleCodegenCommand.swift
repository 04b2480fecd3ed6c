import AppDNACore

/// `appdna bundle codegen FILE`: typed accessors for the bundle's remote config and
/// experiments (Core/Codegen renders them; this file validates, writes and checks).
enum BundleCodegenCommand {
    static let operands = [OperandSpec("FILE", "The bundle ('-' reads standard input, @remote the live bundle)", completion: .file)]

    /// What one run does, decided once from the flags: where the accessors go, in which
    /// language. `-o -` is standard output (as for `bundle fetch`); a `.kt` PATH means Kotlin
    /// and a `.swift` PATH Swift, and `--language` saying otherwise is a usage error (a file
    /// named `.kt` holding Swift compiles nowhere).
    struct Plan: Equatable {
        enum Destination: Equatable { case standardOutput, write(String), check(String) }
        let destination: Destination
        let language: BundleCodegenFlags.Language
        /// Kotlin's package (nil for Swift).
        let package: String?
    }

    static func plan(_ arguments: ParsedArguments) throws -> Plan {
        let output = arguments[BundleCodegenFlags.output]
        let destination: Plan.Destination
        switch (output, arguments[BundleCodegenFlags.check]) {
        case (nil, true), ("-", true): throw Failure(.usage, "--check needs -o PATH: the generated file to compare")
        case (nil, false), ("-", false): destination = .standardOutput
        case (let path?, true): destination = .check(path)
        case (let path?, false): destination = .write(path)
        }
        var language = arguments[BundleCodegenFlags.language]
        if let output, output != "-", let implied = BundleCodegenFlags.Language(extensionOf: output) {
            if arguments.given(BundleCodegenFlags.language.spec), language != implied {
                throw Failure(.usage, "--language \(language.rawValue) writes \(language.displayName), but \(output) is a \(implied.displayName) file name; "
                              + "use --language \(implied.rawValue), or leave --language out (a .\(implied.fileExtension) PATH means \(implied.displayName))")
            }
            language = implied
        }
        switch language {
        case .swift:
            if arguments.given(BundleCodegenFlags.package.spec) { throw Failure(.usage, "--package is for --language kotlin (Swift has modules, not packages)") }
            return Plan(destination: destination, language: .swift, package: nil)
        case .kotlin:
            return Plan(destination: destination, language: .kotlin, package: try kotlinPackage(arguments[BundleCodegenFlags.package]))
        }
    }

    @Sendable static func run(_ invocation: Invocation) throws -> ExitStatus {
        let arguments = invocation.arguments
        let plan = try plan(arguments)
        let path = arguments.operands[0]
        // An invalid bundle: its findings and 1, nothing written.
        // Read once (standard input cannot be read twice), through the one bundle loader.
        let (report, read) = try BundleCheckReport.check(path: path, strict: false, invocation: invocation)
        if let failure = report.failure { throw failure }
        if report.errors > 0 {
            BundleCheckReport.writeText([report], style: invocation.options.stdoutStyle, to: invocation.io.stderr)
            invocation.io.stderr.writeLine("appdna: \(report.file): invalid bundle (\(BundleCheckReport.plural(report.errors, "error"))); nothing generated")
            return .negative
        }
        let input = read!
        let document = try BundleArgument.parse(input)
        let entries = RemoteConfigEntries(root: document.root)
        for change in entries.typeChanges {
            invocation.io.stderr.writeLine("appdna: warning: \(input.name): '\(change.key)' is \(change.remoteConfigType.rawValue) in remote_config but \(change.featureFlagsType.rawValue) in feature_flags; the accessor uses remote_config's type")
        }
        let model = CodegenModel(root: document.root)
        let generated: [UInt8]
        switch plan.language {
        case .swift: generated = Array(SwiftAccessorRenderer.render(model).utf8)
        case .kotlin: generated = Array(KotlinAccessorRenderer.render(model, package: plan.package ?? KotlinAccessorRenderer.defaultPackage).utf8)
        }
        switch plan.destination {
        case .standardOutput:
            invocation.stdout.write(generated)
            return .success
        case .write(let output):
            try AtomicFile.replace(path: output, with: generated)
            return .success
        case .check(let output):
            let regenerate = "run " + regenerateCommand(plan, bundle: path, output: output, arguments: arguments)
            let current: [UInt8]
            do { current = try FileReading.readAll(path: output) } catch {
                invocation.io.stderr.writeLine("appdna: \(output): missing; \(regenerate)")
                return .negative
            }
            if current == generated { return .success }
            writeShortDiff(old: current, new: generated, to: invocation.stdout)
            invocation.io.stderr.writeLine("appdna: \(output): stale; \(regenerate)")
            return .negative
        }
    }

    /// The command that writes what `--check` expected, runnable as printed: the language and
    /// package (which decide the bytes) and the API flags given (which `@remote` needs), with
    /// every word quoted for the shell.
    static func regenerateCommand(_ plan: Plan, bundle: String, output: String, arguments: ParsedArguments) -> String {
        var words = ["appdna", "bundle", "codegen"]
        if plan.language == .kotlin {
            words += ["--language", "kotlin"]
            if let package = plan.package, package != KotlinAccessorRenderer.defaultPackage { words += ["--package", package] }
        }
        return ShellWord.line(words + APIFlags.givenWords(arguments) + [bundle, "-o", output])
    }

    /// A Kotlin package name: dot-separated identifiers (letters, digits, `_`, not starting
    /// with a digit).
    static func kotlinPackage(_ name: String) throws -> String {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        let valid = !parts.isEmpty && parts.allSatisfy { part in
            guard let first = part.utf8.first, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else { return false }
            return part.utf8.allSatisfy { byte in
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_")
            }
        }
        guard valid else { throw Failure(.usage, "--package '\(name)' is not a Kotlin package name (such as com.example.app.appdna)") }
        return name
    }

    /// The lines that differ, `-` old / `+` new, at most 20 of each (a CI log, not a patch).
    static func writeShortDiff(old: [UInt8], new: [UInt8], to out: OutputSink) {
        let oldLines = old.split(separator: 0x0A, omittingEmptySubsequences: false).map { Array($0) }
        let newLines = new.split(separator: 0x0A, omittingEmptySubsequences: false).map { Array($0) }
        var shown = 0
        for edit in SequenceDiff.edits(oldLines.count, newLines.count, equal: { oldLines[$0] == newLines[$1] }) where shown < 40 {
            switch edit {
            case .keep: continue
            case .delete(let index): out.writeLine("-" + String(decoding: oldLines[index], as: UTF8.self))
            case .insert(let index): out.writeLine("+" + String(decoding: newLines[index], as: UTF8.self))
            }
            shown += 1
        }
    }
}
