/// One `{trait, operator, value}` rule of `targeting.user_traits`.
/// Operators: eq neq in exists gt gte lt lte. Traits typed on the command line are text, so
/// eq/neq/in compare text (a JSON `true` or `3` matches "true" or "3"); gt…lte compare numbers.
enum TraitRule {
    static func evaluate(_ rule: JSONValue, context: UserContext) -> RuleOutcome {
        let traits = context.traits
        guard case .object(let fields) = rule, case .string(let trait)? = fields["trait"],
              case .string(let op)? = fields["operator"] else {
            return RuleOutcome(rule: "user_traits", passed: false, detail: "a trait rule lacks trait or operator: fails closed")
        }
        let name = "trait \(trait)"
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
            guard let wanted = text(expected) else { return outcome(false, "value is not a scalar: fails closed") }
            let equal = actual == wanted
            return outcome(equal == (op == "eq"), "\(trait)=\(actual) \(op) \(wanted)")
        case "in":
            guard case .array(let options) = expected else { return outcome(false, "'in' needs a list: fails closed") }
            let words = options.compactMap(text)
            return outcome(words.contains(actual), "\(trait)=\(actual) in [\(words.joined(separator: ", "))]")
        case "gt", "gte", "lt", "lte":
            guard let wanted = text(expected).flatMap(Double.init), let have = Double(actual) else {
                return outcome(false, "\(trait)=\(actual) \(op) \(text(expected) ?? "?"): not numbers, fails closed")
            }
            let passed: Bool
            switch op {
            case "gt": passed = have > wanted
            case "gte": passed = have >= wanted
            case "lt": passed = have < wanted
            default: passed = have <= wanted
            }
            return outcome(passed, "\(trait)=\(actual) \(op) \(text(expected)!)")
        default:
            return outcome(false, "unknown operator '\(op)': fails closed")
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
