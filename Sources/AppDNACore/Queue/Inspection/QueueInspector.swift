/// One queue file's part of the summary.
public struct QueueSourceSummary: Sendable {
    public let path: String
    /// iOS files starting with an array become `.iosNDJSON` when lines follow it.
    public var format: QueueFormat
    /// The line of a legacy array that stood first in an NDJSON file.
    public var legacyArrayLine: Int?
    public var tombstoneLines = 0
    public var live = 0, cancelled = 0, malformed = 0, truncated = 0, badEscapes = 0, unreadable = 0
    /// Bytes of the live events' JSON, as the SDK would send them.
    public var liveBytes = 0
    /// Malformed, truncated, bad-escape and unreadable findings, in file order (at most the list limit).
    public var problems: [QueueProblem] = []
    public var problemsNotListed = 0

    public static let eventCap = 10_000
    public static let byteCap = 5 * 1024 * 1024
    public var overEventCap: Bool { live > Self.eventCap }
    public var overByteCap: Bool { liveBytes > Self.byteCap }
}

/// An event the ingest API would reject, and why.
public struct RejectedEvent: Sendable {
    public let location: QueueLocation
    public let eventID: String?
    public let name: String?
    public let findings: [SchemaFinding]
}

/// A `client_seq` run missing for one device (`user.anon_id`).
public struct SequenceGap: Sendable {
    public let anonID: String
    public let from: Int64
    public let to: Int64
    public var count: Int64 { to - from + 1 }
}

/// An `event_id` carried by more than one live event.
public struct DuplicateID: Sendable {
    public let eventID: String
    public var locations: [QueueLocation]
}

/// Everything `queue inspect` reports about a set of queues.
public struct QueueSummary: Sendable {
    public var sources: [QueueSourceSummary] = []
    public let now: Int64
    public let horizon: Int64
    public var live: Int { sources.reduce(0) { $0 + $1.live } }
    public var cancelled: Int { sources.reduce(0) { $0 + $1.cancelled } }
    public var malformed: Int { sources.reduce(0) { $0 + $1.malformed } }
    public var truncated: Int { sources.reduce(0) { $0 + $1.truncated } }
    public var unreadable: Int { sources.reduce(0) { $0 + $1.unreadable } }
    public var badEscapes: Int { sources.reduce(0) { $0 + $1.badEscapes } }

    /// Live events per `event_name`, most frequent first (then by name).
    public var names: [(name: String, count: Int)] = []
    /// Live events whose name was beyond the first `QueueInspector.nameLimit` distinct names.
    public var otherNames = 0
    /// Live events without a string `event_name`.
    public var unnamed = 0

    public var oldest: Int64?
    public var newest: Int64?
    /// Live events older than the horizon (7 days before `now`): the SDK would not send them.
    public var pastHorizon = 0
    /// Live events more than an hour ahead of `now` (device clock wrong).
    public var inFuture = 0
    public var withoutTimestamp = 0

    public var users = DistinctCounter()
    public var identifiedUsers = DistinctCounter()
    public var sessions = DistinctCounter()
    public var platforms: [(name: String, count: Int)] = []
    /// "ios 1.0.70" → live events.
    public var sdkVersions: [(name: String, count: Int)] = []

    /// `client_seq` runs missing between a device's lowest and highest value (live and
    /// cancelled events both count as seen).
    public var sequenceGaps: [SequenceGap] = []
    public var gapsNotListed = 0
    public var missingSequenceNumbers: Int64 = 0
    public var devicesWithGaps = 0
    /// Events repeating a `client_seq` already seen for the device.
    public var repeatedSequenceNumbers = 0
    public var withoutSequence = 0
    /// Devices beyond `QueueInspector.deviceLimit` are not followed.
    public var devicesNotFollowed = 0

    /// `_sdk_events_dropped` events and the sum of their `properties.count`.
    public var dropEvents = 0
    public var droppedTotal: Int64 = 0

