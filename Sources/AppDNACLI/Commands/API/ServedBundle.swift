import AppDNACore
import AppDNANet

/// The bundle `api serve` answers with: a source (a file, or the live bundle with `@remote`)
/// and the overrides in force (`BundleOverrides`, kept in the state file). A file is read on
/// every request and parsed again only when its bytes changed, so an edit (or `bundle fetch`
/// writing it) is served on the next request, and a broken edit is reported, not served. The
/// live bundle is fetched at the start, on `POST /api/bundle/refetch` and, with `--refetch`,
/// when a request arrives that long after the last fetch.
final class ServedBundle: @unchecked Sendable {
    /// What the two bundle endpoints answer for one version of the source and the overrides.
    struct Answers {
        /// `GET …/config-bundle`: the file as written when nothing is overridden (either
        /// shape; the client reads both), else the rewritten bundle in the SDK file shape.
        let bundle: [UInt8]
        /// `GET …/config-bundle/version`: the documented fields without `content`.
        let version: [UInt8]
        let bundleVersion: Int64
        /// The served bundle, parsed (what the inspector's /api/bundle and the audit read).
        let document: JSONDocument
    }

    enum Source {
        case file(path: String)
        /// The live bundle: `fetch` gives it in the SDK file shape; `every` seconds at most between fetches (nil: only when asked).
        case remote(fetch: () throws -> JSONDocument, every: Double?)
    }

    /// The path, or `@remote`.
    let name: String
    private let source: Source
    private let statePath: String?
    private let clock: Clock
    private let warn: (String) -> Void
    private let lock = PthreadLock()
    /// The source as last read: its bytes (a file's, to notice an edit) and its document.
    private var sourceBytes: [UInt8]
    private var sourceDocument: JSONDocument
    private var sourceVersion: Int64
    private var fetchedAt: Int64
    private var state: OverrideState
    private var current: Answers?

    /// Reads the source and the state (`statePath`; nil keeps overrides in memory only).
    init(source: Source, statePath: String?, clock: Clock, warn: @escaping (String) -> Void) throws {
        self.source = source
        self.statePath = statePath
        self.clock = clock
        self.warn = warn
        switch source {
        case .file(let path):
            name = path
            sourceBytes = try FileReading.readAll(path: path)
        case .remote(let fetch, _):
            name = BundleArgument.remote
            sourceBytes = try fetch().bytes
        }
        fetchedAt = clock.monotonicNanoseconds()
        (sourceDocument, sourceVersion) = try Self.parse(sourceBytes, name: name)
        state = try statePath.map { try OverrideState.load(path: $0) } ?? OverrideState()
    }

    /// The overrides in force and the served version, as the API lists them.
    var overrides: [BundleOverride] { lock.locked { state.overrides.list } }

    /// Why each override from the state file does not apply to the source (it was set against
    /// another bundle): for the start-up notes. They stay set, and apply again if the bundle
    /// gets what they name.
    func stale() -> [(BundleOverride, String)] {
        lock.locked {
            state.overrides.list.compactMap { item -> (BundleOverride, String)? in
                do { try BundleOverrides.check(item, against: sourceDocument.root, name: name); return nil } catch { return (item, FlagWording.message(for: error)) }
            }
        }
    }

    /// The answers for the source and overrides as they are now; a failure says why the
    /// source cannot be served.
    func answers() throws -> Answers {
        try lock.locked { () throws -> Answers in
            try refreshSource()
            if let current { return current }
            let fresh = try build()
            current = fresh
            return fresh
        }
    }

    /// Sets `item` (checked against the source: 400 material) and counts a change.
    func set(_ item: BundleOverride) throws {
        try lock.locked { () throws in
            try BundleOverrides.check(item, against: sourceDocument.root, name: name)
            var next = state
            next.overrides.set(item)
            try commit(next)
        }
    }

    /// Clears the override of `kind` and `key`; false when there is none.
    func clear(kind: BundleOverride.Kind, key: String) throws -> Bool {
        try lock.locked { () throws -> Bool in
            var next = state
            guard next.overrides.clear(kind: kind, key: key) else { return false }
            try commit(next)
            return true
        }
    }

    /// Fetches the live bundle again (`@remote` only: false for a file).
    func refetch() throws -> Bool {
        try lock.locked { () throws -> Bool in
            guard case .remote(let fetch, _) = source else { return false }
            try adopt(fetch().bytes)
            fetchedAt = clock.monotonicNanoseconds()
            return true
        }
    }

    /// Counts the change, saves the state (before serving it: a restart serves what was
    /// answered) and drops the cached answers. Called with the lock held.
    private func commit(_ proposed: OverrideState) throws {
        var next = proposed
        try next.countChange()
        _ = try BundleOverrides.servedVersion(source: sourceVersion, changes: next.changes)
        if let statePath { try next.save(path: statePath) }
        state = next
        current = nil
    }

    /// Re-reads the file (or re-fetches the live bundle when `--refetch` says it is time).
    /// Called with the lock held.
    private func refreshSource() throws {
        switch source {
        case .file(let path):
            let bytes = try FileReading.readAll(path: path)
            if bytes != sourceBytes { try adopt(bytes) }
        case .remote(let fetch, let every):
            guard let every, Double(clock.monotonicNanoseconds() - fetchedAt) / 1e9 >= every else { return }
            fetchedAt = clock.monotonicNanoseconds()
            do { try adopt(fetch().bytes) } catch {
                warn("--refetch: \(FlagWording.message(for: error)); still serving bundle_version \(sourceVersion)")
            }
        }
    }

    private func adopt(_ bytes: [UInt8]) throws {
        let (document, version) = try Self.parse(bytes, name: name)
        (sourceBytes, sourceDocument, sourceVersion) = (bytes, document, version)
        current = nil
    }

    private func build() throws -> Answers {
        let served: [UInt8]
        let document: JSONDocument
        if state.changes == 0 && state.overrides.isEmpty {
            (served, document) = (sourceBytes, sourceDocument)
        } else {
            let version = try BundleOverrides.servedVersion(source: sourceVersion, changes: state.changes)
            served = JSONWriter(indent: 2).write(state.overrides.apply(to: sourceDocument.root, version: version)) + [0x0A]
            document = try JSONDocument(bytes: served)
        }
        let root = document.root
        let version = root["bundle_version"]?.int64 ?? sourceVersion
        var summary = JSONObject()
        summary["bundle_version"] = .integer(version)
        summary["sdk_min_version"] = root["sdk_min_version"]?.string.map { .string($0) } ?? .string("1.0.0")
        summary["size_bytes"] = .integer(served.count)
        if let generated = root["generated_at"]?.string { summary["generated_at"] = .string(generated) }
        return Answers(bundle: served, version: JSONWriter().write(.object(summary)), bundleVersion: version, document: document)
    }

    static func parse(_ bytes: [UInt8], name: String) throws -> (JSONDocument, Int64) {
        // Worded as every command that reads a bundle words it: `FILE:LINE:COL: not JSON: …`.
        let document = try BundleArgument.parse(BundleInput(name: name, source: ByteSource(bytes), skippedLines: 0, skippedColumns: 0))
        guard document.root.kind == .object, let version = document.root["bundle_version"]?.int64 else {
            throw Failure(.malformedInput, "\(name): not a config bundle: no integer bundle_version at the top")
        }
        return (document, version)
    }
}
