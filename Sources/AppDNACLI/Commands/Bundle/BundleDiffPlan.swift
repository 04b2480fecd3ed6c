import AppDNACore

/// Everything one `bundle diff` run needs, read from the arguments once and checked before
/// anything is read or sent: the two sides (spelled right, not both '-' nor both `@remote`,
/// a file side present: 66), what is printed (`--stat`, or the format), what is left out, the
/// gate, and the live bundle's configuration when a side is `@remote` (78). `--stat --json`
/// beside `@remote` is refused here, not after the download.
struct BundleDiffPlan {
    /// What is printed: `--stat`'s text summary, or the changes in a format.
    enum Output: Equatable {
        case stat
        case changes(BundleDiffFlags.Format)
    }

    let old: BundleOperand
    let new: BundleOperand
    let output: Output
    let ignore: [JSONPointer]
    /// --fail-on-switch PERCENT.
    let threshold: Double?
    let live: LiveBundleSource?

    /// Against `@remote` (always in the SDK file shape) a local side is laid out in that shape
    /// too: one in the API's shape (`fetch --raw`, the documented curl command) must not read
    /// as completely changed.
    var againstRemote: Bool { old == .remote || new == .remote }

    static func make(_ arguments: ParsedArguments, _ io: CommandIO) throws -> BundleDiffPlan {
        let old = try BundleOperand(arguments.operand(0)!), new = try BundleOperand(arguments.operand(1)!)
        if old == .standardInput && new == .standardInput { throw Failure(.usage, "OLD and NEW cannot both be '-' (standard input)") }
        if old == .remote && new == .remote { throw Failure(.usage, "OLD and NEW cannot both be @remote") }
        let format = try OutputFlags.format(arguments, format: BundleDiffFlags.format, json: BundleDiffFlags.json, jsonFormat: .json)
        let output: Output
        if arguments[BundleDiffFlags.stat] {
            // --stat is its own text summary: a --json or --format beside it would be ignored.
            if format != .text {
                throw ModeFlags.conflict(arguments[BundleDiffFlags.json] ? "--json" : "--format \(format.rawValue)", "--stat",
                                         instead: "--stat prints a text summary of the changes per section")
            }
            output = .stat
        } else {
            output = .changes(format)
        }
        let live = try LiveBundleSource.plan(arguments, io, remote: old == .remote || new == .remote)
        for side in [old, new] { try side.checkPresent(io.files) }
        return BundleDiffPlan(old: old, new: new, output: output, ignore: arguments[BundleDiffFlags.ignore],
                              threshold: arguments[BundleDiffFlags.failOnSwitch], live: live)
    }
}