    public var duplicates: [DuplicateID] = []
    public var duplicateIDs = 0
    /// Live events beyond the first with the same id (what the server would discard).
    public var duplicateEvents = 0
    /// More repeat candidates than could be verified: the duplicate counts are a lower bound.
    public var duplicatesApproximate = false

    /// Live events with `privacy.consent.analytics` false.
    public var consentFalse = 0

    public var rejected: [RejectedEvent] = []
    public var rejectedCount = 0
    /// Findings by code over all rejected events.
    public var rejectionCodes: [(code: String, count: Int)] = []
}

/// Builds a `QueueSummary` from queues in bounded memory: counters and capped lists, a Bloom
/// filter for repeated ids (verified by a second pass over only the candidates), ranges of
/// `client_seq` per device.
public final class QueueInspector {
    public static let day: Int64 = 86_400_000
    public static let nameLimit = 1000
    public static let deviceLimit = 10_000
    public static let candidateLimit = 200_000

    let listLimit: Int
    var summary: QueueSummary
    private var names = CappedTable<Int>(limit: QueueInspector.nameLimit, initial: 0)
    private var platforms = CappedTable<Int>(limit: 100, initial: 0)
    private var versions = CappedTable<Int>(limit: 100, initial: 0)
    private var codes: [String: Int] = [:]
    private var devices = CappedTable<SequenceRanges>(limit: QueueInspector.deviceLimit, initial: SequenceRanges())
    private var bloom = IDBloomFilter()
    private var candidates: Set<UInt64> = []
    /// When set, every live event is also checked against a bundle (`queue inspect --bundle`).
    public var exposureAudit: ExposureAudit?

    public init(now: Int64, horizonDays: Int64 = 7, listLimit: Int = 1000) {
        summary = QueueSummary(now: now, horizon: now - horizonDays * Self.day)
        self.listLimit = listLimit
    }

    /// Reads every source (twice when ids may repeat) and returns the summary.
    public func inspect(_ sources: [QueueSource]) throws(Failure) -> QueueSummary {
        for source in sources {
            var part = QueueSourceSummary(path: source.path, format: source.format)
            if source.format == .iosNDJSON {
                try inspectNDJSON(source.path, into: &part)
            } else {
                try source.read { item in
                    self.add(item, to: &part)
                    return true
                }
            }
            summary.sources.append(part)
        }
        finishCounts()
        if !candidates.isEmpty { try verifyDuplicates(sources) }
        return summary
    }

    private func add(_ item: QueueItem, to part: inout QueueSourceSummary) {
        switch item {
        case .tombstone:
            part.tombstoneLines += 1
        case .legacyArray(let location):
            part.format = .iosNDJSON
            part.legacyArrayLine = location.line
        case .problem(let problem):
            switch problem.kind {
            case .malformed: part.malformed += 1
            case .truncated: part.truncated += 1
            case .badEscape: part.badEscapes += 1
            case .unreadable: part.unreadable += 1
            }
            if part.problems.count < listLimit { part.problems.append(problem) } else { part.problemsNotListed += 1 }
        case .event(let event):
            let fields = EventFields(event.root)
            track(sequence: fields)
            if event.cancelled {
                part.cancelled += 1
                return
            }
            part.live += 1
            part.liveBytes += event.byteCount
            count(fields, event: event)
            exposureAudit?.audit(event: event.root, location: event.location)
        }
    }

    private func track(sequence fields: EventFields) {
        guard let seq = fields.clientSeq else { return }
        guard let slot = devices.slot(for: fields.anonID ?? "") else { summary.devicesNotFollowed += 1; return }
        devices.values[slot].insert(seq)
    }

