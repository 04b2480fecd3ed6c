import AppDNACore

/// One bundle file checked against every rule (`bundle validate`, and `bundle codegen` before it
/// generates anything), and its findings as text.
struct BundleCheckReport {
    let file: String
    let findings: [BundleFinding]
    /// Set when the file could not be read.
    let failure: Failure?
    var errors: Int { findings.filter { $0.severity == .error }.count }
    var warnings: Int { findings.filter { $0.severity == .warning }.count }
    var valid: Bool { failure == nil && errors == 0 }

    /// The findings for the bundle `operand` names (read once), and its bytes for a caller
    /// that goes on to use them (codegen). A file that cannot be read is that file's report (the
    /// others are still checked); a live bundle that cannot be fetched stops the command with
    /// the fetch's own status.
    static func check(_ operand: BundleOperand, strict: Bool, invocation: Invocation,
                      live: LiveBundleSource?) throws -> (report: BundleCheckReport, input: BundleInput?) {
        let input: BundleInput
        do {
            input = try operand.input(invocation, live: live)
        } catch let failure as Failure where operand != .remote {
            return (BundleCheckReport(file: operand.name, findings: [], failure: failure), nil)
        }
        return (check(input, strict: strict), input)
    }

    static func check(_ input: BundleInput, strict: Bool) -> BundleCheckReport {
        let shift = BundleValidator.LocationShift(lines: input.skippedLines, columns: input.skippedColumns)
        let findings = BundleValidator.validate(source: input.source, shift: shift).map { finding -> BundleFinding in
            var f = finding
            if strict { f.severity = .error }
            return f
        }
        return BundleCheckReport(file: input.name, findings: findings, failure: nil)
    }

    /// `FILE:LINE:COL: error: MESSAGE [CODE]`, a line per finding (the format compilers and
    /// editors read).
    static func writeText(_ reports: [BundleCheckReport], style: Styler, to out: OutputSink) {
        for report in reports {
            for f in report.findings {
                let severity = f.severity == .error ? style.apply(.red, "error:") : style.apply(.yellow, "warning:")
                out.writeLine("\(report.file):\(f.line):\(f.column): \(severity) \(f.message) [\(f.code)]")
            }
        }
    }

    /// "1 error", "3 errors".
    static func plural(_ n: Int, _ word: String) -> String { "\(n) \(word)\(n == 1 ? "" : "s")" }
}
