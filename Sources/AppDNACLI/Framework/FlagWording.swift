import AppDNACore

// Core reports facts (which input is missing, what is wrong with a value); the CLI words them
// with its flags, so Core never names a flag.

extension Failure {
    /// The same failure, its message led by the flag that gave the bad value
    /// (`--variants: weights sum to 0.9, not 1`).
    func naming(_ flag: String) -> Failure {
        Failure(kind, flag + ": " + message, hint: hint)
    }
}

extension ContextInput {
    /// The flag that gives this input, as help and `bucket` output name it.
    var flagText: String {
        switch self {
        case .platform: return "--platform"
        case .country: return "--country"
        case .appVersion: return "--app-version"
        case .installedAt: return "--installed-at"
        case .trait(let name): return "--trait \(name)=VALUE"
        }
    }
}
