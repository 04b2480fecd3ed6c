import AppDNACore
import AppDNAServers

/// `api serve --write-bundled FILE` (issue 51.3, local mode): the served bundle, overrides and
/// all, written in the SDK file shape to the app's bundled appdna-config.json at start and on
/// every change, atomically (through the command's `FileAccess`), and only when it passes `bundle validate` (a file
/// the SDK cannot read is never left in the app). A device loads it only with no cache and no
/// Firestore answer (platform facts §7): `--bootstrap local` refuses the bootstrap, so no
/// Firestore fetch starts; the cache must go (a fresh install, or the debug snippet).
struct BundledFile: Sendable {
    let path: String
    /// The command's files (`CommandIO.files`): the one door it is written through.
    let files: any FileAccess

    /// nil without the flag; refused with `--bootstrap live` (the device would read Firestore,
    /// which wins over the bundled file) and when the file cannot be written (73), before listening.
    init?(_ path: String?, mode: BootstrapMode, files: any FileAccess) throws {
        guard let path else { return nil }
        guard mode == .local else {
            throw Failure(.usage, "--write-bundled goes with --bootstrap local: with a live bootstrap the device reads Firestore, whose answers replace the bundled file's sections")
        }
        try files.checkWritable(path: path)
        self.path = path
        self.files = files
    }

    /// Writes `answers`' bundle if it validates; says what happened (a failure is noted and the
    /// old file kept: the server goes on serving).
    func write(_ answers: ServedBundle.Answers, note: (String) -> Void) {
        do {
            let document = try BundleArgument.sdkShape(try answers.document())
            let bytes = document.bytes
            let errors = BundleValidator.validate(bytes: bytes).filter { $0.severity == .error }
            guard errors.isEmpty else {
                note("--write-bundled: bundle_version \(answers.bundleVersion) not written to \(path): it fails bundle validate (\(errors.count) error(s), first: \(errors[0].message))")
                return
            }
            try files.replace(path: path, with: bytes, timeout: nil)
            note("wrote bundle_version \(answers.bundleVersion) to \(path): a device loads it on a fresh install, or with its config cache removed before configure()")
        } catch {
            note("--write-bundled: \(path) not written: \(FlagWording.message(for: error))")
        }
    }
}
