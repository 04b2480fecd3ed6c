import AppDNACore

/// Everything one `bundle validate` run needs, read from the arguments once: the operands
/// decided (each spelling checked, standard input at most once), the format, and the live
/// bundle's configuration when an operand is `@remote` (checked: 78). A missing file is not
/// refused here: it is that file's report (66 at the end), and the other files are still checked.
struct BundleValidatePlan {
    let operands: [BundleOperand]
    let strict: Bool
    let format: BundleValidateFlags.Format
    let live: LiveBundleSource?

    static func make(_ arguments: ParsedArguments, _ io: CommandIO) throws -> BundleValidatePlan {
        let format = try OutputFlags.format(arguments, format: BundleValidateFlags.format, json: BundleValidateFlags.json, jsonFormat: .json)
        var operands: [BundleOperand] = []
        for text in arguments.operands {
            let operand = try BundleOperand(text)
            if operand == .standardInput && operands.contains(.standardInput) {
                throw Failure(.usage, "'-' (standard input) is given more than once")
            }
            operands.append(operand)
        }
        // With the live bundle among them, a missing file is 66 before the download (without one,
        // each file is judged in turn, as before).
        if operands.contains(.remote) { for operand in operands { try operand.checkPresent(io.files) } }
        return BundleValidatePlan(operands: operands, strict: arguments[BundleValidateFlags.strict], format: format,
                                  live: try LiveBundleSource.plan(arguments, io, remote: operands.contains(.remote)))
    }
}
