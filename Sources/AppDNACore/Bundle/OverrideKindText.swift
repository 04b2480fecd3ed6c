/// The words of each override kind, in one place: the parser's refusal, `api serve --override`'s
/// and `api override`'s help, the inspector route's `kind` parameter and the table in
/// docs/local-api.md are all made from these (`OverrideKindTests` plants a kind and checks each
/// follows), so a kind added to `BundleOverride.Kind` cannot compile without its words and
/// cannot be left out of any of them.
extension BundleOverride.Kind {
    /// How it is written on a command line: `experiment:KEY=VARIANT`.
    public var syntax: String {
        switch self {
        case .experiment: return "experiment:KEY=VARIANT"
        case .flag: return "flag:KEY=true|false|JSON"
        case .config: return "config:KEY=JSON"
        case .onboarding: return "onboarding:FLOW"
        }
    }

    /// What it forces on every device, as a noun after "a": "variant", "config value".
    public var forces: String {
        switch self {
        case .experiment: return "variant"
        case .flag: return "flag"
        case .config: return "config value"
        case .onboarding: return "onboarding flow"
        }
    }

    /// What its KEY is (in `KIND:KEY` and `/api/overrides/KIND/KEY`).
    public var keyMeaning: String {
        switch self {
        case .experiment: return "the experiment id"
        case .flag: return "the flag key"
        case .config: return "the config key"
        case .onboarding: return "`\(BundleOverride.onboardingKey)` (one active flow)"
        }
    }

    /// What the served bundle says once it is forced.
    public var effect: String {
        switch self {
        case .experiment: return "the experiment running for everyone, the variant's weight 1 and the others 0"
        case .flag, .config: return "the raw value in the section the SDK reads (remote_config, else feature_flags)"
        case .onboarding: return "onboarding.active_flow_id"
        }
    }

    /// "a, b, c or d".
    public static func listed(_ words: [String]) -> String {
        guard let last = words.last else { return "" }
        return words.count == 1 ? last : words.dropLast().joined(separator: ", ") + " or " + last
    }

    /// Every kind's syntax: "experiment:KEY=VARIANT, flag:KEY=true|false|JSON, config:KEY=JSON or onboarding:FLOW".
    public static var syntaxes: String { listed(allCases.map(\.syntax)) }

    /// Every kind's name: "experiment, flag, config or onboarding".
    public static var names: String { listed(allCases.map(\.rawValue)) }

    /// The table in docs/local-api.md (Markdown), between its markers.
    public static var markdownTable: String {
        var lines = ["| Kind | As typed (KIND:KEY=VALUE) | KEY | The served bundle |", "|---|---|---|---|"]
        for kind in allCases {
            lines.append("| `\(kind.rawValue)` | `\(kind.syntax.replacingBars)` | \(kind.keyMeaning) | \(kind.effect) |")
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

private extension String {
    /// A `|` inside a Markdown table cell is written `\|`.
    var replacingBars: String { split(separator: "|", omittingEmptySubsequences: false).joined(separator: "\\|") }
}
