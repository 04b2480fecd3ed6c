import AppDNACore
import AppDNANet

/// The bundle `api serve` answers with: a source (a file, or the live bundle with `@remote`)
/// and the overrides in force (`BundleOverrides`, kept in the state file). A file is read on
/// every request and parsed again only when its bytes changed, so an edit (or `bundle fetch`
/// writing it) is served on the next request, and a broken edit is reported, not served. The
/// live bundle is fetched at the start, on `POST /api/bundle/refetch` and, with `--refetch`,
/// when a request arrives that long after the last fetch.
///
/// Every change (an override set or cleared, a new source, the overrides given at start) is
/// one `OverrideTransaction`: proven, then the state written, then the answers swapped, all
/// under one lock; a failing step leaves everything as it was. A fetch of the live bundle
/// runs outside that lock, so requests are answered from the last good bundle meanwhile.
/// After every swap, `published` callbacks get the new answers (`onPublish`).
public final class ServedBundle: Sendable {
    /// What the two bundle endpoints answer for one version of the source and the overrides.
    public struct Answers: Sendable {
        /// `GET …/config-bundle`: the file as written when nothing is overridden (either
        /// shape; the client reads both), else the rewritten bundle in the SDK file shape.
        public let bundle: [UInt8]
        /// `GET …/config-bundle/version`: the documented fields without `content`.
        public let version: [UInt8]
        public let bundleVersion: Int64
        /// The overrides kept, and which of them the source does not have now (not applied).
        public let overrides: [BundleOverride]
        public let staleness: OverrideStaleness

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
    /// Every file it reads or writes (the source, the state) goes through the command's door.
    private let files: any FileAccess
    private let clock: any Clock
    /// Notes for stderr: an override gone stale, or applying again.
    private let warn: @Sendable (String) -> Void
    /// A fetch of the live bundle that failed when a request found it due: the error, and the
    /// bundle_version still served (the CLI words it on stderr).
    private let refetchFailed: @Sendable (_ error: any Error, _ stillServing: Int64) -> Void
    /// Any error in the CLI's words (the library names no flag).
    private let words: @Sendable (any Error) -> String
    private let mutable: Locked<Mutable>
    /// The fetch of the live bundle running, if any: one at a time, outside `mutable`'s lock.
    private let fetching = Locked(Fetching.idle)

    private enum Fetching: Sendable {
        case idle, due, asked
    }

    /// What `refetch` did.
    public enum Refetch {
        case done
        /// The source is a file: nothing to fetch.
        case notRemote
        /// A fetch asked for is already running (its answer is served when it is in).
        case running
    }
    private let subscribers = Locked<[@Sendable (Answers) -> Void]>([])

    /// What changes, under one lock: the source as last read (its bytes: a file's, to notice an
    /// edit; parsed where they are used, a document being one thread's), the state as kept,
    /// and the answers built from them.
    private struct Mutable: Sendable {
        var sourceBytes: [UInt8]
        var sourceVersion: Int64
        var fetchedAt: Int64
        var state: OverrideState
        var current: Answers
        /// A file edit that could not be served, and why: answered without parsing it again.
        var refused: (bytes: [UInt8], message: String)?
    }

    /// Reads the source and the state (`statePath`; nil keeps overrides in memory only) and
    /// proves the bundle served with `overrides` (those of `--override`) added: nothing is
    /// written until `keep`. A bad override is a usage error, as is a state grown past its bound.
    /// `name` is how messages name the source (the path, or the CLI's `@remote`). `files`: the
    /// command's `FileAccess` (`CommandIO.files`), the one door to the source file and the state.
    public init(source: Source, name: String, statePath: String?, overrides: [BundleOverride] = [], files: any FileAccess = SystemFileAccess(),
                clock: any Clock,
                words: @escaping @Sendable (any Error) -> String, warn: @escaping @Sendable (String) -> Void,
                refetchFailed: @escaping @Sendable (_ error: any Error, _ stillServing: Int64) -> Void) throws {
        self.source = source
        self.name = name
        self.statePath = statePath
        self.files = files
        self.clock = clock
        self.words = words
        self.warn = warn
        self.refetchFailed = refetchFailed
        let sourceBytes: [UInt8]
        switch source {
        case .file(let path):
            sourceBytes = try files.readAll(path: path)
        case .remote(let fetch, _):
            sourceBytes = try fetch().bytes
        }
        startOverrides = overrides
        let (document, version) = try Self.parse(sourceBytes, name: name)
        let loaded = try statePath.map { try OverrideState.load(path: $0, files: files) } ?? OverrideState()
        let state = try Self.starting(loaded, with: overrides, against: document, name: name)
        let prepared = try Self.startPrepared(document, sourceBytes, version, state, name: name, remembersServed: Self.remembersServed(source, state))
        mutable = Locked(Mutable(sourceBytes: sourceBytes, sourceVersion: version, fetchedAt: clock.monotonicNanoseconds(),
                                 state: loaded, current: Self.answers(prepared), refused: nil))
    }

