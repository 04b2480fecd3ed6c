import AppDNACore
import AppDNANet

/// The bundle `api serve` answers with: a source (a file, or the live bundle with `@remote`)
/// and the overrides in force (`BundleOverrides`, kept in the state file). A file is read on
/// every request and parsed again only when its bytes changed, so an edit (or `bundle fetch`
/// writing it) is served on the next request, and a broken edit is reported, not served. The
/// live bundle is fetched at the start, on `POST /api/bundle/refetch` and, with `--refetch`,
/// when a request arrives that long after the last fetch.
public final class ServedBundle: Sendable {
    /// What the two bundle endpoints answer for one version of the source and the overrides.
    public struct Answers: Sendable {
        /// `GET …/config-bundle`: the file as written when nothing is overridden (either
        /// shape; the client reads both), else the rewritten bundle in the SDK file shape.
        public let bundle: [UInt8]
        /// `GET …/config-bundle/version`: the documented fields without `content`.
        public let version: [UInt8]
        public let bundleVersion: Int64

        /// The served bundle, parsed for the caller (what the inspector's /api/bundle and the
        /// audit read). Parsed per use: a `JSONDocument` is one thread's (it is not Sendable),
        /// and a bundle parses in well under a millisecond.
        public func document() throws -> JSONDocument {
            try JSONDocument(bytes: bundle)
        }
    }

    public enum Source: Sendable {
        case file(path: String)
        /// The live bundle: `fetch` gives it in the SDK file shape; `every` seconds at most between fetches (nil: only when asked).
        case remote(fetch: @Sendable () throws -> JSONDocument, every: Double?)
    }

    /// The path, or the CLI's name for the live bundle (`@remote`).
    public let name: String
    private let source: Source
    private let statePath: String?
    private let clock: any Clock
    /// A fetch of the live bundle that failed when a request found it due: the error, and the
    /// bundle_version still served (the CLI words it on stderr).
    private let refetchFailed: @Sendable (_ error: any Error, _ stillServing: Int64) -> Void
    private let mutable: Locked<Mutable>

    /// What changes, under one lock: the source as last read (its bytes: a file's, to notice an
    /// edit; parsed where they are used, a document being one thread's), the overrides, and the
    /// answers built from them.
    private struct Mutable: Sendable {
        var sourceBytes: [UInt8]
        var sourceVersion: Int64
        var fetchedAt: Int64
        var state: OverrideState
        var current: Answers?
    }

    /// Reads the source and the state (`statePath`; nil keeps overrides in memory only); `name`
    /// is how messages name the source.
    public init(source: Source, name: String, statePath: String?, clock: any Clock,
                refetchFailed: @escaping @Sendable (_ error: any Error, _ stillServing: Int64) -> Void) throws {
        self.source = source
        self.name = name
        self.statePath = statePath
        self.clock = clock
        self.refetchFailed = refetchFailed
        let sourceBytes: [UInt8]
        switch source {
        case .file(let path):
            sourceBytes = try FileReading.readAll(path: path)
        case .remote(let fetch, _):
            sourceBytes = try fetch().bytes
        }
        let (_, version) = try Self.parse(sourceBytes, name: name)
        let state = try statePath.map { try OverrideState.load(path: $0) } ?? OverrideState()
        mutable = Locked(Mutable(sourceBytes: sourceBytes, sourceVersion: version,
                                 fetchedAt: clock.monotonicNanoseconds(), state: state, current: nil))
    }

    /// The source as last read, without the overrides (what a device that does not load the
    /// served bundle runs: the identity search looks there).
    public func sourceDocument() throws -> JSONDocument {
        try mutable.withLock { (held: inout Mutable) throws -> JSONDocument in
            try refreshSource(&held)
            return try Self.parse(held.sourceBytes, name: name).0
        }
    }

    /// Called with the new answers after every change is committed (an override set or
    /// cleared, the source edited or fetched again), under the lock, so calls come in order.
    public let published = Locked<(@Sendable (Answers) -> Void)?>(nil)

    private func publish(_ held: inout Mutable) throws {
        guard let hook = published.withLock({ $0 }) else { return }
        let fresh = try build(held)
        held.current = fresh
        hook(fresh)
    }

    /// The overrides in force and the served version, as the API lists them.
    public var overrides: [BundleOverride] { mutable.withLock { $0.state.overrides.list } }

    /// Why each override from the state file does not apply to the source (it was set against
    /// another bundle): for the start-up notes. They stay set, and apply again if the bundle
    /// gets what they name.
    public func stale() -> [(BundleOverride, any Error)] {
        mutable.withLock { held in
            // The source parsed when it was read; it parses again.
            guard let source = try? Self.parse(held.sourceBytes, name: name).0 else { return [] }
            return held.state.overrides.list.compactMap { item -> (BundleOverride, any Error)? in
                do { try BundleOverrides.check(item, against: source.root, name: name); return nil } catch { return (item, error) }
            }
        }
    }