    private func count(_ fields: EventFields, event: QueueEvent) {
        if let name = fields.name {
            if let slot = names.slot(for: name) { names.values[slot] += 1 } else { summary.otherNames += 1 }
        } else {
            summary.unnamed += 1
        }
        if let ts = fields.timestamp {
            summary.oldest = min(summary.oldest ?? ts, ts)
            summary.newest = max(summary.newest ?? ts, ts)
            if ts < summary.horizon { summary.pastHorizon += 1 }
            if ts > summary.now + 3_600_000 { summary.inFuture += 1 }
        } else {
            summary.withoutTimestamp += 1
        }
        if let anon = fields.anonID { summary.users.insert(anon) }
        if let user = fields.userID { summary.identifiedUsers.insert(user) }
        if let session = fields.sessionID { summary.sessions.insert(session) }
        let platform = fields.platform ?? "(none)"
        if let slot = platforms.slot(for: platform) { platforms.values[slot] += 1 }
        let version = platform + " " + (fields.sdkVersion ?? "(none)")
        if let slot = versions.slot(for: version) { versions.values[slot] += 1 }
        if fields.clientSeq == nil { summary.withoutSequence += 1 }
        if fields.name == EventFields.droppedEventName {
            summary.dropEvents += 1
            summary.droppedTotal += fields.propertiesCount ?? 0
        }
        if fields.analyticsConsent == false { summary.consentFalse += 1 }
        if let id = fields.eventID {
            let hash = IDHash.hash(id)
            if bloom.insert(hash) {
                if candidates.count < Self.candidateLimit { candidates.insert(hash) } else { summary.duplicatesApproximate = true }
            }
        }
        if fields.rejected {
            summary.rejectedCount += 1
            for finding in fields.findings { codes[finding.code, default: 0] += 1 }
            if summary.rejected.count < listLimit {
                summary.rejected.append(RejectedEvent(location: event.location, eventID: fields.eventID, name: fields.name, findings: fields.findings))
            }
        }
    }

    private func finishCounts() {
        func sorted(_ pairs: [(name: String, count: Int)]) -> [(name: String, count: Int)] {
            pairs.sorted { $0.count != $1.count ? $0.count > $1.count : $0.name < $1.name }
        }
        func sorted(_ table: CappedTable<Int>) -> [(name: String, count: Int)] {
            sorted(Array(zip(table.keys, table.values)).map { (name: $0.0, count: $0.1) })
        }
        summary.names = sorted(names)
        summary.platforms = sorted(platforms)
        summary.sdkVersions = sorted(versions)
        summary.rejectionCodes = sorted(codes.map { (name: $0.key, count: $0.value) }).map { (code: $0.name, count: $0.count) }
        for (device, ranges) in zip(devices.keys, devices.values).sorted(by: { $0.0 < $1.0 }) {
            summary.repeatedSequenceNumbers += ranges.repeats
            let gaps = ranges.gaps
            guard !gaps.isEmpty else { continue }
            summary.devicesWithGaps += 1
            summary.missingSequenceNumbers += ranges.missing
            for gap in gaps {
                if summary.sequenceGaps.count < listLimit {
                    summary.sequenceGaps.append(SequenceGap(anonID: device, from: gap.from, to: gap.to))
                } else {
                    summary.gapsNotListed += 1
                }
            }
        }
        devices.removeAll()
    }

