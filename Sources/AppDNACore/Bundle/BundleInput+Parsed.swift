/// The one wording of a bundle that is not JSON, for every reader of a bundle (the commands
/// through `BundleArgument`, and `api serve`'s served bundle in AppDNAServers).
extension BundleInput {
    /// The input parsed; on a syntax error, the validator's first finding (its wording) and where:
    /// `NAME:LINE:COLUMN: what is wrong`, with a pointer to `bundle validate`.
    public func parsed() throws(Failure) -> JSONDocument {
        do {
            return try JSONDocument(source: source)
        } catch {
            let shift = BundleValidator.LocationShift(lines: skippedLines, columns: skippedColumns)
            let findings = BundleValidator.validate(source: source, shift: shift)
            let at = findings.first.map { "\($0.line):\($0.column): \($0.message)" } ?? "\(error.line):\(error.column): \(error.reason.explanation)"
            throw Failure(.malformedInput, "\(name):\(at)", hint: "run \(ShellWord.line(["appdna", "bundle", "validate", name == BundleInput.stdinName ? "-" : name])) to list every problem")
        }
    }
}
