/// Where recorded exposures live in the warehouse (`--exposures TABLE` and its column flags),
/// checked once to be plain identifiers: the audit, SRM and duplicate-exposure queries read them.
public struct ExposuresTable: Sendable {
    public let table: String
    /// The id the device hashed: `user.user_id`, or `user.anon_id` where the user id is blank.
    public let user: String
    public let experiment: String
    public let variant: String
    public let session: String
    public let eventID: String
    /// The `device.bundle_version` the exposure was recorded under; nil: not mapped.
    public let bundleVersion: String?

    public init(table: String, user: String, experiment: String, variant: String, session: String,
                eventID: String = "event_id", bundleVersion: String? = nil) throws {
        self.table = try SQLQuoting.identifier(table, for: "--exposures")
        self.user = try SQLQuoting.identifier(user, for: "--user-column")
        self.experiment = try SQLQuoting.identifier(experiment, for: "--experiment-column")
        self.variant = try SQLQuoting.identifier(variant, for: "--variant-column")
        self.session = try SQLQuoting.identifier(session, for: "--session-column")
        self.eventID = try SQLQuoting.identifier(eventID, for: "--event-id-column")
        self.bundleVersion = try bundleVersion.map { try SQLQuoting.identifier($0, for: "--bundle-version-column") }
    }
}
