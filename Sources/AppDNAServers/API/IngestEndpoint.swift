import AppDNACore
import AppDNANet

/// `POST /api/v1/ingest/events` as the platform documents it (platform facts §4): the body is
/// `{"batch": [Event, …]}` compressed with raw DEFLATE despite `Content-Encoding: deflate`,
/// each event follows the schema (`EventFields`, the check `queue inspect` and `replay` use),
/// and the server keeps one copy per `event_id`. New events are appended to the record file.
public final class IngestEndpoint: Sendable {
    /// An ingest body inflates to at most this much (the SDK's whole queue is capped at 5 MB,
    /// a batch of 10,000 large events stays far below it); inflating stops there, so a deflate
    /// bomb costs this much memory, not what it would expand to, and is answered 413.
    public static let maxInflatedBytes = 64 << 20
    /// The largest compressed body `api serve` reads (larger ones get 413 unread).
    public static let maxBodyBytes = 64 << 20
    /// What `api serve` holds at once for all its requests (`HTTPServer.Limits.maxBufferedBytes`,
    /// at most a quarter of `ulimit -v`): bodies arriving and in hand, and every byte a batch
    /// makes the handler hold (`HeldBytes`): one batch that inflates to 54 MB holds about 380 MB
    /// with its parse and audit, so one such batch at a time fits.
    public static let heldBytes = 512 << 20

    private let recorder: DeliveryRecorder?
    /// The server's buffered-bytes budget, which each batch draws on as it is inflated, parsed
    /// and audited.
    private let budget: HTTPServer
    /// The event ids already accepted.
    private let seen = Locked(Set<[UInt8]>())
    /// The bundle being served at this moment, which new events' exposures are audited against
    /// (nil: no audit).
    private let servedBundle: (@Sendable () -> JSONDocument?)?
    /// The bundles served or written, by version (what an event's bundle_version names).
    private let history: BundleHistory?

    public init(recorder: DeliveryRecorder?, budget: HTTPServer, servedBundle: (@Sendable () -> JSONDocument?)? = nil, history: BundleHistory? = nil) {
        self.history = history
        self.recorder = recorder
        self.budget = budget
        self.servedBundle = servedBundle
    }

