import AppDNACore

/// `appdna bundle validate FILE…`: every rule of the contract, reported per file.
enum BundleValidateCommand {
    static let operands = [
        OperandSpec("FILE", "Bundle files to check; '-' reads standard input, @remote the live bundle", variadic: true, completion: .file),
    ]

    static let flags = BundleValidateFlags.all

    /// One file's outcome.
    struct Report {
        let file: String
        let findings: [BundleFinding]
        /// Set when the file could not be read.
        let failure: Failure?
        var errors: Int { findings.filter { $0.severity == .error }.count }
        var warnings: Int { findings.filter { $0.severity == .warning }.count }
        var valid: Bool { failure == nil && errors == 0 }
    }

    /// Every code with what it checks, for `--help` and the man page (docs/ci.md has examples).
    static let findingCodes = ReferenceTable("Finding codes (stable: added, never renumbered)",
                                             rows: BundleRule.allCases.map { ($0.code, $0.summary) })

    @Sendable static func run(_ invocation: Invocation) throws -> ExitStatus {
        let arguments = invocation.arguments
        let strict = arguments[BundleValidateFlags.strict]
        let format = try OutputFlags.format(arguments, format: BundleValidateFlags.format, json: BundleValidateFlags.json, jsonFormat: .json)
        var reports: [Report] = []
        var usedStdin = false
        for path in arguments.operands {
            if path == "-" {
                if usedStdin { throw Failure(.usage, "'-' (standard input) is given more than once") }
                usedStdin = true
            }
            try BundleArgument.checkSpelling(path)
            reports.append(try check(path: path, strict: strict, invocation: invocation).report)
        }
        switch format {
        case .json: writeJSON(reports, strict: strict, to: invocation.stdout)
        case .github: writeGitHub(reports, to: invocation.stdout)
        case .text: writeText(reports, style: invocation.options.stdoutStyle, to: invocation.stdout)
        }
        var status = ExitStatus.success
        for report in reports {
            if let failure = report.failure {
                Runner.report(failure, io: invocation.io)
                let mapped = ExitStatus(failure.kind)
                // The most serious failure decides: unreadable beats invalid.
                if status == .success || status == .negative { status = mapped }
                continue
            }
            if report.errors > 0, status == .success { status = .negative }
            let counts = "(\(plural(report.errors, "error")), \(plural(report.warnings, "warning")))"
            if report.findings.isEmpty {
                invocation.detail("\(report.file): valid")
            } else if report.valid {
                invocation.note("\(report.file): valid \(counts)")
            } else {
                // Exit 1: said even with --quiet (every non-zero exit has an appdna: line).
                invocation.io.stderr.writeLine("appdna: \(report.file): invalid \(counts)")
            }
        }
        return status
    }

    static func plural(_ n: Int, _ word: String) -> String { "\(n) \(word)\(n == 1 ? "" : "s")" }

    /// The findings for the bundle `path` names (a file, '-' or @remote, read once through
    /// `BundleArgument`), and its bytes for a caller that goes on to use them (codegen).
    /// A file that cannot be read is that file's report (the others are still checked); a
    /// live bundle that cannot be fetched stops the command with the fetch's own status.
    static func check(path: String, strict: Bool, invocation: Invocation) throws -> (report: Report, input: BundleInput?) {
        let input: BundleInput
        do {
            input = try BundleArgument.input(path, invocation)
        } catch let failure as Failure where path != BundleArgument.remote {
            return (Report(file: path == "-" ? BundleInput.stdinName : path, findings: [], failure: failure), nil)
        }
        return (check(input, strict: strict), input)
    }

    static func check(_ input: BundleInput, strict: Bool) -> Report {
        let shift = BundleValidator.LocationShift(lines: input.skippedLines, columns: input.skippedColumns)
        let findings = BundleValidator.validate(source: input.source, shift: shift).map { finding -> BundleFinding in
            var f = finding
            if strict { f.severity = .error }
            return f
        }
        return Report(file: input.name, findings: findings, failure: nil)
    }

    // MARK: - Formats

    static func writeText(_ reports: [Report], style: Styler, to out: OutputSink) {
        for report in reports {
            for f in report.findings {
                let severity = f.severity == .error ? style.apply(.red, "error:") : style.apply(.yellow, "warning:")
                out.writeLine("\(report.file):\(f.line):\(f.column): \(severity) \(f.message) [\(f.code)]")
            }
        }
    }

    /// GitHub Actions workflow commands: `::error file=F,line=L,col=C,title=T::MESSAGE`.
    static func writeGitHub(_ reports: [Report], to out: OutputSink) {
        for report in reports {
            for f in report.findings {
                let file = escapeProperty(report.file)
                let title = escapeProperty("appdna \(f.code)")
                out.writeVerbatimLine("::\(f.severity.rawValue) file=\(file),line=\(f.line),col=\(f.column),title=\(title)::\(escapeData(f.message + " [\(f.code)] at \(f.pointer.description.isEmpty ? "/" : f.pointer.description)"))")
            }
        }
    }

    /// A workflow command's data: `%`, CR and LF percent-encoded as the runner decodes them,
    /// and every other control or bidi character shown escaped (`VisibleText`), so the log
    /// line holds nothing raw.
    static func escapeData(_ text: String) -> String {
        var out = ""
        for c in text.unicodeScalars {
            switch c {
            case "%": out += "%25"
            case "\r": out += "%0D"
            case "\n": out += "%0A"
            default: out.unicodeScalars.append(c)
            }
        }
        return VisibleText.escaped(out)
    }

    static func escapeProperty(_ text: String) -> String {
        var out = ""
        for c in escapeData(text).unicodeScalars {
            switch c {
            case ":": out += "%3A"
            case ",": out += "%2C"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    /// `{"valid", "strict", "files": [{"file", "valid", "errors", "warnings", "findings": [...]}]}`.
    static func writeJSON(_ reports: [Report], strict: Bool, to out: OutputSink) {
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
