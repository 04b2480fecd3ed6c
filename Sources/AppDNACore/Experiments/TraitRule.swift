/// One `{trait, operator, value}` rule of `targeting.user_traits`.
/// Operators: eq neq in exists gt gte lt lte. Traits typed on the command line are text:
/// eq/neq/in compare a bundle number as a number when the given text is one (`5` equals
/// `--trait n=5.0`; `numberPattern`), anything else as text (a JSON `true` matches "true");
/// gt…lte compare a bundle number as numbers, and a bundle string as text, byte for byte
/// (`"18"` is text: `--trait age=9` is `gt "18"`, since "9" sorts after "1"; `bundle validate`
/// warns about such a rule, W012, and the warehouse SQL compares the same way).
/// A rule no value can pass (unknown operator, `in` without a list, gt…lte against a boolean,
/// list or object) fails closed whether or not the trait was given: devices never assign it.
enum TraitRule {
    /// Why no value can pass this rule (nil when some value can): the validator reports it
    /// (E018) and `evaluate` fails it closed.
    static func unsatisfiable(_ rule: JSONValue) -> String? {
        guard case .object(let fields) = rule, case .string? = fields["trait"], case .string(let op)? = fields["operator"] else {
            return "a trait rule lacks trait or operator"
        }
        let expected = fields["value"] ?? .null
        guard let known = TraitOperator(bundleName: op) else { return "unknown operator '\(op)'" }
        switch known {
        case .exists: return nil
        case .eq, .neq: return text(expected) == nil ? "'\(op)' needs a string, number or boolean value" : nil
        case .in:
            guard case .array(let options) = expected else { return "'in' needs a list" }
            // A list holding a null, list or object is not the list of values the SDK reads:
            // the rule is malformed, not the list without that element.
            if let odd = options.first(where: { text($0) == nil }) {
                return "'in' needs a list of strings, numbers or booleans, not one holding \(kindWords(odd))"
            }
            return nil
        case .gt, .gte, .lt, .lte:
            switch expected {
            case .number, .string: return nil
            default: return "'\(op)' needs a number (or a string, compared as text), not \(text(expected).map { "'\($0)'" } ?? "a list or object")"
            }
        }
    }

    static func evaluate(_ rule: JSONValue, context: UserContext) -> RuleOutcome {
        let traits = context.traits
        guard case .object(let fields) = rule, case .string(let trait)? = fields["trait"],
              case .string(let op)? = fields["operator"] else {
            return RuleOutcome(rule: "user_traits", passed: false, detail: "a trait rule lacks trait or operator: fails closed")
        }
        let name = "trait \(trait)"
        if let why = unsatisfiable(rule) {
            return RuleOutcome(rule: name, passed: false, detail: "\(why): no value passes, fails closed")
        }
        let known = TraitOperator(bundleName: op)!  // `unsatisfiable` refused every unknown one
        let expected = fields["value"] ?? .null
        let actual = traits[ByteKey(trait)]
        func outcome(_ passed: Bool, _ detail: String) -> RuleOutcome {
            RuleOutcome(rule: name, passed: passed, detail: detail)
        }
        // A trait not given is unknown, unless the caller vouches that the traits it gave are
        // all the user has (then absent is absent, and `exists` can fail).
        if actual == nil && !context.traitsComplete {
            return RuleOutcome.unknown(name, "\(op) \(text(expected) ?? "?"); trait \(trait) not given", settledBy: .trait(trait))
        }
        // `exists` is about whether the trait is there; every other operator needs its value.
        switch (known, actual) {
        case (.exists, _):
            let wanted = expected == .bool(false) ? false : true
            return outcome((actual != nil) == wanted, "\(trait) " + (actual != nil ? "is set" : "is not set") + (wanted ? "; must exist" : "; must not exist"))
        case (_, nil):
            return outcome(false, "\(trait) is not set (\(op) \(text(expected) ?? "?"))")
        case (.eq, let actual?), (.neq, let actual?):
            let wanted = text(expected)!
            let equal = matches(actual, expected)
            return outcome(equal == (known == .eq), "\(trait)=\(actual) \(op) \(wanted)")
        case (.in, let actual?):
            guard case .array(let options) = expected else { return outcome(false, "'in' needs a list: fails closed") }
            let words = options.compactMap(text)
            return outcome(options.contains { matches(actual, $0) }, "\(trait)=\(actual) in [\(words.joined(separator: ", "))]")
        case (.gt, let actual?), (.gte, let actual?), (.lt, let actual?), (.lte, let actual?):  // a number or a string (`unsatisfiable`)
            let order: Int
            if case .string(let wanted) = expected {
                order = compareBytes(actual, wanted)
                return outcome(known.holds(order), "\(trait)=\(actual) \(op) \(ShortenedText.quoted(wanted, limit: 40)) (as text: the bundle's value is a string)")
            }
            let wanted = text(expected).flatMap(number)!
            guard let have = number(actual) else {
                return outcome(false, "\(trait)=\(actual) \(op) \(text(expected)!): not a number, fails closed")
            }
            order = have < wanted ? -1 : have > wanted ? 1 : 0
            return outcome(known.holds(order), "\(trait)=\(actual) \(op) \(text(expected)!)")
        }
    }