    /// Second pass: exact occurrences of the candidate ids among live events.
    private func verifyDuplicates(_ sources: [QueueSource]) throws(Failure) {
        var seen: [UInt64: DuplicateID] = [:]
        var counts: [UInt64: Int] = [:]
        func occurrence(hash: UInt64, id: @autoclosure () -> String, at location: @autoclosure () -> QueueLocation) {
            guard candidates.contains(hash) else { return }
            counts[hash, default: 0] += 1
            if seen[hash] == nil {
                seen[hash] = DuplicateID(eventID: id(), locations: [location()])
            } else if seen[hash]!.locations.count < 10 {
                seen[hash]!.locations.append(location())
            }
        }
        func item(_ item: QueueItem) -> Bool {
            guard case .event(let event) = item, !event.cancelled, let node = event.root["event_id"], let id = node.string else { return true }
            occurrence(hash: IDHash.hash(id), id: id, at: event.location)
            return true
        }
        for source in sources {
            if source.format == .iosNDJSON {
                // The same items as `read`, the ordinary events through the fast path.
                let path = source.path
                try forEachNDJSONLine(path) { record, line, number, cancelled, pending, reader in
                    switch record.kind {
                    case .blank, .oversized: break
                    case .event:
                        let f = record.fields
                        guard !cancelled(f) else { return }
                        occurrence(hash: f.idHash, id: String(decoding: UnsafeRawBufferPointer(rebasing: line[f.idStart..<(f.idStart + f.idLength)]), as: UTF8.self),
                                   at: QueueLocation(path: path, line: number))
                    case .other:
                        _ = reader(Array(line), number, &pending, item)
                    }
                }
            } else {
                try source.read(item)
            }
        }
        var duplicates: [DuplicateID] = []
        for (hash, count) in counts where count > 1 {
            summary.duplicateIDs += 1
            summary.duplicateEvents += count - 1
            duplicates.append(seen[hash]!)
        }
        // By first location, then by id: two ids first seen on one line (a legacy array line)
        // must not come out in hash order, which changes from run to run.
        duplicates.sort {
            ($0.locations[0].path, $0.locations[0].line, $0.locations[0].rowID ?? 0, $0.eventID)
                < ($1.locations[0].path, $1.locations[0].line, $1.locations[0].rowID ?? 0, $1.eventID)
        }
        summary.duplicates = Array(duplicates.prefix(listLimit))
        candidates = []
    }
}

/// One NDJSON line as a worker left it for the in-order summary.
struct QueueLineRecord {
    enum Kind: UInt8 {
        /// Only white space: nothing to count.
        case blank
        /// An event the fast path read completely (`fields`).
        case event
        /// Anything else: the general per-line path handles it.
        case other
        /// Longer than `IOSQueueReader.maxLineLength`: not read (`length` is its length).
        case oversized
    }
    var kind: Kind
    /// The line's offset in its chunk's region and its length (without `\n`, `\r`).
    var start: Int
    var length: Int
    var fields: FastEventFields
}

/// A reusable line parser per worker thread.
final class LineParserBox {
    var parser: JSONParser
    static let empty: [UInt8] = [0]

    init() {
        parser = Self.empty.withUnsafeBufferPointer { JSONParser(base: $0.baseAddress!, count: 0, contentStart: 0, options: JSONParseOptions()) }
    }

    deinit { parser.tape.discard() }

    /// The line `record` just parsed, as a document, from the same parse.
    func document(_ line: UnsafeRawBufferPointer) -> JSONDocument {
        JSONDocument(bytes: Array(line), copyingTape: parser.tape)
    }

    /// Parses one line (duplicate keys rejected, as `JSONDocument(bytes:)` does) and reads
    /// its event fields when the fast path can.
    func record(_ line: UnsafeRawBufferPointer, at offset: Int) -> QueueLineRecord {
        var record = QueueLineRecord(kind: .other, start: offset, length: line.count, fields: FastEventFields())
        guard IOSQueueReader.firstNonSpace(line) != nil else {
            record.kind = .blank
            return record
        }
        let base = line.baseAddress!.assumingMemoryBound(to: UInt8.self)
        parser.reset(base: base, count: line.count)
        do throws(JSONSyntaxError) {
            try parser.parse()
        } catch {
            return record
        }
        if record.fields.scan(parser.tape.base, base) { record.kind = .event }
        return record
    }
}

extension QueueInspector {
    static let dropped = Array(EventFields.droppedEventName.utf8)
    static let none = Array("(none)".utf8)

