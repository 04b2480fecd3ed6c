/// The CLI's words for what `webhook listen` reports that names one of its commands' flags: the
/// library never names a flag (NoFlagNameBelowTheCLITests), the CLI gives them once
/// (`FlagWording.listen`).
public struct ListenWords: Sendable {
    /// Where a mismatch whose body is too large to diagnose in the listener is diagnosed
    /// ("webhook verify --explain diagnoses them").
    public let undiagnosed: String

    public init(undiagnosed: String) {
        self.undiagnosed = undiagnosed
    }
}
