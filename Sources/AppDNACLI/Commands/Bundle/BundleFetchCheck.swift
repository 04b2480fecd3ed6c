import AppDNACore
import AppDNANet

/// `bundle fetch --check`: is the file at -o the live bundle? Asks only
/// GET /api/v1/sdk/config-bundle/version, never downloads the bundle and never touches the
/// file: the gate a release pipeline runs before shipping an embedded bundle.
enum BundleFetchCheck {
    static func run(_ invocation: Invocation, _ plan: BundleFetchPlan, connection: LiveBundleConnection, output: String) throws -> ExitStatus {
        let live = try connection.session.liveVersion()

        let file = ExistingBundleFile(path: output, files: invocation.io.files)
        if plan.json {
            var fileVersion = JSONValue.null
            if case .valid(let version) = file { fileVersion = .integer(version) }
            BundleFetchReport.json(invocation, true, ["path": .string(output), "up_to_date": .bool(file == .valid(version: live)),
                                                   "live_version": .integer(live), "file_version": fileVersion, "file": .string(file.description)])
            return file == .valid(version: live) ? .success
                : notLive(invocation, plan, output: output, live: live)
        }
        if file == .valid(version: live) {
            invocation.stdout.writeLine("up to date (bundle_version \(live))")
            return .success
        }
        // A file newer than the live bundle is not what the app would get from the server
        // either (the server may have rolled a bad bundle back): fetch would replace it too.
        invocation.stdout.writeLine("behind: file \(file.description), live bundle_version \(live)")
        return notLive(invocation, plan, output: output, live: live)
    }

    /// Status 1, with the fetch that updates the file, runnable as printed: the path quoted for
    /// the shell, and the flags given that the fetch reads too (the API flags, --require-live).
    static func notLive(_ invocation: Invocation, _ plan: BundleFetchPlan, output: String, live: Int64) -> ExitStatus {
        let fetch = ["appdna", "bundle", "fetch"] + plan.api.givenWords
            + (plan.requireLive ? ["--require-live"] : []) + ["-o", output]
        return BundleFetchReport.negative(invocation, "\(output) is not the live bundle (bundle_version \(live)); run \(ShellWord.line(fetch))", about: output)
    }
}
