/// What the SDKs decode from `GET /api/v1/sdk/bootstrap` (platform facts §7, read in iOS 1.0.70
/// and 1.0.82 and Android 1.0.42): a top-level object with non-empty strings `orgId`, `appId`,
/// `firestorePath` (Android refuses an answer without them), `settings` with the integers
/// `flushInterval`, `batchSize`, `configTTL` (all three required by iOS 1.0.70; optional in
/// 1.0.82), optional `geo {country, region, city, timezone, latitude, longitude}` and
/// `runtime_lock {reason, locked_at}`. `api serve --bootstrap live` checks the live answer
/// with this before a device gets it (a device would refuse it silently); the same
/// requirements are docs/schemas/sdk-bootstrap.schema.json.
public enum SDKBootstrap {
    public static let path = "/api/v1/sdk/bootstrap"

    /// What each decoder would refuse in `root`, one sentence each; empty when both decode it.
    public static func problems(_ root: JSONNode) -> [String] {
        guard root.kind == .object else { return ["the answer is not a JSON object (iOS 1.0.70 and Android 1.0.42 decode one)"] }
        var problems: [String] = []
        for key in ["orgId", "appId", "firestorePath"] {
            guard let value = root[key]?.string, !value.isEmpty else {
                problems.append("\(key) is not a non-empty string (Android 1.0.42 refuses the answer; iOS 1.0.70 fails to decode it)")
                continue
            }
        }
        if let settings = root["settings"], settings.kind == .object {
            for key in ["flushInterval", "batchSize", "configTTL"] where settings[key]?.int64 == nil {
                problems.append("settings.\(key) is not an integer (iOS 1.0.70 fails to decode the answer)")
            }
        } else {
            problems.append("settings is not an object with flushInterval, batchSize and configTTL (iOS 1.0.70 fails to decode the answer)")
        }
        if let geo = root["geo"], geo.kind != .null {
            if geo.kind != .object {
                problems.append("geo is not an object")
            } else {
                for key in ["country", "region", "city", "timezone"] {
                    if let value = geo[key], value.kind != .null, value.kind != .string { problems.append("geo.\(key) is not a string") }
                }
                for key in ["latitude", "longitude"] {
                    if let value = geo[key], value.kind != .null, value.kind != .number { problems.append("geo.\(key) is not a number") }
                }
            }
        }
        if let lock = root["runtime_lock"], lock.kind != .null, lock.kind != .object {
            problems.append("runtime_lock is not an object")
        }
        return problems
    }
}