    /// The answers for the source and overrides as they are now; a failure says why the
    /// source cannot be served.
    public func answers() throws -> Answers {
        try mutable.withLock { (held: inout Mutable) throws -> Answers in
            try refreshSource(&held)
            if let current = held.current { return current }
            let fresh = try build(held)
            held.current = fresh
            return fresh
        }
    }

    /// Sets `item` (checked against the source: 400 material) and counts a change.
    public func set(_ item: BundleOverride) throws {
        try mutable.withLock { (held: inout Mutable) throws in
            try BundleOverrides.check(item, against: Self.parse(held.sourceBytes, name: name).0.root, name: name)
            var next = held.state
            next.overrides.set(item)
            try commit(next, into: &held)
        }
    }

    /// Clears the override of `kind` and `key`; false when there is none.
    public func clear(kind: BundleOverride.Kind, key: String) throws -> Bool {
        try mutable.withLock { (held: inout Mutable) throws -> Bool in
            var next = held.state
            guard next.overrides.clear(kind: kind, key: key) else { return false }
            try commit(next, into: &held)
            return true
        }
    }

    /// Clears every override as one change (one state write, one bundle_version); how many
    /// there were (0: nothing changes).
    func clearAll() throws -> Int {
        try mutable.withLock { (held: inout Mutable) throws -> Int in
            let count = held.state.overrides.list.count
            guard count > 0 else { return 0 }
            var next = held.state
            next.overrides = BundleOverrides()
            try commit(next, into: &held)
            return count
        }
    }

    /// Fetches the live bundle again (`@remote` only: false for a file).
    public func refetch() throws -> Bool {
        try mutable.withLock { (held: inout Mutable) throws -> Bool in
            guard case .remote(let fetch, _) = source else { return false }
            try adopt(fetch().bytes, into: &held)
            held.fetchedAt = clock.monotonicNanoseconds()
            return true
        }
    }

    /// Counts the change, saves the state (before serving it: a restart serves what was
    /// answered) and drops the cached answers. Called with the lock held.
    private func commit(_ proposed: OverrideState, into held: inout Mutable) throws {
        var next = proposed
        try next.countChange()
        _ = try BundleOverrides.servedVersion(source: held.sourceVersion, changes: next.changes)
        if let statePath { try next.save(path: statePath) }
        held.state = next
        held.current = nil
        try publish(&held)
    }

    /// Re-reads the file (or re-fetches the live bundle when `--refetch` says it is time).
    /// Called with the lock held.
    private func refreshSource(_ held: inout Mutable) throws {
        switch source {
        case .file(let path):
            let bytes = try FileReading.readAll(path: path)
            if bytes != held.sourceBytes { try adopt(bytes, into: &held) }
        case .remote(let fetch, let every):
            guard let every, Double(clock.monotonicNanoseconds() - held.fetchedAt) / 1e9 >= every else { return }
            held.fetchedAt = clock.monotonicNanoseconds()
            do { try adopt(fetch().bytes, into: &held) } catch {
                refetchFailed(error, held.sourceVersion)
            }
        }
    }

    private func adopt(_ bytes: [UInt8], into held: inout Mutable) throws {
        let (_, version) = try Self.parse(bytes, name: name)
        (held.sourceBytes, held.sourceVersion) = (bytes, version)
        held.current = nil
        try publish(&held)
    }

    private func build(_ held: Mutable) throws -> Answers {
        let served: [UInt8]
        let document: JSONDocument
        let state = held.state
        let source = try Self.parse(held.sourceBytes, name: name).0
        if state.changes == 0 && state.overrides.isEmpty {
            (served, document) = (held.sourceBytes, source)
        } else {
            let version = try BundleOverrides.servedVersion(source: held.sourceVersion, changes: state.changes)
            served = JSONWriter(indent: 2).write(state.overrides.apply(to: source.root, version: version)) + [0x0A]
            document = try JSONDocument(bytes: served)
        }
        let root = document.root
        let version = root["bundle_version"]?.int64 ?? held.sourceVersion
        var summary = JSONObject()
        summary["bundle_version"] = .integer(version)
        summary["sdk_min_version"] = root["sdk_min_version"]?.string.map { .string($0) } ?? .string("1.0.0")
        summary["size_bytes"] = .integer(served.count)
        if let generated = root["generated_at"]?.string { summary["generated_at"] = .string(generated) }
        return Answers(bundle: served, version: JSONWriter().write(.object(summary)), bundleVersion: version)
    }

    static func parse(_ bytes: [UInt8], name: String) throws -> (JSONDocument, Int64) {
        // Worded as every command that reads a bundle words it: `FILE:LINE:COL: not JSON: …`.
        let document = try BundleInput(name: name, source: ByteSource(bytes), skippedLines: 0, skippedColumns: 0).parsed()
        guard document.root.kind == .object, let version = document.root["bundle_version"]?.int64 else {
            throw Failure(.malformedInput, "\(name): not a config bundle: no integer bundle_version at the top")
        }
        return (document, version)
    }
}
