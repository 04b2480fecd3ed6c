import AppDNACore
import AppDNANet

/// The sending pass of `queue replay`: streams the queues again, makes the same decisions as
/// the plan, cuts batches and sends them from `settings.concurrency` threads through the API
/// client, recording each answer: 2xx in the journal (fsynced before it counts), 413 split in
/// half down to one event, other 4xx in the dead-letter file and the journal, and 401/403,
/// 408/429 or 5xx and network errors after the client's retries end the run (the rest stays
/// undelivered for a re-run). It prints nothing: the caller renders the outcome.
///
/// Its seams: the client's transport (curl, or a scripted one in tests), the client's clock
/// (retry waits, `--rate` pacing, timings) and `interruption` (SIGINT/SIGTERM). One engine
/// sends once.
public final class ReplayEngine: Sendable {
    public let api: AppDNAAPI
    public let settings: ReplaySettings
    let journal: ReplayJournal
    let deadLetter: DeadLetterFile
    /// The signal that stopped the run, or 0 (`Interruption.signal` in production).
    let interruption: @Sendable () -> Int32
    /// Called after each answered batch with the events delivered or dead-lettered so far
    /// (from the sending threads, one call at a time).
    let onProgress: @Sendable (Int) -> Void

    private var clock: any Clock { api.client.clock }
    /// What the producer and the sending threads share; broadcast when a batch is handed over
    /// or taken, and when the run stops or ends.
    private let run = Locked(Run())

    /// The batches handed over and not yet taken, whether more may come, the outcome so far,
    /// and the earliest start of the next batch under the rate.
    private struct Run {
        var pending: [ReplayBatch] = []
        var pendingStart = 0
        var producerDone = false
        var outcome = ReplayOutcome()
        var nextSlot: Int64 = 0
    }

    public init(api: AppDNAAPI, settings: ReplaySettings, journal: ReplayJournal, deadLetter: DeadLetterFile,
                interruption: @escaping @Sendable () -> Int32 = { Interruption.signal },
                onProgress: @escaping @Sendable (Int) -> Void = { _ in }) {
        self.api = api
        self.settings = settings
        self.journal = journal
        self.deadLetter = deadLetter
        self.interruption = interruption
        self.onProgress = onProgress
    }

    /// Takes the state directory's lock (75 when another replay holds it), re-reads the journal
    /// under it (another run may have finished meanwhile), and sends what is left to send.
    public func send(_ sources: [QueueSource]) throws(Failure) -> ReplayOutcome {
        try journal.openForWriting()
        _ = try journal.reloaded()
        let started = clock.monotonicNanoseconds()
        let threads = (0..<settings.concurrency).map { _ in ThreadSpawner.spawn { [self] in work() } }
        var toSend = 0
        var failure: Failure?
        do {
            toSend = try submitAll(sources)
        } catch {
            failure = error
        }
        run.withLock { run in
            run.producerDone = true
            self.run.broadcast()
        }
        for thread in threads { thread.join() }
        if let failure { throw failure }
        var result = run.withLock { $0.outcome }
        result.toSend = toSend
        result.seconds = Double(clock.monotonicNanoseconds() - started) / 1e9
        result.interruptedBy = interruption()
        return result
    }

    /// Streams the queues, hands every full batch to the threads, then the partly filled ones;
    /// returns how many events were to send. Stops handing over when the run stops.
    private func submitAll(_ sources: [QueueSource]) throws(Failure) -> Int {
        var classifier = settings.classifier(journal: journal)
        var batcher = ReplayBatcher(size: settings.batchSize)
        var toSend = 0
        var submitting = true
        for source in sources where interruption() == 0 {
            try source.read { item in
                if interruption() != 0 { submitting = false; return false }
                guard case .event(let event) = item else { return true }
                guard case .send(let replayEvent, let group) = classifier.decide(event, source: source) else { return true }
                toSend += 1
                if submitting, let batch = batcher.add(replayEvent, group: group) {
                    submitting = submit(batch)
                }
                return true
            }
        }
        for batch in batcher.finish() where submitting {
            submitting = submit(batch)
        }
        return toSend
    }

