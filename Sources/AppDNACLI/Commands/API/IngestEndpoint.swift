import AppDNACore
import AppDNANet

/// `POST /api/v1/ingest/events` as the platform documents it (platform facts §4): the body is
/// `{"batch": [Event, …]}` compressed with raw DEFLATE despite `Content-Encoding: deflate`,
/// each event follows the schema (`EventFields`, the check `queue inspect` and `replay` use),
/// and the server keeps one copy per `event_id`. New events are appended to the record file.
final class IngestEndpoint: Sendable {
    /// An ingest body inflates to at most this much (the SDK's whole queue is capped at 5 MB,
    /// a batch of 10,000 large events stays far below it); inflating stops there, so a deflate
    /// bomb costs this much memory, not what it would expand to, and is answered 413.
    static let maxInflatedBytes = 64 << 20
    /// The largest compressed body `api serve` reads (larger ones get 413 unread).
    static let maxBodyBytes = 64 << 20

    private let recorder: DeliveryRecorder?
    /// The event ids already accepted.
    private let seen = Locked(Set<[UInt8]>())
    /// The bundle being served at this moment, which new events' exposures are audited against
    /// (nil: no audit).
    private let servedBundle: (@Sendable () -> JSONDocument?)?
    /// The bundles served or written, by version (what an event's bundle_version names).
    private let history: BundleHistory?

    init(recorder: DeliveryRecorder?, servedBundle: (@Sendable () -> JSONDocument?)? = nil, history: BundleHistory? = nil) {
        self.history = history
        self.recorder = recorder
        self.servedBundle = servedBundle
    }

    func receive(_ request: HTTPServer.Request) -> ServeAnswer {
        func refuse(_ status: Int, _ why: String) -> ServeAnswer {
            ServeAnswer(response: ServeAnswer.jsonError(status, why), endpoint: "events", note: why)
        }
        let encoding = request.head.value(of: "Content-Encoding")?.lowercased()
        let json: [UInt8]
        switch encoding {
        case "deflate":
            do {
                json = try RawDeflate.inflate(request.body, limit: Self.maxInflatedBytes)
            } catch .overLimit {
                return refuse(413, "inflated body over \(NumberText.binarySize(Self.maxInflatedBytes))")
            } catch {
                // A zlib header (0x78) is the usual mistake: deflate as HTTP names it, not as the SDK sends it.
                let zlib = request.body.first == 0x78 ? " (it has a zlib header: the SDK sends raw DEFLATE, RFC 1951, without one)" : ""
                return refuse(400, "the body is not raw DEFLATE\(zlib)")
            }
        case nil, "identity":
            json = request.body
        default:
            return refuse(415, "Content-Encoding \(encoding!) is not what the SDK sends (deflate)")
        }
        let document: JSONDocument
        do { document = try JSONDocument(bytes: json) } catch {
            return refuse(400, "the body is not JSON: \(error.message)")
        }
        guard let batch = document.root["batch"], batch.kind == .array else {
            let events = document.root["events"] != nil ? " (\"events\" is the documented name; the SDK sends \"batch\")" : ""
            return refuse(400, "the body is not {\"batch\": [events]}\(events)")
        }
        var lines: [[UInt8]] = []
        var ids: [[UInt8]] = []
        for (index, event) in batch.elements.enumerated() {
            let fields = EventFields(event)
            if let finding = fields.findings.first {
                return refuse(400, "batch[\(index)]\(finding.pointer): \(finding.message)")
            }
            ids.append(Array(fields.eventID!.utf8))
            lines.append(Self.line(event, document))
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
            return refuse(500, problem)
        }
        let duplicates = ids.count - accepted.count
        let platform = request.head.value(of: "x-sdk-platform").map { " \($0)" } ?? ""
        let version = request.head.value(of: "x-sdk-version").map { " \($0)" } ?? ""
        var answer = ServeAnswer(
            response: HTTPServer.Response(status: 200, headers: [("Content-Type", "application/json")],
                                          body: JSONWriter().write(["accepted": .integer(accepted.count), "duplicates": .integer(duplicates)]) + [0x0A]),
            endpoint: "events",
            note: "\(ids.count) event\(ids.count == 1 ? "" : "s"), \(duplicates) duplicate\(duplicates == 1 ? "" : "s")\(platform)\(version)")
        answer.events = accepted.count
        answer.duplicates = duplicates
        answer.batch = zip(lines, isNew).map { (bytes: $0, duplicate: !$1) }
        if let bundle = servedBundle?() {
            // New events only: a duplicate was audited when it first came.
            let events = zip(batch.elements, isNew).enumerated().compactMap { $0.element.1 ? ($0.offset, $0.element.0) : nil }
            answer.audit = BatchAudit(events, against: bundle, history: history.map { history in { history.bundle($0) } })
        }
        return answer
    }

    /// The event's exact bytes as one line, or re-written when they span lines.
    static func line(_ event: JSONNode, _ document: JSONDocument) -> [UInt8] {
        let bytes = document.withBytes { Array($0[event.byteRange]) }
        if !bytes.contains(0x0A) && !bytes.contains(0x0D) { return bytes + [0x0A] }
        return JSONWriter().write(event.value) + [0x0A]
    }
}
