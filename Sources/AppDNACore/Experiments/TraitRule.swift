/// One `{trait, operator, value}` rule of `targeting.user_traits`.
/// Operators: eq neq in exists gt gte lt lte. Traits typed on the command line are text:
/// eq/neq/in compare a bundle number as a number when the given text parses as one (`5` equals
/// `--trait n=5.0`), anything else as text (a JSON `true` matches "true"); gt…lte compare numbers.
/// A rule no value can pass (unknown operator, `in` without a list, gt…lte against a non-number)
/// fails closed whether or not the trait was given: devices never assign it.
enum TraitRule {
    static let operators: Set<String> = ["eq", "neq", "in", "exists", "gt", "gte", "lt", "lte"]  // not an id: ASCII operator names

    /// Why no value can pass this rule (nil when some value can): the validator reports it
    /// (E018) and `evaluate` fails it closed.
    static func unsatisfiable(_ rule: JSONValue) -> String? {
        guard case .object(let fields) = rule, case .string? = fields["trait"], case .string(let op)? = fields["operator"] else {
            return "a trait rule lacks trait or operator"
        }
        let expected = fields["value"] ?? .null
        switch op {
        case "exists": return nil
        case "eq", "neq": return text(expected) == nil ? "'\(op)' needs a string, number or boolean value" : nil
        case "in":
            guard case .array = expected else { return "'in' needs a list" }
            return nil
        case "gt", "gte", "lt", "lte":
            return text(expected).flatMap(Double.init) == nil ? "'\(op)' needs a number, not \(text(expected).map { "'\($0)'" } ?? "a list or object")" : nil
        default:
            return "unknown operator '\(op)'"
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
        let expected = fields["value"] ?? .null
        let actual = traits[trait]
        func outcome(_ passed: Bool, _ detail: String) -> RuleOutcome {
            RuleOutcome(rule: name, passed: passed, detail: detail)
        }
        // A trait not given is unknown, unless the caller vouches that the traits it gave are
        // all the user has (then absent is absent, and `exists` can fail).
        if actual == nil && !context.traitsComplete {
            return RuleOutcome.unknown(name, "\(op) \(text(expected) ?? "?"); trait \(trait) not given", settledBy: .trait(trait))
        }
        if op == "exists" {
            let wanted = expected == .bool(false) ? false : true
            return outcome((actual != nil) == wanted, "\(trait) " + (actual != nil ? "is set" : "is not set") + (wanted ? "; must exist" : "; must not exist"))
        }
        guard let actual else {
            return outcome(false, "\(trait) is not set (\(op) \(text(expected) ?? "?"))")
        }
        switch op {
        case "eq", "neq":
            let wanted = text(expected)!
            let equal = matches(actual, expected)
            return outcome(equal == (op == "eq"), "\(trait)=\(actual) \(op) \(wanted)")
        case "in":
            guard case .array(let options) = expected else { return outcome(false, "'in' needs a list: fails closed") }
            let words = options.compactMap(text)
            return outcome(options.contains { matches(actual, $0) }, "\(trait)=\(actual) in [\(words.joined(separator: ", "))]")
        default:  // gt gte lt lte, with a numeric value (checked by `unsatisfiable`)
            let wanted = text(expected).flatMap(Double.init)!
            guard let have = Double(actual) else {
                return outcome(false, "\(trait)=\(actual) \(op) \(text(expected)!): not a number, fails closed")
            }
            let passed: Bool
            switch op {
            case "gt": passed = have > wanted
            case "gte": passed = have >= wanted
            case "lt": passed = have < wanted
            default: passed = have <= wanted
            }
            return outcome(passed, "\(trait)=\(actual) \(op) \(text(expected)!)")
        }
    }

    /// Whether the given text equals a bundle value: as numbers when the bundle value is a
    /// number and the text parses as one (`5` and "5.0"), else as text, byte for byte.
    static func matches(_ actual: String, _ expected: JSONValue) -> Bool {
        if case .number(let number) = expected, let wanted = Double(number.text), let have = Double(actual) {
            return have == wanted
        }
        return text(expected).map { ByteIdentity.same($0, actual) } ?? false
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