    private let startOverrides: [BundleOverride]

    /// Once the state is this server's (`OverrideStateLock`): loads it again, adds the start's
    /// overrides, proves the result and writes it (when it differs from the file), then serves it.
    public func keep() throws {
        let answers = try mutable.withLock { (held: inout Mutable) throws -> Answers in
            let (document, _) = try Self.parse(held.sourceBytes, name: name)
            let loaded = try statePath.map { try OverrideState.load(path: $0, files: files) } ?? OverrideState()
            let state = try Self.starting(loaded, with: startOverrides, against: document, name: name)
            let prepared = try Self.startPrepared(document, held.sourceBytes, held.sourceVersion, state, name: name,
                                                  remembersServed: Self.remembersServed(source, state))
            held.state = loaded
            try write(prepared, over: &held)
            return held.current
        }
        publish(answers)
    }

    /// The overrides in force (stale ones included) and the served version, as the API lists them.
    public var overrides: [BundleOverride] { mutable.withLock { $0.current.overrides } }

    /// Why each kept override does not apply to the source now (it was set against another
    /// bundle): for the start-up notes. They stay set, and apply again if the bundle gets what they name.
    public func stale() -> [OverrideStaleness.Entry] { mutable.withLock { $0.current.staleness.stale } }

    /// Calls `body` with the answers after every committed change (a `--local` copy, a log).
    public func onPublish(_ body: @escaping @Sendable (Answers) -> Void) {
        subscribers.withLock { $0.append(body) }
    }

    /// The answers for the source and overrides as they are now; a failure says why the
    /// source cannot be served. Never waits for the live bundle: a due `--refetch` runs on a
    /// thread of its own while this answers from the last good bundle.
    public func answers() throws -> Answers {
        var fileBytes: [UInt8]?
        if case .file(let path) = source { fileBytes = try files.readAll(path: path) }
        var startFetch = false
        let (answers, changed) = try mutable.withLock { (held: inout Mutable) throws -> (Answers, Bool) in
            if let fileBytes, fileBytes != held.sourceBytes {
                if let refused = held.refused, refused.bytes == fileBytes { throw Failure(.malformedInput, refused.message) }
                do {
                    try adopt(fileBytes, into: &held)
                } catch {
                    held.refused = (fileBytes, words(error))
                    throw error
                }
                return (held.current, true)
            }
            if case .remote(_, let every?) = source, Double(clock.monotonicNanoseconds() - held.fetchedAt) / 1e9 >= every {
                held.fetchedAt = clock.monotonicNanoseconds()
                startFetch = true
            }
            return (held.current, false)
        }
        if changed { publish(answers) }
        if startFetch, claimDueFetch() {
            ThreadSpawner.spawnDetached { [self] in
                defer { releaseFetch() }
                do { try fetchAndAdopt() } catch {
                    refetchFailed(error, mutable.withLock { $0.current.bundleVersion })
                }
            }
        }
        return answers
    }

    /// Sets `item` (checked against the source: 400 material) as one transaction.
    public func set(_ item: BundleOverride) throws {
        try change { held throws in
            let (document, _) = try Self.parse(held.sourceBytes, name: name)
            do { try BundleOverrides.check(item, against: document.root, name: name) } catch {
                throw OverrideTransaction.Refusal(.check, .request, words(error))
            }
            var next = held.state
            next.overrides.set(item)
            return next
        }
    }

    /// Clears the override of `kind` and `key` (stale or not); false when there is none.
    public func clear(kind: BundleOverride.Kind, key: String) throws -> Bool {
        var found = false
        try change { held in
            var next = held.state
            found = next.overrides.clear(kind: kind, key: key)
            return found ? next : nil
        }
        return found
    }

