import AppDNACore
import AppDNANet

/// Sends batches to the ingest API from `concurrency` threads and records each answer: 2xx in
/// the journal (fsynced before it counts), 413 split in half down to one event, other 4xx in
/// the dead-letter file and the journal, 408/429/5xx/network errors retried by the HTTP
/// client's policy and then the end of the run (the rest stays undelivered for a re-run).
final class ReplaySender: @unchecked Sendable {
    struct Settings {
        var url: String
        var key: APIKey
        var client: HTTPClient
        /// Bound on one batch, retries included.
        var timeout: Double
        var concurrency: Int
        /// Events per second, or nil.
        var rate: Double?
        var userAgentVersion: String
    }

    struct Outcome {
        var delivered = 0
        var deadLettered = 0
        var requests = 0
        var retries = 0
        var splits = 0
        /// Dead-lettered events by status.
        var deadLetterStatuses: [Int: Int] = [:]
        /// Why the run stopped early (the first fatal error).
        var stop: HTTPError?
    }

    let settings: Settings
    let journal: ReplayJournal
    let deadLetter: DeadLetterFile
    /// Called (under the sender's lock) after each acknowledged batch with the events done so far.
    let onProgress: (Int) -> Void

    private var mutex = pthread_mutex_t()
    private var changed = pthread_cond_t()
    private var pending: [ReplayBatch] = []
    private var pendingStart = 0
    private var producerDone = false
    private var outcome = Outcome()
    private var nextSlot: Int64 = 0
    private var threads: [pthread_t] = []

    init(settings: Settings, journal: ReplayJournal, deadLetter: DeadLetterFile, onProgress: @escaping (Int) -> Void) {
        self.settings = settings
        self.journal = journal
        self.deadLetter = deadLetter
        self.onProgress = onProgress
        pthread_mutex_init(&mutex, nil)
        pthread_cond_init(&changed, nil)
    }

    deinit {
        pthread_cond_destroy(&changed)
        pthread_mutex_destroy(&mutex)
    }

    func start() {
        for _ in 0..<settings.concurrency {
            threads.append(ThreadSpawner.spawn { [self] in work() })
        }
    }

    /// Queues a batch, waiting while `concurrency` batches already wait. False once the run stops.
    func submit(_ batch: ReplayBatch) -> Bool {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        while pending.count - pendingStart >= settings.concurrency && outcome.stop == nil {
            pthread_cond_wait(&changed, &mutex)
        }
        guard outcome.stop == nil else { return false }
        pending.append(batch)
        pthread_cond_broadcast(&changed)
        return true
    }

    var stopped: Bool {
        pthread_mutex_lock(&mutex)
        defer { pthread_mutex_unlock(&mutex) }
        return outcome.stop != nil
    }

    /// No more batches: waits for the in-flight ones and returns what happened.
    func finish() -> Outcome {
        pthread_mutex_lock(&mutex)
        producerDone = true
        pthread_cond_broadcast(&changed)
        pthread_mutex_unlock(&mutex)
        for thread in threads { pthread_join(thread, nil) }
        threads = []
        return outcome
    }

    private func work() {
        while true {
            pthread_mutex_lock(&mutex)
            while pendingStart == pending.count && !producerDone && outcome.stop == nil {
                pthread_cond_wait(&changed, &mutex)
            }
            if outcome.stop != nil || pendingStart == pending.count {
                pthread_mutex_unlock(&mutex)
                return
            }
            let batch = pending[pendingStart]
            pendingStart += 1
            if pendingStart > 256 && pendingStart * 2 > pending.count {
                pending.removeFirst(pendingStart)
                pendingStart = 0
            }
            pthread_cond_broadcast(&changed)
            pthread_mutex_unlock(&mutex)
            deliver(batch)
        }
    }

    private func stop(_ error: HTTPError) {
        pthread_mutex_lock(&mutex)
        if outcome.stop == nil { outcome.stop = error }
        pthread_cond_broadcast(&changed)
        pthread_mutex_unlock(&mutex)
    }

    /// Waits for the batch's turn under --rate.
    private func pace(_ events: Int) {
        guard let rate = settings.rate else { return }
        pthread_mutex_lock(&mutex)
        let now = Deadline.now()
        let start = max(now, nextSlot)
        nextSlot = start + Int64(Double(events) / rate * 1e9)
        pthread_mutex_unlock(&mutex)
        if start > now { HTTPClient.realSleep(Double(start - now) / 1e9) }
    }