    /// `read` of an iOS NDJSON queue plus `add` of every item, on all cores: worker threads
    /// parse chunks of lines and read the fields of ordinary events; this thread takes the
    /// chunks in file order and counts, so the summary is exactly that of the one-line-at-a-
    /// time path (which still handles every unusual line: problems, tombstones, arrays,
    /// events with findings).
    func inspectNDJSON(_ path: String, into part: inout QueueSourceSummary) throws(Failure) {
        var scratch: [UInt8] = []
        var lastPending: IOSQueueReader.PendingLine? = nil
        try forEachNDJSONLine(path, auditing: true) { record, line, number, cancelled, pending, reader in
            if let failed = pending {
                pending = nil
                add(.problem(QueueProblem(.malformed, QueueLocation(path: path, line: failed.number), failed.message)), to: &part)
            }
            switch record.kind {
            case .blank:
                break
            case .oversized:
                add(IOSQueueReader(path: path).oversizedLine(number, length: record.length), to: &part)
            case .event:
                addFast(record.fields, line: line, cancelled: cancelled(record.fields), scratch: &scratch, to: &part)

            case .other:
                _ = reader(Array(line), number, &pending) { item in self.add(item, to: &part); return true }
            }
            lastPending = pending
        }
        if let failed = lastPending {
            let location = QueueLocation(path: path, line: failed.number)
            if IOSQueueReader(path: path).endsWithNewline() {
                add(.problem(QueueProblem(.malformed, location, failed.message)), to: &part)
            } else {
                add(.problem(QueueProblem(.truncated, location, "the last line is cut off (\(failed.count) bytes, no final newline): an append interrupted on the device; skipped")), to: &part)
            }
        }
    }

    /// The general path for one line: `IOSQueueReader.ndjsonLine` with this line's cancellation.
    typealias LineFallback = ([UInt8], Int, inout IOSQueueReader.PendingLine?, (QueueItem) -> Bool) -> Bool

    /// The lines of an iOS NDJSON queue in file order, parsed on worker threads: `body` gets
    /// each line's record, bytes and number, whether an event the fast path read is cancelled
    /// by a later tombstone, the pending unparsed line (as `read` keeps it), and the general
    /// path for lines the fast path left alone.
    func forEachNDJSONLine(_ path: String, auditing: Bool = false,
                           _ body: (QueueLineRecord, UnsafeRawBufferPointer, Int, (FastEventFields) -> Bool,
                                    inout IOSQueueReader.PendingLine?, LineFallback) -> Void) throws(Failure) {
        let reader = IOSQueueReader(path: path)
        let fd = try ChunkReading.open(path: path)
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw Failure(.ioError, "\(path): \(SystemError.describe(errno))") }
        let size = Int(info.st_size)
        let workers = ChunkPipeline.defaultWorkers

        // Pass 1: tombstones, by the file offset of the last line naming each id (offsets
        // order lines as their numbers do).
        var cancelledAt: [String: Int] = [:]
        var failure: Int32 = 0
        do {
            let first = ChunkPipeline(fd: fd, size: size, workers: workers, maxLineLength: IOSQueueReader.maxLineLength) { _, slot in
                slot.hits.removeAll(keepingCapacity: true)
                TombstoneSearch.forEachLine(containing: slot.region) { line, offset in
                    slot.hits.append((slot.fileOffset + slot.regionStart + offset, Array(line)))
                }
            }
            failure = first.run { slot in
                for hit in slot.hits {
                    guard let document = try? JSONDocument(bytes: hit.line),
                          let ids = document.root[IOSQueueReader.tombstoneKey], ids.kind == .array else { continue }
                    for id in ids.elements {
                        if let text = id.string { cancelledAt[text] = hit.offset }
                    }
                }
            }
        }
        if failure != 0 { throw Failure(.ioError, "\(path): reading input: \(SystemError.describe(failure))") }