    /// Clears every override (stale or not) as one transaction (one state write, one
    /// bundle_version); how many there were (0: nothing changes).
    public func clearAll() throws -> Int {
        var count = 0
        try change { held in
            count = held.state.overrides.list.count
            guard count > 0 else { return nil }
            var next = held.state
            next.overrides = BundleOverrides()
            return next
        }
        return count
    }

    /// The source as last read, without the overrides (what a device that does not load the
    /// served bundle runs: the identity search looks there).
    public func sourceDocument() throws -> JSONDocument {
        _ = try answers()  // a file edited since is read (and refused if it cannot be served)
        let bytes = mutable.withLock { $0.sourceBytes }
        return try Self.parse(bytes, name: name).0
    }

    /// Fetches the live bundle again (`@remote` only), outside the lock: requests meanwhile
    /// are answered from the last good bundle. A `--refetch` fetch running is waited for, then
    /// this one runs; another asked-for fetch running is not joined (`.running`, at once: a
    /// slow live API must not hold every connection of the inspector). A failure is
    /// upstream's (502) and changes nothing.
    public func refetch() throws -> Refetch {
        guard case .remote = source else { return .notRemote }
        guard claimAskedFetch() else { return .running }
        defer { releaseFetch() }
        try fetchAndAdopt()
        return .done
    }

    // MARK: - The transaction's last steps: write, swap, publish

    /// Runs `propose` on the state under the lock (nil: nothing to change), then the transaction.
    private func change(_ propose: (inout Mutable) throws -> OverrideState?) throws {
        let answers = try mutable.withLock { (held: inout Mutable) throws -> Answers? in
            if case .file(let path) = source {
                let bytes = try files.readAll(path: path)
                if bytes != held.sourceBytes { try adopt(bytes, into: &held) }
            }
            guard var next = try propose(&held) else { return nil }
            do { try next.countChange() } catch { throw OverrideTransaction.Refusal(.encode, .request, words(error)) }
            let (document, _) = try Self.parse(held.sourceBytes, name: name)
            let prepared = try OverrideTransaction.prepare(source: document, sourceBytes: held.sourceBytes, sourceVersion: held.sourceVersion,
                                                          state: next, name: name, remembersServed: Self.remembersServed(source, next))
            try write(prepared, over: &held)
            return held.current
        }
        if let answers { publish(answers) }
    }

    private func fetchAndAdopt() throws {
        guard case .remote(let fetch, _) = source else { return }
        let bytes: [UInt8]
        do { bytes = try fetch().bytes } catch {
            throw OverrideTransaction.Refusal(.fetch, .upstream, words(error))
        }
        let answers = try mutable.withLock { (held: inout Mutable) throws -> Answers in
            held.fetchedAt = clock.monotonicNanoseconds()
            try adopt(bytes, into: &held)
            return held.current
        }
        publish(answers)
    }

    /// A new source: proven with the overrides kept, then written and swapped. Called with the lock held.
    private func adopt(_ bytes: [UInt8], into held: inout Mutable) throws {
        let parsed: (JSONDocument, Int64)
        do { parsed = try Self.parse(bytes, name: name) } catch {
            let fault: OverrideTransaction.Fault
            if case .remote = source { fault = .upstream } else { fault = .server }
            throw OverrideTransaction.Refusal(.parse, fault, words(error))
        }
        let prepared = try OverrideTransaction.prepare(source: parsed.0, sourceBytes: bytes, sourceVersion: parsed.1, state: held.state, name: name,
                                                      remembersServed: Self.remembersServed(source, held.state))
        let before = held.current.staleness
        try write(prepared, over: &held)
        (held.sourceBytes, held.sourceVersion, held.refused) = (bytes, parsed.1, nil)
        for entry in prepared.staleness.stale where before.reason(for: entry.item) == nil {
            warn("override \(entry.item.text) is stale (kept, not applied): \(entry.reason)")
        }
        for entry in before.stale where prepared.staleness.reason(for: entry.item) == nil && prepared.state.overrides.list.contains(entry.item) {
            warn("override \(entry.item.text) applies again")
        }
    }

