/// What `api serve` keeps across restarts: the overrides and how many changes were made (the
/// served `bundle_version` is the source's plus that count, so it never goes back after a
/// restart). One JSON file, replaced atomically on every change:
///
///     {"format": 1, "changes": 3, "overrides": [{"kind": "experiment", "key": "onboarding-v2", "value": "streamlined"}],
///      "served": {"bundle_version": 10, "sha256": "…"}}
public struct OverrideState: Sendable, Equatable {
    public var overrides: BundleOverrides
    /// Changes made since the file was created: set, cleared, re-fetched.
    public var changes: Int64
    /// The last bundle served: its `bundle_version` and the SHA-256 of its bytes (hex). A
    /// served version never goes back and never has two bodies, also across restarts and
    /// whatever the source does (`ServedVersion`). Nil in a state file from before.
    public var served: ServedMark?

    /// A version that was served and the digest of its bytes.
    public struct ServedMark: Sendable, Equatable {
        public let version: Int64
        public let sha256: String
        public init(version: Int64, sha256: String) {
            self.version = version
            self.sha256 = sha256
        }
    }

    public static let format = 1
    /// More changes than this is not a count a person made (and keeps the sum with a version far from overflowing).
    public static let maxChanges: Int64 = 1 << 52
    /// The largest state file kept or loaded (1 MiB): what one PUT can make the server keep,
    /// write on every change and read at every start.
    public static let maxBytes = 1 << 20

    public init(overrides: BundleOverrides = BundleOverrides(), changes: Int64 = 0, served: ServedMark? = nil) {
        self.overrides = overrides
        self.changes = changes
        self.served = served
    }

    /// The state in `path`; empty when there is no such file. A file that is not a state file
    /// is an error (not silently replaced: it may be something else the user named by mistake).
    /// Read through `files` (the command's `FileAccess`).
    public static func load(path: String, files: any FileAccess = SystemFileAccess()) throws(Failure) -> OverrideState {
        // Read here and then replaced atomically: only a regular file is one (a FIFO would
        // block the read until a writer came, and a link or a device is not this server's).
        if let existing = (try? files.status(path: path, followingLinks: false)), existing.kind != .regular {
            throw Failure(.cannotCreateOutput, "\(path) is \(existing.kindName), not a regular file: overrides are kept only in a regular file",
                          hint: "give the path of a new or existing regular file")
        }
        let bytes: [UInt8]
        do {
            bytes = try files.readAll(path: path)
        } catch where error.kind == .inputMissing {
            return OverrideState()
        }
        return try decode(bytes, name: path)
    }

    /// The state in `bytes` (a state file's, or the encoding of one to be written: a change
    /// is loaded back before it is kept, so a file is never written that the next start refuses).
    public static func decode(_ bytes: [UInt8], name: String) throws(Failure) -> OverrideState {
        guard bytes.count <= maxBytes else {
            throw Failure(.malformedInput, "\(name): \(bytes.count) bytes, over the \(NumberText.binarySize(maxBytes)) an override state file may take")
        }
        let root: JSONValue
        do { root = try JSONValue(parsing: bytes) } catch {
            throw Failure(.malformedInput, "\(name): not an override state file (not JSON: \(error.message))")
        }
        guard case .number(let formatNumber)? = root["format"], formatNumber.int64 == Int64(format),
              case .number(let changesNumber)? = root["changes"], let changes = changesNumber.int64, (0...maxChanges).contains(changes),
              case .array(let items)? = root["overrides"] else {
            throw Failure(.malformedInput, "\(name): not an override state file of format \(format) (format, changes, overrides)")
        }
        var overrides = BundleOverrides()
        for item in items {
            do { overrides.set(try BundleOverride(json: item)) } catch {
                throw Failure(.malformedInput, "\(name): \(error.message)")
            }
        }
        var served: ServedMark?
        if let mark = root["served"], mark != .null {
            guard case .number(let number)? = mark["bundle_version"], let version = number.int64,
                  let digest = mark["sha256"]?.stringValue, digest.utf8.count == 64, digest.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }) else {
                throw Failure(.malformedInput, "\(name): served is {\"bundle_version\": N, \"sha256\": 64 hex digits}")
            }
            served = ServedMark(version: version, sha256: digest)
        }
        return OverrideState(overrides: overrides, changes: changes, served: served)
    }

    /// The file's bytes (what `save` writes and `decode` reads).
    public var encoded: [UInt8] { JSONWriter(indent: 2).write(json) + [0x0A] }

    public var json: JSONValue {
        var object: JSONObject = ["format": .integer(Self.format), "changes": .integer(changes), "overrides": .array(overrides.list.map(\.json))]
        if let served { object["served"] = ["bundle_version": .integer(served.version), "sha256": .string(served.sha256)] }
        return .object(object)
    }

    /// Writes the state to `path` atomically (a crash leaves the old file or the new one).
    public func save(path: String, files: any FileAccess = SystemFileAccess()) throws(Failure) {
        try files.replace(path: path, with: encoded, timeout: nil)
    }

    /// Counts one change (a usage error once the count is absurd, never a trap).
    public mutating func countChange() throws(Failure) {
        guard changes < Self.maxChanges else { throw Failure(.usage, "more than \(Self.maxChanges) changes: start a new state file") }
        changes += 1
    }
}
