/// Where recorded exposures live in the warehouse (the table and its columns), checked once to
/// be plain identifiers: the audit, SRM and duplicate-exposure queries read them.
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

    /// A query reads only some of the columns; the others keep their usual names.
    public init(table: String, user: String, experiment: String, variant: String = "variant", session: String = "session_id",
                eventID: String = "event_id", bundleVersion: String? = nil) throws(Failure) {
        self.table = try WarehouseName.checked(table, as: .exposuresTable)
        self.user = try WarehouseName.checked(user, as: .userColumn)
        self.experiment = try WarehouseName.checked(experiment, as: .experimentColumn)
        self.variant = try WarehouseName.checked(variant, as: .variantColumn)
        self.session = try WarehouseName.checked(session, as: .sessionColumn)
        self.eventID = try WarehouseName.checked(eventID, as: .eventIDColumn)
        if let bundleVersion {
            self.bundleVersion = try WarehouseName.checked(bundleVersion, as: .bundleVersionColumn)
        } else {
            self.bundleVersion = nil
        }
    }
}
