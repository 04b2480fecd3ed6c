import AppDNACore

/// `--json`, the switch most commands share: one name, each command's own sentence about
/// what the document holds.
enum OutputFlags {
    static func json(_ summary: String = "Print one JSON document") -> Flag<Bool> {
        .switch("json", summary)
    }
}

extension OutputFlags {
    /// The format of a command that has both `--format` and `--json` (`bundle validate`,
    /// `bundle diff`): `--json` is `--format json`, so every command answers `--json`; with
    /// another `--format` given too, the two disagree (64).
    static func format<Format: RawRepresentable & Sendable>(_ arguments: ParsedArguments, format: Flag<Format>, json: Flag<Bool>,
                                                            jsonFormat: Format) throws -> Format where Format.RawValue == String {
        let chosen = arguments[format]
        guard arguments[json] else { return chosen }
        if arguments.given(format.spec) && chosen.rawValue != jsonFormat.rawValue {
            throw Failure(.usage, "--json is --format json: it cannot go with --format \(chosen.rawValue)")
        }
        return jsonFormat
    }
}
