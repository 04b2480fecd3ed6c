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
    /// iOS NDJSON queues are read through the tape fast path (`forEachNDJSONLine`, parallel,
    /// no Strings for ordinary events); off, they go through `IOSQueueReader` item by item like
    /// every other format. Both must give the same summary: `QueueInspectPathsTests` holds them
    /// to it, byte for byte, over every kind of line.
    var readsNDJSONThroughTheTape = true

    public init(now: Int64, horizonDays: Int64 = 7, listLimit: Int = 1000) {
        summary = QueueSummary(now: now, horizon: now - horizonDays * Self.day)
        self.listLimit = listLimit
    }

    /// Reads every source (twice when ids may repeat) and returns the summary.
    public func inspect(_ sources: [QueueSource]) throws(Failure) -> QueueSummary {
        for source in sources {
            var part = QueueSourceSummary(path: source.path, format: source.format)
            if source.format == .iosNDJSON && readsNDJSONThroughTheTape {
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
            case .unreadable, .notAQueue: part.unreadable += 1
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
            if source.format == .iosNDJSON && readsNDJSONThroughTheTape {
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

    deinit { parser.deallocate(keepingTape: false) }

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
        defer { SystemFile.close(fd) }
        let size: Int
        do { size = Int(try FileStatus.of(descriptor: fd).size) } catch { throw Failure(.ioError, "\(path): \(error)") }
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
