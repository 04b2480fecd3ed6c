/// Where recorded exposures live in the warehouse (`--exposures TABLE` and its column flags),
/// checked once to be plain identifiers: the SRM and duplicate-exposure queries read them.
public struct ExposuresTable: Sendable {
    public let table: String
    public let user: String
    public let experiment: String
    public let variant: String
    public let session: String

    public init(table: String, user: String, experiment: String, variant: String, session: String) throws {
        self.table = try SQLQuoting.identifier(table, for: "--exposures")
        self.user = try SQLQuoting.identifier(user, for: "--user-column")
        self.experiment = try SQLQuoting.identifier(experiment, for: "--experiment-column")
        self.variant = try SQLQuoting.identifier(variant, for: "--variant-column")
        self.session = try SQLQuoting.identifier(session, for: "--session-column")
    }
}