    /// Writes the proven state atomically when it differs from the one kept, then swaps the
    /// answers. Called with the lock held; a failed write swaps nothing.
    private func write(_ prepared: OverrideTransaction.Prepared, over held: inout Mutable) throws {
        // A state never changed, serving the source as it is, stays unwritten (no file appears
        // in the folder until something is overridden, or the served version must be remembered).
        // The live bundle's served version is always remembered, from the first one served: a
        // restart that fetches a live bundle rolled back must not serve a lower version.
        let fresh = held.state.overrides.isEmpty && held.state.changes == 0 && held.state.served == nil && prepared.servesSourceAsIs
            && !Self.remembersServed(source, prepared.state)
        if let statePath, prepared.state != held.state, !fresh {
            do { try files.replace(path: statePath, with: prepared.stateBytes, timeout: nil) } catch {
                throw OverrideTransaction.Refusal(.write, .server, error.message)
            }
        }
        held.state = prepared.state
        held.current = Self.answers(prepared)
    }

    private func publish(_ answers: Answers) {
        for body in subscribers.withLock({ $0 }) { body(answers) }
    }

    /// A `--refetch` fetch starts only when none is running.
    private func claimDueFetch() -> Bool {
        fetching.withLock { running in
            guard case .idle = running else { return false }
            running = .due
            return true
        }
    }

    /// An asked-for fetch waits for a `--refetch` one (at most one, bounded by its timeout)
    /// and is refused while another asked-for one runs.
    private func claimAskedFetch() -> Bool {
        fetching.withLock(until: { if case .due = $0 { return false } else { return true } }) { running in
            if case .asked = running { return false }
            running = .asked
            return true
        }
    }

    private func releaseFetch() {
        fetching.withLock { $0 = .idle }
        fetching.broadcast()
    }

    // MARK: - Building

    /// Whether the served version is the server's own (see `OverrideTransaction.prepare`): for
    /// the live bundle always (it can go back or change under one version), for a file once
    /// something was changed (until then it is served as written, its version its own).
    private static func remembersServed(_ source: Source, _ state: OverrideState) -> Bool {
        if case .remote = source { return true }
        return !state.overrides.isEmpty || state.changes > 0
    }

    private static func answers(_ prepared: OverrideTransaction.Prepared) -> Answers {
        Answers(bundle: prepared.served, version: summary(prepared.served, version: prepared.version), bundleVersion: prepared.version,
                overrides: prepared.state.overrides.list, staleness: prepared.staleness)
    }

    /// `GET …/config-bundle/version`: bundle_version, sdk_min_version, size_bytes, generated_at.
    private static func summary(_ served: [UInt8], version: Int64) -> [UInt8] {
        let root = try? JSONDocument(bytes: served).root
        var summary = JSONObject()
        summary["bundle_version"] = .integer(version)
        summary["sdk_min_version"] = root?["sdk_min_version"]?.string.map { .string($0) } ?? .string("1.0.0")
        summary["size_bytes"] = .integer(served.count)
        if let generated = root?["generated_at"]?.string { summary["generated_at"] = .string(generated) }
        return JSONWriter().write(.object(summary))
    }

    /// The state with the start's overrides added, each checked against the source (64).
    private static func starting(_ loaded: OverrideState, with overrides: [BundleOverride], against document: JSONDocument,
                                 name: String) throws -> OverrideState {
        var state = loaded
        for item in overrides where !state.overrides.list.contains(item) {
            try BundleOverrides.check(item, against: document.root, name: name)
            state.overrides.set(item)
            try state.countChange()
        }
        return state
    }

    /// The start's transaction, its refusal worded for an exit status: the flags' fault 64,
    /// a bundle that cannot be served with them 65, upstream 69.
    private static func startPrepared(_ document: JSONDocument, _ bytes: [UInt8], _ version: Int64, _ state: OverrideState,
                                      name: String, remembersServed: Bool) throws -> OverrideTransaction.Prepared {
        do {
            return try OverrideTransaction.prepare(source: document, sourceBytes: bytes, sourceVersion: version, state: state, name: name,
                                                   remembersServed: remembersServed)
        } catch {
            let kind: FailureKind = error.fault == .request ? .usage : error.fault == .upstream ? .unavailable : .malformedInput
            throw Failure(kind, error.description)
        }
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
