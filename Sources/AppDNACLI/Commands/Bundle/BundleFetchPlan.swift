import AppDNACore

/// Everything one `bundle fetch` run needs, read from the arguments once: the mode (with where
/// the bundle goes and how a fetch downloads it) and what every mode shares. Its own file: the
/// fetch and the `--check` paths (`BundleFetchCheck`) both take it, and a command's file is
/// reached only by the command table.
struct BundleFetchPlan {
    let mode: BundleFetchMode
    let api: APISettings
    let requireLive: Bool
    let json: Bool

    static func make(_ arguments: ParsedArguments) throws -> BundleFetchPlan {
        BundleFetchPlan(mode: try BundleFetchMode.decide(arguments), api: APISettings(arguments),
                        requireLive: arguments[BundleFetchFlags.requireLive], json: arguments[BundleFetchFlags.json])
    }
}
