import AppDNACore
import AppDNANet

/// `bundle fetch --keep-on-failure`: when the API cannot be reached (network error, 5xx,
/// timeout) and the file at -o is already a valid bundle, the build goes on with that bundle
/// and one warning the CI shows. A rejected key (401/403), an invalid bundle from the server or
/// a configuration problem still fails: those do not get better by themselves.
enum KeepOnFailure {
    static func run(_ invocation: Invocation, output: String, fetch: () throws -> ExitStatus) throws -> ExitStatus {
        do {
            return try fetch()
        } catch let error as HTTPError where output != "-" && isUnreachable(error) {
            guard case let .valid(version) = ExistingBundleFile(path: output) else { throw error }
            let message = "appdna bundle fetch: kept \(output) (bundle_version \(version)): \(FlagWording.message(for: error))"
            writeCIWarning(message, invocation: invocation)
            // --json: a script is told what happened too (the file is the kept one).
            BundleFetchReport.json(invocation, ["path": .string(output), "written": false, "up_to_date": false,
                                                   "bundle_version": .integer(Int(version)), "kept": true,
                                                   "reason": .string(FlagWording.message(for: error))])
            return .success
        }
    }

    /// Network errors and timeouts (no response, or 408) and 5xx after the retries.
    static func isUnreachable(_ error: HTTPError) -> Bool {
        if let status = error.status { return status == 408 || (500...599).contains(status) }
        return error.retryable || error.deadlineExpired
    }

    /// One warning line in the format of the CI running us: a GitHub Actions workflow command
    /// when GITHUB_ACTIONS is set (the tool's own, written as it is, its data escaped for the
    /// command), else the `warning: ` line Xcode lists in its issue navigator (and which reads
    /// fine in any other log).
    static func writeCIWarning(_ message: String, invocation: Invocation) {
        if let actions = invocation.io.environment["GITHUB_ACTIONS"], !actions.isEmpty {
            invocation.io.stderr.writeVerbatimLine("::warning::" + GitHubWorkflowText.escapeData(message))
        } else {
            invocation.io.stderr.writeLine("warning: " + message)
        }
    }
}
