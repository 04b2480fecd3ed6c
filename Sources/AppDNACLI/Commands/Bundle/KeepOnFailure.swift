import AppDNACore
import AppDNANet

/// `bundle fetch --keep-on-failure`: when the API cannot be reached (network error, 5xx,
/// timeout) and the file at -o is already a valid bundle, the build goes on with that bundle
/// and one warning the CI shows. A rejected key (401/403), an invalid bundle from the server or
/// a configuration problem still fails: those do not get better by themselves.
enum KeepOnFailure {
    static func run(_ invocation: Invocation, output: String, json: Bool, fetch: () throws -> ExitStatus) throws -> ExitStatus {
        do {
            return try fetch()
        } catch var error as HTTPError where output != "-" && isUnreachable(error) {
            let existing = ExistingBundleFile(path: output, files: invocation.io.files)
            guard case let .valid(version) = existing else {
                // The flag was given and could not help: the failure says why, instead of
                // reading exactly as it would without the flag.
                let why = existing == .missing ? "\(output) does not exist yet (the first fetch has to reach the API)"
                    : "\(output) is \(existing.description)"
                error.hint = (["--keep-on-failure had nothing to keep: " + why] + [FlagWording.hint(for: error)].compactMap { $0 }).joined(separator: "; ")
                throw error
            }
            let message = "appdna bundle fetch: kept \(output) (bundle_version \(version)): \(FlagWording.message(for: error))"
            invocation.buildWarning(message, place: GitHubWorkflowText.Place(file: output))
            // --json: a script is told what happened too (the file is the kept one).
            BundleFetchReport.json(invocation, json, ["path": .string(output), "written": false, "up_to_date": false,
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
}