        // Pass 2: the lines. With an exposure audit, each worker also judges the exposures of
        // the events it parsed (from its own parse), and this thread adds up the live ones.
        let parsers = (0..<workers).map { _ in LineParserBox() }
        let audit = auditing ? exposureAudit : nil
        let judges = audit.map { audit in (0..<workers).map { _ in audit.makeJudge() } }
        let second = ChunkPipeline(fd: fd, size: size, workers: workers, maxLineLength: IOSQueueReader.maxLineLength) { w, slot in
            slot.records.removeAll(keepingCapacity: true)
            slot.audits.removeAll(keepingCapacity: true)
            let box = parsers[w]
            ChunkPipeline.forEachLine(slot.region) { line, offset in
                let record = box.record(line, at: offset)
                slot.records.append(record)
                if let judges { slot.audits.append(record.kind == .event ? judges[w].judge(line: line, fields: record.fields, parsedBy: box) : nil) }
            }
        }
        var pending: IOSQueueReader.PendingLine? = nil
        var number = 0
        failure = second.run { slot in
            let region = slot.region
            let lineBase = slot.fileOffset + slot.regionStart
            for (index, record) in slot.records.enumerated() {
                number += 1
                let line = UnsafeRawBufferPointer(rebasing: region[record.start..<(record.start + record.length)])
                let lineOffset = lineBase + record.start
                let cancelled = { (f: FastEventFields) -> Bool in
                    guard !cancelledAt.isEmpty,
                          let at = cancelledAt[String(decoding: UnsafeRawBufferPointer(rebasing: line[f.idStart..<(f.idStart + f.idLength)]), as: UTF8.self)] else { return false }
                    return at > lineOffset
                }
                body(record, line, number, cancelled, &pending) { bytes, number, pending, emit in
                    reader.ndjsonLine(bytes, number: number, pending: &pending,
                                      cancelled: { id in cancelledAt[id].map { $0 > lineOffset } ?? false }, emit: emit)
                }
                if let audit, let result = slot.audits[index], !cancelled(record.fields) {
                    audit.add(result, location: QueueLocation(path: path, line: number))
                }
            }
            if let oversized = slot.oversizedLine {
                number += 1
                let record = QueueLineRecord(kind: .oversized, start: 0, length: oversized.length, fields: FastEventFields())
                body(record, UnsafeRawBufferPointer(start: nil, count: 0), number, { _ in false }, &pending) { _, _, _, _ in true }
            }
        }
        if failure != 0 { throw Failure(.ioError, "\(path): reading input: \(SystemError.describe(failure))") }
    }

    /// `add(.event(…))` for an event the fast path read: the same counts, no Strings made
    /// except for keys not seen before.
    private func addFast(_ f: FastEventFields, line: UnsafeRawBufferPointer, cancelled: Bool,
                         scratch: inout [UInt8], to part: inout QueueSourceSummary) {
        func bytes(_ start: Int, _ count: Int) -> UnsafeRawBufferPointer {
            UnsafeRawBufferPointer(rebasing: line[start..<(start + count)])
        }
        let anon = bytes(f.anonStart, f.anonLength)
        if f.hasClientSeq {
            if let slot = devices.slot(bytes: anon, hash: f.anonHash) {
                devices.values[slot].insert(f.clientSeq)
            } else {
                summary.devicesNotFollowed += 1
            }
        }
        if cancelled {
            part.cancelled += 1
            return
        }
        part.live += 1
        part.liveBytes += line.count
        let name = bytes(f.nameStart, f.nameLength)
        if let slot = names.slot(bytes: name, hash: IDHash.hash(name)) { names.values[slot] += 1 } else { summary.otherNames += 1 }
        let ts = f.timestamp
        summary.oldest = min(summary.oldest ?? ts, ts)
        summary.newest = max(summary.newest ?? ts, ts)
        if ts < summary.horizon { summary.pastHorizon += 1 }
        if ts > summary.now + 3_600_000 { summary.inFuture += 1 }
        summary.users.insert(hash: f.anonHash)
        if f.hasUser { summary.identifiedUsers.insert(hash: f.userHash) }
        if f.hasSession { summary.sessions.insert(hash: f.sessionHash) }
        scratch.removeAll(keepingCapacity: true)
        if f.platformLength >= 0 { scratch.append(contentsOf: bytes(f.platformStart, f.platformLength)) } else { scratch.append(contentsOf: Self.none) }
        let platformCount = scratch.count
        scratch.withUnsafeBytes { all in
            let platform = UnsafeRawBufferPointer(rebasing: all[0..<platformCount])
            if let slot = platforms.slot(bytes: platform, hash: IDHash.hash(platform)) { platforms.values[slot] += 1 }
        }
        scratch.append(UInt8(ascii: " "))
        if f.sdkLength >= 0 { scratch.append(contentsOf: bytes(f.sdkStart, f.sdkLength)) } else { scratch.append(contentsOf: Self.none) }
        scratch.withUnsafeBytes { version in
            if let slot = versions.slot(bytes: version, hash: IDHash.hash(version)) { versions.values[slot] += 1 }
        }
        if !f.hasClientSeq { summary.withoutSequence += 1 }
        if name.elementsEqual(Self.dropped) || (name.contains { $0 >= 0x80 } && String(decoding: name, as: UTF8.self) == EventFields.droppedEventName) {
            summary.dropEvents += 1
            summary.droppedTotal += f.hasPropertiesCount ? f.propertiesCount : 0
        }
        if f.consent == 0 { summary.consentFalse += 1 }
        if bloom.insert(f.idHash) {
            if candidates.count < Self.candidateLimit { candidates.insert(f.idHash) } else { summary.duplicatesApproximate = true }
        }
    }
}

