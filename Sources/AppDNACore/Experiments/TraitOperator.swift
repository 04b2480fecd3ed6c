/// The operators of a `targeting.user_traits` rule, by the names the bundle spells them. Every
/// reader of a rule (the CLI's `TraitRule`, the warehouse `SQLEligibility`) switches over this
/// enum, so an operator added here does not compile until each of them says what it does.
enum TraitOperator: String, CaseIterable, Sendable {
    case eq, neq, `in`, exists, gt, gte, lt, lte

    /// The operator a rule names; nil for an unknown one (the rule then fails closed). Compared
    /// by bytes: `String ==` would also accept canonically equivalent spellings.
    init?(bundleName: String) {
        guard let known = Self.allCases.first(where: { ByteIdentity.same($0.rawValue, bundleName) }) else { return nil }
        self = known
    }

    /// gt gte lt lte: the comparison's symbol (`>`, `>=`, `<`, `<=`), as SQL also writes it;
    /// nil for the others.
    var orderSymbol: String? {
        switch self {
        case .gt: return ">"
        case .gte: return ">="
        case .lt: return "<"
        case .lte: return "<="
        case .eq, .neq, .in, .exists: return nil
        }
    }

    /// Whether this ordering operator holds for a comparison's sign (-1, 0, 1); false for the
    /// others, which are not orderings.
    func holds(_ order: Int) -> Bool {
        switch self {
        case .gt: return order > 0
        case .gte: return order >= 0
        case .lt: return order < 0
        case .lte: return order <= 0
        case .eq, .neq, .in, .exists: return false
        }
    }
}
