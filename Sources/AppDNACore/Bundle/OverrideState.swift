/// What `api serve` keeps across restarts: the overrides and how many changes were made (the
/// served `bundle_version` is the source's plus that count, so it never goes back after a
/// restart). One JSON file, replaced atomically on every change:
///
///     {"format": 1, "changes": 3, "overrides": [{"kind": "experiment", "key": "onboarding-v2", "value": "streamlined"}]}
public struct OverrideState: Sendable, Equatable {
    public var overrides: BundleOverrides
    /// Changes made since the file was created: set, cleared, re-fetched.
    public var changes: Int64

    public static let format = 1
    /// More changes than this is not a count a person made (and keeps the sum with a version far from overflowing).
    public static let maxChanges: Int64 = 1 << 52

    public init(overrides: BundleOverrides = BundleOverrides(), changes: Int64 = 0) {
        self.overrides = overrides
        self.changes = changes
    }

    /// The state in `path`; empty when there is no such file. A file that is not a state file
    /// is an error (not silently replaced: it may be something else the user named by mistake).
    public static func load(path: String) throws(Failure) -> OverrideState {
        // Read here and then replaced atomically: only a regular file is one (a FIFO would
        // block the read until a writer came, and a link or a device is not this server's).
        if let existing = try? FileStatus.ofLink(path: path), existing.kind != .regular {
            throw Failure(.cannotCreateOutput, "\(path) is \(existing.kindName), not a regular file: overrides are kept only in a regular file",
                          hint: "give the path of a new or existing regular file")
        }
        let bytes: [UInt8]
        do {
            bytes = try FileReading.readAll(path: path)
        } catch where error.kind == .inputMissing {
            return OverrideState()
        }
        let root: JSONValue
        do { root = try JSONValue(parsing: bytes) } catch {
            throw Failure(.malformedInput, "\(path): not an override state file (not JSON: \(error.message))")
        }
        guard case .number(let formatNumber)? = root["format"], formatNumber.int64 == Int64(format),
              case .number(let changesNumber)? = root["changes"], let changes = changesNumber.int64, (0...maxChanges).contains(changes),
              case .array(let items)? = root["overrides"] else {
            throw Failure(.malformedInput, "\(path): not an override state file of format \(format) (format, changes, overrides)")
        }
        var overrides = BundleOverrides()
        for item in items {
            do { overrides.set(try BundleOverride(json: item)) } catch {
                throw Failure(.malformedInput, "\(path): \(error.message)")
            }
        }
        return OverrideState(overrides: overrides, changes: changes)
    }

    public var json: JSONValue {
        ["format": .integer(Self.format), "changes": .integer(changes), "overrides": .array(overrides.list.map(\.json))]
    }

    /// Writes the state to `path` atomically (a crash leaves the old file or the new one).
    public func save(path: String) throws(Failure) {
        try AtomicFile.replace(path: path, with: JSONWriter(indent: 2).write(json) + [0x0A])
    }

    /// Counts one change (a usage error once the count is absurd, never a trap).
    public mutating func countChange() throws(Failure) {
        guard changes < Self.maxChanges else { throw Failure(.usage, "more than \(Self.maxChanges) changes: start a new state file") }
        changes += 1
    }
}