/// Finds the lines that contain `appdna_removed` in a chunk at memory speed: eight bytes at a
/// time for `_`, then two word compares around each one (a queue has a few underscores per
/// event and, usually, no tombstones at all).
enum TombstoneSearch {
    /// Calls `body` with each line (without `\n` and a `\r` before it) containing the key, and
    /// the line's offset in `region`; lines as `LineReader` splits them.
    static func forEachLine(containing region: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer, Int) -> Void) {
        guard let base = region.baseAddress else { return }
        let n = region.count
        // "appdna_r" and "_removed" as little-endian words; the underscore is byte 6.
        let head = UnsafeRawPointer(("appdna_removed" as StaticString).utf8Start).loadUnaligned(as: UInt64.self)
        let tail = UnsafeRawPointer(("appdna_removed" as StaticString).utf8Start).loadUnaligned(fromByteOffset: 6, as: UInt64.self)
        let ones: UInt64 = 0x0101_0101_0101_0101
        let low7: UInt64 = 0x7F7F_7F7F_7F7F_7F7F
        var p = 0
        func hit(at i: Int) -> Bool {
            i >= 6 && i + 8 <= n
                && base.loadUnaligned(fromByteOffset: i - 6, as: UInt64.self) == head
                && base.loadUnaligned(fromByteOffset: i, as: UInt64.self) == tail
        }
        func report(_ i: Int) -> Int {
            var start = i - 6
            while start > 0 && base.load(fromByteOffset: start - 1, as: UInt8.self) != 10 { start -= 1 }
            var end = n
            if let newline = memchr(base + i, 10, n - i) { end = UnsafeRawPointer(newline) - base }
            var stop = end
            if stop > start && base.load(fromByteOffset: stop - 1, as: UInt8.self) == 13 { stop -= 1 }
            body(UnsafeRawBufferPointer(start: base + start, count: stop - start), start)
            return end + 1
        }
        scan: while p + 8 <= n {
            let x = base.loadUnaligned(fromByteOffset: p, as: UInt64.self) ^ (ones &* 0x5F)
            // A high bit exactly where x has a zero byte (no false positives).
            var zeros = ~(((x & low7) &+ low7) | x | low7)
            while zeros != 0 {
                let i = p + zeros.trailingZeroBitCount >> 3
                if hit(at: i) {
                    p = report(i)
                    continue scan
                }
                zeros &= zeros &- 1
            }
            p += 8
        }
        while p < n {
            if base.load(fromByteOffset: p, as: UInt8.self) == 0x5F && hit(at: p) {
                p = report(p)
                continue
            }
            p += 1
        }
    }
}