    /// Hands a batch over, waiting while `concurrency` batches already wait. False once the
    /// run stopped.
    private func submit(_ batch: ReplayBatch) -> Bool {
        run.withLock(until: { $0.pending.count - $0.pendingStart < settings.concurrency || $0.outcome.stop != nil }) { run in
            guard run.outcome.stop == nil else { return false }
            run.pending.append(batch)
            self.run.broadcast()
            return true
        }
    }

    /// One sending thread: takes batches until none is left or the run stopped.
    private func work() {
        while let batch = take() {
            deliver(batch)
        }
    }

    private func take() -> ReplayBatch? {
        run.withLock(until: { $0.pendingStart < $0.pending.count || $0.producerDone || $0.outcome.stop != nil }) { run in
            if run.outcome.stop != nil || run.pendingStart == run.pending.count { return nil }
            let batch = run.pending[run.pendingStart]
            run.pendingStart += 1
            if run.pendingStart > 256 && run.pendingStart * 2 > run.pending.count {
                run.pending.removeFirst(run.pendingStart)
                run.pendingStart = 0
            }
            self.run.broadcast()
            return batch
        }
    }

    private var stopped: Bool { run.withLock { $0.outcome.stop != nil } }

    /// Ends the run: the first error is the one reported.
    private func stop(_ error: HTTPError) {
        run.withLock { run in
            if run.outcome.stop == nil { run.outcome.stop = error }
            self.run.broadcast()
        }
    }

    /// Waits for the batch's turn under --rate.
    private func pace(_ events: Int) {
        guard let rate = settings.rate else { return }
        let (now, start): (Int64, Int64) = run.withLock { run in
            let now = clock.monotonicNanoseconds()
            let start = max(now, run.nextSlot)
            run.nextSlot = start + Int64(Double(events) / rate * 1e9)
            return (now, start)
        }
        if start > now { clock.sleep(Double(start - now) / 1e9) }
    }

    /// Sends one batch and records the answer. Where a batch is sent.
    private func deliver(_ batch: ReplayBatch) {
        if stopped || interruption() != 0 { return }
        pace(batch.events.count)
        let response: HTTPResponse
        do {
            response = try api.postEvents(batch.body, platform: batch.group.platform, sdkVersion: batch.group.sdkVersion,
                                          deadline: Deadline(secondsFromNow: settings.timeout, clock: clock))
        } catch {
            count(requests: 1, retries: 0)
            stop(error)
            return
        }
        count(requests: response.attempts, retries: response.attempts - 1)
        switch response.status {
        case 200...299:
            record(batch, response: response, deadLetter: false)
        case 413 where batch.events.count > 1:
            run.withLock { $0.outcome.splits += 1 }
            let half = batch.events.count / 2
            deliver(ReplayBatch(group: batch.group, events: Array(batch.events[..<half])))
            deliver(ReplayBatch(group: batch.group, events: Array(batch.events[half...])))
        case 401, 403, 408, 429:
            stop(HTTPStatus.error(for: response, what: "POST \(api.url(AppDNAAPI.ingestPath))"))
        case 400...499:
            record(batch, response: response, deadLetter: true)
        default:
            stop(HTTPStatus.error(for: response, what: "POST \(api.url(AppDNAAPI.ingestPath))"))
        }
    }

    private func count(requests: Int, retries: Int) {
        run.withLock { run in
            run.outcome.requests += requests
            run.outcome.retries += retries
        }
    }

    /// An answer for good: a dead-lettered batch goes to the dead-letter file first (fsynced),
    /// then every batch to the journal; only then does it count.
    private func record(_ batch: ReplayBatch, response: HTTPResponse, deadLetter isDeadLetter: Bool) {
        do {
            if isDeadLetter {
                try deadLetter.append(DeadLetterRecord.lines(batch, response: response, key: api.key, at: clock.wallMilliseconds()))
            }
            try journal.record(deadLetter: isDeadLetter, status: response.status, ids: batch.events.map(\.id))
        } catch {
            stop(HTTPError(error.kind, error.message, hint: error.hint, remedy: error.remedy))
            return
        }
        run.withLock { run in
            if isDeadLetter {
                run.outcome.deadLettered += batch.events.count
                run.outcome.deadLetterStatuses[response.status, default: 0] += batch.events.count
            } else {
                run.outcome.delivered += batch.events.count
            }
            onProgress(run.outcome.delivered + run.outcome.deadLettered)
        }
    }
}