    /// The answer to one batch: taken (200 `{"accepted": N, "duplicates": D}`), or refused.
    func receive(_ request: HTTPServer.Request) -> ServeOutcome.Answer {
        func refuse(_ refusal: IngestRefusal) -> ServeOutcome.Answer {
            var response = ServeOutcome.jsonError(refusal.status, refusal.message)
            response.headers += refusal.headers
            return ServeOutcome.Answer(endpoint: .events, response: response, result: .refused(.ingest(refusal)))
        }
        // Every byte the batch makes this handler hold is taken from the server's budget before
        // it is allocated (issue 49), and given back when the answer is dropped.
        let held = HeldBytes(from: budget, request: request.body.count)
        func take(_ bytes: Int, for what: String) -> ServeOutcome.Answer? {
            do { try held.take(bytes) } catch {
                return refuse(error == .busy ? .busy(what, bytes: bytes) : .overBudget(what, bytes: bytes, budget: held.limit))
            }
            return nil
        }
        let encoding = request.head.value(of: "Content-Encoding")?.lowercased()
        let json: [UInt8]
        let nodeBound: Int
        switch encoding {
        case "deflate":
            // Measured first (inflated through a small buffer, kept nowhere), then inflated once
            // into memory of that size, taken from the budget before it is allocated.
            let measured: RawDeflate.Measure
            do {
                measured = try RawDeflate.measure(request.body, limit: Self.maxInflatedBytes)
                if let refusal = take(measured.bytes, for: "the inflated body") { return refusal }
                json = try RawDeflate.inflate(request.body, measured: measured)
            } catch .overLimit {
                return refuse(.inflatedOverLimit(Self.maxInflatedBytes))
            } catch {
                // A zlib header (0x78) is the usual mistake: deflate as HTTP names it, not as the SDK sends it.
                return refuse(.notRawDeflate(zlibHeader: request.body.first == 0x78))
            }
            nodeBound = measured.nodeBound
        case nil, "identity":
            json = request.body
            nodeBound = JSONNodeBound.of(json)
        default:
            return refuse(.unsupportedEncoding(encoding!))
        }
        // The parse: 16 bytes a node, a tape made at the bound at once (never grown and copied).
        let (tapeBytes, tapeOverflow) = nodeBound.multipliedReportingOverflow(by: JSONNodeBound.bytesPerNode)
        if let refusal = take(tapeOverflow ? Int.max : tapeBytes, for: "parsing the batch") { return refusal }
        // The lines: each event's bytes copied once, and once more joined for the record file.
        if let refusal = take(json.count * (recorder == nil ? 1 : 2), for: "the batch's events") { return refusal }
        var options = JSONParseOptions()
        options.tapeNodes = nodeBound
        let document: JSONDocument
        do { document = try JSONDocument(bytes: json, options: options) } catch {
            return refuse(.notJSON(error.message))
        }
        guard let batch = document.root["batch"], batch.kind == .array else {
            return refuse(.notABatch(namedEvents: document.root["events"] != nil))
        }
        var lines: [[UInt8]] = []
        var ids: [[UInt8]] = []
        for (index, event) in batch.elements.enumerated() {
            let fields = EventFields(event)
            if let finding = fields.findings.first {
                return refuse(.invalidEvent(index: index, pointer: finding.pointer, message: finding.message))
            }
            ids.append(Array(fields.eventID!.utf8))
            lines.append(Self.line(event, document))
        }
        // The audit's working set, taken before any event is accepted (a refusal then changes nothing).
        if servedBundle != nil, let refusal = take(BatchAudit.workingSet(events: ids.count, nodeBound: nodeBound), for: "auditing the batch's exposures") {
            return refusal
        }
        var isNew: [Bool] = []
        let accepted: [[UInt8]] = seen.withLock { seen in
            var fresh: [[UInt8]] = []
            for (id, line) in zip(ids, lines) {
                isNew.append(seen.insert(id).inserted)
                if isNew.last! { fresh.append(line) }
            }
            return fresh
        }
        if let recorder, !accepted.isEmpty, let problem = recorder.append(line: Array(accepted.joined())) {
            // Not acknowledged: the client sends the batch again.
            seen.withLock { seen in for id in ids { seen.remove(id) } }
            return refuse(.notRecorded(problem))
        }
        let duplicates = ids.count - accepted.count
        let platform = request.head.value(of: "x-sdk-platform").map { " \($0)" } ?? ""
        let version = request.head.value(of: "x-sdk-version").map { " \($0)" } ?? ""
        var audit: BatchAudit? = nil
        if let bundle = servedBundle?() {
            // New events only: a duplicate was audited when it first came.
            let events = zip(batch.elements, isNew).enumerated().compactMap { $0.element.1 ? ($0.offset, $0.element.0) : nil }
            audit = BatchAudit(events, against: bundle, history: history.map { history in { history.bundle($0) } })
        }
        let taken = ServeOutcome.AcceptedBatch(received: ids.count, accepted: accepted.count, sdk: platform + version,
                                               events: zip(lines, isNew).map { (bytes: $0, duplicate: !$1) }, audit: audit)
        return ServeOutcome.Answer(
            endpoint: .events,
            response: HTTPServer.Response(status: 200, headers: [("Content-Type", "application/json")],
                                          body: JSONWriter().write(["accepted": .integer(accepted.count), "duplicates": .integer(duplicates)]) + [0x0A]),
            result: .batch(taken), held: held)
    }

    /// The event's exact bytes as one line, or re-written when they span lines.
    static func line(_ event: JSONNode, _ document: JSONDocument) -> [UInt8] {
        let bytes = document.withBytes { Array($0[event.byteRange]) }
        if !bytes.contains(0x0A) && !bytes.contains(0x0D) { return bytes + [0x0A] }
        return JSONWriter().write(event.value) + [0x0A]
    }
}
