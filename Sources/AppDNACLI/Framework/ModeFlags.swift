import AppDNACore

/// What one mode of a multi-mode command reads (`bucket --self-test`, a batch, one user's
/// report; `webhook trigger --list`; `bundle fetch --check` …), so that a flag given in a mode
/// that does not read it is refused (64) instead of being ignored: a `--json` that prints text
/// or a `--format` that changes nothing would leave the user believing it had an effect.
///
/// Each multi-mode command decides its mode in one function returning an enum (ripgrep's
/// `Mode`, swift-argument-parser's `validate()`), and that function ends with `check`: the
/// conflicts live there and are worded here, once (`ModeConflictTests` walks every one).
struct ModeFlags {
    /// How a conflict names the mode: "--list", "a batch (USER '-')".
    let mode: String
    /// The command's flags this mode reads (global flags are not the mode's business).
    let reads: [FlagSpec]
    /// For some flags the mode does not read, what to do instead (after a semicolon).
    let instead: [FlagID: String]

    init(_ mode: String, reads: [FlagSpec], instead: [(flag: FlagSpec, text: String)] = []) {
        self.mode = mode
        self.reads = reads
        var texts: [FlagID: String] = [:]
        for entry in instead { texts[entry.flag.id] = entry.text }
        self.instead = texts
    }

    /// Whether the mode reads `flag` (this declaration: another of its name is another flag).
    func reads(_ flag: FlagSpec) -> Bool { reads.contains { $0.id == flag.id } }

    /// Refuses the first flag of `declared` (help order) that was given but that the mode
    /// does not read.
    func check(_ arguments: ParsedArguments, declared: [FlagSpec]) throws(Failure) {
        for flag in declared where arguments.given(flag) && !reads(flag) {
            throw Self.conflict("--" + flag.long, mode, instead: instead[flag.id])
        }
    }

    /// The one wording of a conflict: "--json does not go with --list; …".
    static func conflict(_ what: String, _ mode: String, instead: String? = nil) -> Failure {
        Failure(.usage, "\(what) does not go with \(mode)" + (instead.map { "; " + $0 } ?? ""))
    }
}
