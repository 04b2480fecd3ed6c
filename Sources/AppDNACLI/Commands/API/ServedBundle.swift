import AppDNACore
import AppDNANet

/// The bundle file `api serve` answers with. The file is read on every request and parsed
/// again only when its bytes changed, so an edit (or `bundle fetch` writing it) is served on
/// the next request however quickly it follows, and a broken edit is reported, not served.
final class ServedBundle: Sendable {
    /// What the two bundle endpoints answer for one version of the file.
    struct Answers: Sendable {
        let bytes: [UInt8]
        /// `GET …/config-bundle`: the file as written (either shape; the client reads both).
        let bundle: [UInt8]
        /// `GET …/config-bundle/version`: the documented fields without `content`.
        let version: [UInt8]
        let bundleVersion: Int64
    }

    let path: String
    private let current: Locked<Answers?>

    init(path: String) throws {
        self.path = path
        current = Locked(try Self.answers(FileReading.readAll(path: path), path: path))
    }

    /// The answers for the file as it is now; a failure says why the file cannot be served.
    func answers() throws -> Answers {
        let bytes = try FileReading.readAll(path: path)
        return try current.withLock { current throws -> Answers in
            if let current, current.bytes == bytes { return current }
            let fresh = try Self.answers(bytes, path: path)
            current = fresh
            return fresh
        }
    }

    static func answers(_ bytes: [UInt8], path: String) throws -> Answers {
        // Worded as every command that reads a bundle words it: `FILE:LINE:COL: not JSON: …`.
        let document = try BundleArgument.parse(BundleInput(name: path, source: ByteSource(bytes), skippedLines: 0, skippedColumns: 0))
        let root = document.root
        guard root.kind == .object, let version = root["bundle_version"]?.int64 else {
            throw Failure(.malformedInput, "\(path): not a config bundle: no integer bundle_version at the top")
        }
        var summary = JSONObject()
        summary["bundle_version"] = .integer(version)
        summary["sdk_min_version"] = root["sdk_min_version"]?.string.map { .string($0) } ?? .string("1.0.0")
        summary["size_bytes"] = .integer(bytes.count)
        if let generated = root["generated_at"]?.string { summary["generated_at"] = .string(generated) }
        return Answers(bytes: bytes, bundle: bytes, version: JSONWriter().write(.object(summary)), bundleVersion: version)
    }
}
