/// Dotted versions compared the way `Targeting.versionParts` / `compareVersions` compare them,
/// as SQL over a text column: part by part, numerically, missing parts as 0. One place for
/// `min_app_version`, the SDK version that decides traffic allocation, and the old-iOS-SDK
/// hypothesis of the exposure audit.
struct SQLVersion {
    let engine: any SQLEngine

    /// A version part as `Int(_:)` reads it (optional '+', or a negative zero); at most 18
    /// digits so the engines' 64-bit integers hold it.
    private static let part = "\\+?[0-9]{1,18}|-0{1,18}"

    /// Whether `version` reads as a version at all.
    func isWellFormed(_ version: String) -> String {
        engine.fullMatch(version, "(\(Self.part))(\\.(\(Self.part)))*")
    }

    /// `version` is a version and at least `required` (`orEqual`) or above it. Malformed: FALSE.
    func isAbove(_ version: String, _ required: [Int], orEqual: Bool) -> String {
        // Past `required`'s parts, a version is above it exactly when some later part is not 0.
        var comparison = orEqual ? "TRUE" : engine.fullMatch(version, "([^.]*\\.){\(required.count)}.*[1-9].*")
        for (index, wanted) in required.enumerated().reversed() {
            let raw = engine.dotPart(version, index)
            let value = "(CASE WHEN \(raw) = '' THEN 0 ELSE \(engine.integer("replace(replace(\(raw), '+', ''), '-', '')")) END)"
            comparison = "(CASE WHEN \(value) > \(wanted) THEN TRUE WHEN \(value) < \(wanted) THEN FALSE ELSE \(comparison) END)"
        }
        // An engine may evaluate the comparison of a malformed version before the match; the
        // CASE keeps it from parsing one.
        return "(CASE WHEN \(isWellFormed(version)) THEN \(comparison) ELSE FALSE END)"
    }

    /// `version` is a version and at most `limit` (`ExposureAudit.Judge.isAtMost`). Malformed: FALSE.
    func isAtMost(_ version: String, _ limit: [Int]) -> String {
        "(\(isWellFormed(version)) AND NOT \(isAbove(version, limit, orEqual: false)))"
    }
}
