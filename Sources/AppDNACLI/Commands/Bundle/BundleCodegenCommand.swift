import AppDNACore

/// `appdna bundle codegen FILE`: typed accessors for the bundle's remote config and
/// experiments (Core/Codegen renders them; this file validates, writes and checks).
enum BundleCodegenCommand {
    static let operands = [OperandSpec("FILE", "The bundle ('-' reads standard input, @remote the live bundle)", completion: .file)]

    @Sendable static func run(_ invocation: Invocation) throws -> ExitStatus {
        let arguments = invocation.arguments
        let output = arguments[BundleCodegenFlags.output]
        let check = arguments[BundleCodegenFlags.check]
        if check && output == nil { throw Failure(.usage, "--check needs -o PATH: the generated file to compare") }
        let path = arguments.operands[0]
        // An invalid bundle: its findings and 1, nothing written.
        // Read once (standard input cannot be read twice), through the one bundle loader.
        let (report, read) = try BundleValidateCommand.check(path: path, strict: false, invocation: invocation)
        if let failure = report.failure { throw failure }
        if report.errors > 0 {
            BundleValidateCommand.writeText([report], style: invocation.options.stdoutStyle, to: invocation.io.stderr)
            invocation.io.stderr.writeLine("appdna: \(report.file): invalid bundle (\(BundleValidateCommand.plural(report.errors, "error"))); nothing generated")
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
        switch arguments[BundleCodegenFlags.language] {
        case .swift:
            if arguments.given(BundleCodegenFlags.package.spec) { throw Failure(.usage, "--package is for --language kotlin (Swift has modules, not packages)") }
            generated = Array(SwiftAccessorRenderer.render(model).utf8)
        case .kotlin:
            generated = Array(KotlinAccessorRenderer.render(model, package: try Self.kotlinPackage(arguments[BundleCodegenFlags.package])).utf8)
        }
        guard let output else {
            invocation.stdout.write(generated)
            return .success
        }
        if check {
            let current: [UInt8]
            do { current = try FileReading.readAll(path: output) } catch {
                invocation.io.stderr.writeLine("appdna: \(output): missing; run appdna bundle codegen \(path) -o \(output)")
                return .negative
            }
            if current == generated { return .success }
            writeShortDiff(old: current, new: generated, to: invocation.stdout)
            invocation.io.stderr.writeLine("appdna: \(output): stale; run appdna bundle codegen \(path) -o \(output)")
            return .negative
        }
        try AtomicFile.replace(path: output, with: generated)
        return .success
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
