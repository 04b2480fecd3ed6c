import AppDNACore

/// `appdna bundle validate FILE…`: every rule of the contract, reported per file.
enum BundleValidateCommand {
    static let operands = [
        OperandSpec("FILE", "Bundle files to check; '-' reads standard input, @remote the live bundle", variadic: true, completion: .file),
    ]

    static let flags = BundleValidateFlags.all

    /// Every code with what it checks, for `--help` and the man page (docs/ci.md has examples).
    static let findingCodes = ReferenceTable("Finding codes (stable: added, never renumbered)",
                                             rows: BundleRule.allCases.map { ($0.code, $0.summary) })

    typealias Plan = BundleValidatePlan

    @Sendable static func plan(_ arguments: ParsedArguments, _ invocation: Invocation) throws -> Plan {
        try BundleValidatePlan.make(arguments, invocation.io)
    }

    static let run = CommandRun.planned(plan: plan, perform: perform)

    @Sendable static func perform(_ plan: Plan, _ invocation: Invocation) throws -> ExitStatus {
        let strict = plan.strict, format = plan.format
        let reports = try plan.operands.map { operand in
            try BundleCheckReport.check(operand, strict: strict, invocation: invocation, live: plan.live).report
        }
        // Under GitHub Actions a finding is written once, as the annotation the runner shows in
        // the log (as `Error: FILE#LINE …`) and on the pull request: the text line would say
        // it a second time. JSON stays on stdout, its findings annotated on stderr.
        let actions = GitHubWorkflowText.isActive(invocation.io.environment)
        switch format {
        case .json: writeJSON(reports, strict: strict, to: invocation.stdout)
        case .github: writeGitHub(reports, to: invocation.stdout)
        case .text where actions: writeGitHub(reports, to: invocation.stdout)
        case .text: BundleCheckReport.writeText(reports, style: invocation.options.stdoutStyle, to: invocation.stdout)
        }
        if format == .json && actions {
            writeGitHub(reports, to: invocation.io.stderr)
        }
        var status = ExitStatus.success
        for report in reports {
            let place = [BundleInput.stdinName, BundleArgument.remote].contains(report.file) ? nil : GitHubWorkflowText.Place(file: report.file)
            if let failure = report.failure {
                Runner.report(failure, io: invocation.io, place: place)
                let mapped = ExitStatus(failure.kind)
                // The most serious failure decides: unreadable beats invalid.
                if status == .success || status == .negative { status = mapped }
                continue
            }
            if report.errors > 0, status == .success { status = .negative }
            let counts = "(\(BundleCheckReport.plural(report.errors, "error")), \(BundleCheckReport.plural(report.warnings, "warning")))"
            if report.findings.isEmpty {
                // A clean file is said to be clean (in one line, beside the output, so a pipe
                // of the text format gets nothing), except where the output is JSON.
                if format != .json { invocation.note("\(report.file): valid") }
            } else if report.valid {
                invocation.note("\(report.file): valid \(counts)")
            } else {
                // Exit 1: said even with --quiet (every non-zero exit has an appdna: line).
                invocation.error("\(report.file): invalid \(counts)", place: place)
            }
        }
        return status
    }

    // MARK: - Formats

    /// GitHub Actions workflow commands: `::error file=F,line=L,col=C,title=T::MESSAGE`.
    static func writeGitHub(_ reports: [BundleCheckReport], to out: OutputSink) {
        for report in reports {
            // `file=` names a file in the repository: standard input and the live bundle are none.
            let isFile = ![BundleInput.stdinName, BundleArgument.remote].contains(report.file)
            for f in report.findings {
                let place = isFile ? GitHubWorkflowText.Place(file: report.file, line: f.line, column: f.column) : nil
                // With no file to point at, the line and column go in the message (as bundle fetch's do).
                let source = report.file == BundleInput.stdinName ? "standard input" : "the live bundle"
                let located = isFile || f.line < 1 ? "" : "\(source), line \(f.line), column \(f.column): "
                out.writeVerbatimLine(GitHubWorkflowText.annotation(f.severity == .error ? .error : .warning,
                                                                    located + f.message + " [\(f.code)] at \(f.pointer.description.isEmpty ? "/" : f.pointer.description)",
                                                                    place: place, title: "appdna \(f.code)"))
            }
        }
    }

    /// `{"valid", "strict", "files": [{"file", "valid", "errors", "warnings", "findings": [...]}]}`.
    static func writeJSON(_ reports: [BundleCheckReport], strict: Bool, to out: OutputSink) {
        var files: [JSONValue] = []
        for report in reports {
            var object = JSONObject()
            object["file"] = .string(report.file)
            object["valid"] = .bool(report.valid)
            if let failure = report.failure {
                object["error"] = .string(failure.message)
            }
            object["errors"] = .integer(report.errors)
            object["warnings"] = .integer(report.warnings)
            object["findings"] = .array(report.findings.map { f in
                .object(JSONObject([
                    ("code", .string(f.code)),
                    ("severity", .string(f.severity.rawValue)),
                    ("message", .string(f.message)),
                    ("path", .string(f.pointer.description)),
                    ("line", .integer(f.line)),
                    ("column", .integer(f.column)),
                ]))
            })
            files.append(.object(object))
        }
        let document: JSONValue = .object(JSONObject([
            ("valid", .bool(reports.allSatisfy(\.valid))),
            ("strict", .bool(strict)),
            ("files", .array(files)),
        ]))
        out.write(JSONWriter(indent: 2).write(document))
        out.writeLine()
    }
}
