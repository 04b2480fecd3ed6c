import AppDNACore

/// The bundle file already at `bundle fetch -o PATH`, as `--check` and `--keep-on-failure`
/// judge it: missing, present but not a usable bundle (and why), or valid with its version.
/// Only a regular file counts: a FIFO or a device at that path is never opened, so judging it
/// cannot block.
enum ExistingBundleFile: Equatable {
    case missing
    case invalid(String)
    case valid(version: Int64)

    /// The file at `path`, looked at and read through `files` (`CommandIO.files`).
    init(path: String, files: any FileAccess) {
        let isRegular: Bool
        do {
            isRegular = try files.kind(path: path) == .regular
        } catch {
            self = error == .notFound ? .missing : .invalid(error.description)
            return
        }
        guard isRegular else { self = .invalid("not a regular file"); return }
        let bytes: [UInt8]
        do {
            bytes = try files.readAll(path: path)
        } catch {
            self = .invalid(error.message)
            return
        }
        let document: JSONDocument
        do {
            document = try JSONDocument(bytes: bytes, options: JSONParseOptions(duplicateKeys: .record))
        } catch {
            self = .invalid("not JSON: \(error.message)")
            return
        }
        // The rules of `bundle validate`: a file with errors is not a bundle worth keeping.
        let errors = BundleValidator.validate(document: document).filter { $0.severity == .error }
        if let first = errors.first {
            self = .invalid("\(errors.count) validation error\(errors.count == 1 ? "" : "s"), first: \(first.message) [\(first.rule.rawValue)]")
            return
        }
        guard let version = document.root["bundle_version"]?.int64 else {
            self = .invalid("no integer bundle_version")
            return
        }
        self = .valid(version: version)
    }

    /// "bundle_version 41", "missing", "invalid (not JSON: …)": how `--check` names the file's
    /// side, in its text and in the `file` field of its JSON (one wording for a version:
    /// `bundle_version N`, as fetch's "up to date (bundle_version N)" says it).
    var description: String {
        switch self {
        case .missing: return "missing"
        case let .invalid(reason): return "invalid (\(reason))"
        case let .valid(version): return "bundle_version \(version)"
        }
    }
}