    /// The most of an ingest answer kept (for the dead-letter file); the rest is dropped as it
    /// arrives, so a server answering with gigabytes costs no memory.
    static let keptResponseBytes = 4096

    private func deliver(_ batch: ReplayBatch) {
        if stopped || Interruption.signal != 0 { return }
        pace(batch.events.count)
        let what = "POST \(settings.url)"
        let response: HTTPResponse
        do {
            let body = try RawDeflate.compress(batch.body)
            let request = HTTPRequest(method: "POST", url: settings.url, headers: [
                ("x-api-key", settings.key.secret),
                ("Content-Type", "application/json"),
                ("Content-Encoding", "deflate"),
                ("x-sdk-version", batch.group.sdkVersion),
                ("x-sdk-platform", batch.group.platform),
                ("Accept", "application/json"),
            ], body: body, keepBodyBytes: Self.keptResponseBytes)
            response = try settings.client.send(request, deadline: Deadline(secondsFromNow: settings.timeout))
        } catch {
            count(requests: 1, retries: 0)
            stop(error)
            return
        }
        count(requests: response.attempts, retries: response.attempts - 1)
        let status = response.status
        switch status {
        case 200...299:
            do {
                try journal.record(deadLetter: false, status: status, ids: batch.events.map(\.id))
            } catch {
                stop(HTTPError(error.kind, error.message, hint: error.hint))
                return
            }
            pthread_mutex_lock(&mutex)
            outcome.delivered += batch.events.count
            onProgress(outcome.delivered + outcome.deadLettered)
            pthread_mutex_unlock(&mutex)
        case 413 where batch.events.count > 1:
            pthread_mutex_lock(&mutex)
            outcome.splits += 1
            pthread_mutex_unlock(&mutex)
            let half = batch.events.count / 2
            deliver(ReplayBatch(group: batch.group, events: Array(batch.events[..<half])))
            deliver(ReplayBatch(group: batch.group, events: Array(batch.events[half...])))
        case 401, 403, 408, 429:
            stop(HTTPStatus.error(for: response, what: what))
        case 400...499:
            deadLetter(batch, response: response)
        default:
            stop(HTTPStatus.error(for: response, what: what))
        }
    }

    private func count(requests: Int, retries: Int) {
        pthread_mutex_lock(&mutex)
        outcome.requests += requests
        outcome.retries += retries
        pthread_mutex_unlock(&mutex)
    }

    /// Writes the events to the dead-letter file (fsynced), then the journal.
    private func deadLetter(_ batch: ReplayBatch, response: HTTPResponse) {
        // The key's text never reaches the file, even from a gateway that echoes the request.
        let reply = String(decoding: settings.key.redacting(Array(response.body.prefix(Self.keptResponseBytes))), as: UTF8.self)
        let at = Timestamp.iso8601(milliseconds: QueueInspectCommand.currentMilliseconds())
        var lines: [UInt8] = []
        for event in batch.events {
            var object = QueueInspectReport.locationJSON(event.location)
            object["event_id"] = .string(event.id)
            object["status"] = .integer(response.status)
            object["response"] = .string(reply)
            object["dead_lettered_at"] = .string(at)
            var bytes = JSONWriter().write(.object(object))
            bytes.removeLast()
            bytes.append(contentsOf: ",\"event\":".utf8)
            if event.bytes.contains(10) || event.bytes.contains(13), let value = try? JSONValue(parsing: event.bytes) {
                var compact = JSONWriter().write(value)
                if compact.last == 10 { compact.removeLast() }
                bytes.append(contentsOf: compact)
            } else {
                bytes.append(contentsOf: event.bytes)
            }
            bytes.append(contentsOf: "}\n".utf8)
            lines.append(contentsOf: bytes)
        }
        do {
            try deadLetter.append(lines)
            try journal.record(deadLetter: true, status: response.status, ids: batch.events.map(\.id))
        } catch {
            stop(HTTPError(error.kind, error.message, hint: error.hint))
            return
        }
        pthread_mutex_lock(&mutex)
        outcome.deadLettered += batch.events.count
        outcome.deadLetterStatuses[response.status, default: 0] += batch.events.count
        onProgress(outcome.delivered + outcome.deadLettered)
        pthread_mutex_unlock(&mutex)
    }
}
