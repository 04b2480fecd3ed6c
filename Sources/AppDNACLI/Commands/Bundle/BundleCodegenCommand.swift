import AppDNACore

/// `appdna bundle codegen FILE`: typed accessors for the bundle's remote config and
/// experiments (Core/Codegen renders them; this file validates, writes and checks).
enum BundleCodegenCommand {
    static let operands = [OperandSpec("FILE", "The bundle ('-' reads standard input, @remote the live bundle)", completion: .file)]

    typealias Plan = BundleCodegenPlan

    @Sendable static func plan(_ arguments: ParsedArguments, _ invocation: Invocation) throws -> Plan {
        try BundleCodegenPlan.make(arguments, invocation.io)
    }

    static let run = CommandRun.planned(plan: plan, perform: perform)

    @Sendable static func perform(_ plan: Plan, _ invocation: Invocation) throws -> ExitStatus {
        let files = invocation.io.files
        // Before the bundle is read (or downloaded): accessors that cannot be written are not
        // worth generating (73, as the write would say it).
        if case .write(let output) = plan.destination { try files.checkWritable(path: output) }
        // An invalid bundle: its findings and 1, nothing written.
        // Read once (standard input cannot be read twice), through the one bundle loader.
        let (report, read) = try BundleCheckReport.check(plan.bundle, strict: false, invocation: invocation, live: plan.live)
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
            try files.replace(path: output, with: generated, timeout: nil)
            return .success
        case .check(let output, let regenerate):
            let current: [UInt8]
            do { current = try files.readAll(path: output) } catch {
                invocation.io.stderr.writeLine("appdna: \(output): missing; run \(regenerate)")
                return .negative
            }
            if current == generated { return .success }
            writeShortDiff(old: current, new: generated, to: invocation.stdout)
            invocation.io.stderr.writeLine("appdna: \(output): stale; run \(regenerate)")
            return .negative
        }
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
