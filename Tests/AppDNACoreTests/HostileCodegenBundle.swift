/// A bundle built to break code generators (issue 34.1), the same bytes for the same seed: more
/// than 500 remote-config keys, experiments and variants, and ids whose names start with
/// digits, are Swift or Kotlin keywords (hard, contextual and soft), are NFC/NFD twins, differ
/// only by case or punctuation, are emoji, are very long, or equal the types and members the
/// generated file declares or uses — in every position a name can take.
enum HostileCodegenBundle {
    /// Names chosen by hand, one of each kind of trouble.
    static let troublesome: [String] = {
        var names = [
            // digits first, and names that become each other's types (`_2xTest` / `_2xTest`)
            "2x-test", "2x_test", "2X-TEST", "404", "0", "1e5", "2fa_enabled", "_2faEnabled", "__2",
            // case and punctuation twins
            "darkMode", "dark-mode", "dark_mode", "DARK_MODE", "Dark.Mode", "darkmode", "dark mode", "dark--mode",
            "darkMode_2", "darkMode2", "aB", "ab", "AB", "Ab", "a-b", "a_b", "a.b", "A.B",
            // NFC / NFD twins, and other normal-form traps
            "caf\u{E9}", "cafe\u{301}", "\u{F1}", "n\u{303}", "\u{212B}", "\u{C5}", "A\u{30A}", "\u{FB01}", "fi",
            // emoji and other non-ASCII
            "🚀", "🚀🚀", "👨‍👩‍👧", "flag🇫🇷", "\u{1F600}x", "ünï", "日本語", "\u{200F}rtl", "\u{2028}sep", "tab\there", "nul\u{0}byte",
            // no words at all
            "", "---", "_", "__", " ", "$", "$x", "\\", "\"", "*/", "/*", "/**/", "`", "${x}", "\\u0041",
            // the names the generated files declare or lean on
            "AppDNAValueSource", "AppDNAConfig", "AppDNAExperiments", "AppDNAIDs", "appDNAConfig",
            "source", "experiments", "init", "id", "unknown", "Unknown", "of", "Companion", "companion",
            "String", "Bool", "Boolean", "Int", "Long", "Double", "Array", "Equatable", "Sendable",
            "Optional", "Any", "Unit", "Nothing", "Suppress", "Swift", "kotlin", "Paywalls", "OnboardingFlows",
            "Messages", "Surveys", "map", "utf8", "it", "key", "bool", "long", "double", "string", "json",
            "variant", "forKey", "forExperiment", "equals", "hashCode", "toString", "getSource", "get_source",
            "description", "hashValue", "rawValue", "allCases", "Type", "Protocol", "none", "some", "class_", "self_",
        ]
        // Swift keywords, contextual ones included, and Kotlin's hard, soft and modifier keywords.
        names += """
        associatedtype borrowing class consuming deinit enum extension fileprivate func import init inout internal
        let nonisolated open operator private precedencegroup protocol public rethrows static struct subscript
        typealias var break case catch continue default defer do else fallthrough for guard if in repeat return
        throw switch where while as await false is nil self Self super throws true try associativity async
        convenience didSet dynamic final get indirect infix lazy left mutating nonmutating optional override
        package postfix precedence prefix required right set unowned weak willSet actor macro any copy consume
        discard each isolated sending fun interface null object this typeof val when by constructor delegate
        field file finally param property receiver setparam value abstract actual annotation companion const
        crossinline data expect external inner lateinit noinline out protected reified sealed suspend tailrec vararg
        """.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init)
        // Very long names, two of them equal for their first 2,000 characters.
        let long = String(repeating: "very-long-", count: 200)
        names += [long, long + "a", long + "b", String(repeating: "x", count: 300), String(repeating: "X", count: 300)]
        return distinct(names)
    }()

    /// The bundle for `seed`: the hand-picked names in every position, plus seeded random names
    /// from the same pieces, so that there are more than 500 remote-config keys.
    static func json(seed: UInt64 = 34) -> String {
        var random = SplitMix64(seed: seed)
        let pieces = troublesome + ["-", "_", ".", " ", "2", "é", "e\u{301}"]
        var names = troublesome
        while names.count < 560 {
            let count = 1 + Int(random.next() % 3)
            names = distinct(names + [(0..<count).map { _ in pieces[Int(random.next() % UInt64(pieces.count))] }.joined()])
        }
        let values = ["true", "false", "0", "-1", "7", "1.5", "-0.0", "1e400", "-1e400", "1e-400", "9223372036854775807",
                      "-9223372036854775808", "9223372036854775808", "null", "[]", "{\"a\": [1, \"*/\"]}",
                      "\"$x ${y} \\\" \\\\ */ /* \\u2028 \\u0000\"", "\"\""]
        var config: [String] = []
        for (index, name) in names.enumerated() {
            config.append("\(quoted(name)): \(values[(index + Int(random.next() % 5)) % values.count])")
        }
        // Every hand-picked name is an experiment too (but `experiments`: an experiment of that
        // name reads as the nested shape `{"experiments": {"experiments": {…}}}`), with variants
        // drawn from the same names (but the empty one, which is invalid): its own id, the reserved
        // member names, and a seeded handful.
        // The first variant takes all the weight, so the bundle validates.
        var experiments: [String] = []
        for (index, name) in troublesome.enumerated() where name != "experiments" {
            var variants = [name, "unknown", "Unknown", "id", "of", "Companion", "init", "String", troublesome[(index + 1) % troublesome.count]]
            for _ in 0..<3 { variants.append(names[Int(random.next() % UInt64(names.count))]) }
            let list = distinct(variants.filter { !$0.isEmpty }).enumerated().map { "{\"id\": \(quoted($1)), \"weight\": \($0 == 0 ? 1 : 0)}" }
            experiments.append("\(quoted(name)): {\"salt\": \"s\(index)\", \"variants\": [\(list.joined(separator: ", "))]}")
        }
        let ids = troublesome.map { "\(quoted($0)): {}" }.joined(separator: ", ")
        return """
        {"bundle_version": 34, "remote_config": {\(config.joined(separator: ",\n"))},
         "experiments": {\(experiments.joined(separator: ",\n"))},
         "paywalls": {\(ids)}, "onboarding": {"flows": {\(ids)}}, "messages": {"messages": {\(ids)}}, "surveys": {\(ids)}}
        """
    }

    /// The names without repeats (by UTF-8 bytes: NFC/NFD twins stay two), first occurrence kept.
    static func distinct(_ names: [String]) -> [String] {
        var seen = Set<[UInt8]>()
        return names.filter { seen.insert(Array($0.utf8)).inserted }
    }

    /// A JSON string literal for `text` (control characters as `\\u00XX`).
    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}
