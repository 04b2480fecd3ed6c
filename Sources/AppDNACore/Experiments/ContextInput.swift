/// One piece of the user's context an eligibility rule may need (`UserContext`'s fields): what
/// an `unknown` rule reports as missing. The CLI names the flag that gives each one.
public enum ContextInput: Sendable, Equatable {
    case platform
    case country
    case appVersion
    case installedAt
    /// A user trait, by name.
    case trait(String)
}
