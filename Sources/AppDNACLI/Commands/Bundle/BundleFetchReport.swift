import AppDNACore

/// What `bundle fetch` (and its --check and --keep-on-failure) tells a script and a person.
enum BundleFetchReport {
    /// `--json` (`enabled`): what was done, as one document on stdout (the text lines stay on stderr).
    static func json(_ invocation: Invocation, _ enabled: Bool, _ object: JSONObject) {
        guard enabled else { return }
        invocation.stdout.write(JSONWriter(indent: 2).write(.object(object)) + [0x0A])
        invocation.stdout.flush()
    }

    /// A negative answer (status 1): said like an error, but not a failure to run; `about`
    /// is the bundle file it concerns (the annotation's file under GitHub Actions; not '-').
    static func negative(_ invocation: Invocation, _ message: String, hint: String? = nil, about file: String? = nil) -> ExitStatus {
        let place = file.flatMap { $0 == "-" ? nil : GitHubWorkflowText.Place(file: $0) }
        Runner.report(Failure(.usage, message, hint: hint), io: invocation.io, place: place)
        return .negative
    }
}