    /// -1, 0 or 1 as `a`'s UTF-8 bytes sort before, equal or after `b`'s (code point order).
    static func compareBytes(_ a: String, _ b: String) -> Int {
        if ByteIdentity.same(a, b) { return 0 }
        return a.utf8.lexicographicallyPrecedes(b.utf8) ? -1 : 1
    }

    /// Why a satisfiable rule does not do what it seems to (nil when it does): a numeric
    /// operator against a string value compares text, not numbers. The validator warns (W012).
    static func textComparison(_ rule: JSONValue) -> String? {
        guard case .object(let fields) = rule, case .string(let op)? = fields["operator"],
              TraitOperator(bundleName: op)?.orderSymbol != nil, case .string(let value)? = fields["value"] else { return nil }
        return "'\(op)' against the string \(ShortenedText.quoted(value, limit: 40)) compares text, byte for byte (\"9\" is after \"10\")"
            + (number(value) != nil ? "; write \(value) without quotes to compare numbers" : "")
    }

    /// Whether the given text equals a bundle value: as numbers when the bundle value is a
    /// number and the text parses as one (`5` and "5.0"), else as text, byte for byte.
    static func matches(_ actual: String, _ expected: JSONValue) -> Bool {
        if case .number(let value) = expected, let wanted = number(value.text), let have = number(actual) {
            return have == wanted
        }
        return text(expected).map { ByteIdentity.same($0, actual) } ?? false
    }

    /// What reads as a number in a trait: decimal digits with an optional sign, point and
    /// exponent, nothing else (no spaces, hex, `inf` or `nan`), so that the warehouse SQL can
    /// apply the same grammar (`SQLEligibility`) and agree row for row.
    public static let numberPattern = "[+-]?([0-9]+(\\.[0-9]*)?|\\.[0-9]+)([eE][+-]?[0-9]+)?"

    /// `text` as a number under `numberPattern`, else nil.
    static func number(_ text: String) -> Double? {
        var bytes = text.utf8[...]
        if let sign = bytes.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
        let digits = bytes.prefix { $0 >= 0x30 && $0 <= 0x39 }
        bytes = bytes.dropFirst(digits.count)
        var fraction = 0
        if bytes.first == UInt8(ascii: ".") {
            bytes = bytes.dropFirst()
            fraction = bytes.prefix { $0 >= 0x30 && $0 <= 0x39 }.count
            bytes = bytes.dropFirst(fraction)
        }
        guard digits.count + fraction > 0 else { return nil }
        if let e = bytes.first, e == UInt8(ascii: "e") || e == UInt8(ascii: "E") {
            bytes = bytes.dropFirst()
            if let sign = bytes.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
            let exponent = bytes.prefix { $0 >= 0x30 && $0 <= 0x39 }.count
            guard exponent > 0 else { return nil }
            bytes = bytes.dropFirst(exponent)
        }
        return bytes.isEmpty ? Double(text) : nil
    }

    /// "null", "a list" or "an object": what a non-scalar value is, for messages.
    static func kindWords(_ value: JSONValue) -> String {
        switch value {
        case .array: return "a list"
        case .object: return "an object"
        case .null: return "null"
        default: return text(value).map { "'\($0)'" } ?? "a value"
        }
    }

    /// The text form of a scalar JSON value.
    static func text(_ value: JSONValue) -> String? {
        switch value {
        case .string(let s): return s
        case .number(let n): return n.text
        case .bool(let b): return b ? "true" : "false"
        default: return nil
        }
    }
}
