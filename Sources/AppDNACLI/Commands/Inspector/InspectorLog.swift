import AppDNACore

/// The inspector's memory: the last `keep` entries (`--inspect-keep`), never the whole history.
/// Entry N lives in slot (N - 1) mod keep, so recording the next one overwrites the oldest, and
/// an entry is found by its id without a search. Each entry holds at most `bodyBytes` of its
/// body (and of a batch's events), `answerBytes` of its answer and its headers (64 KiB at most,
/// as the server reads them), so the whole log is bounded by `keep` times that.
final class InspectorLog: @unchecked Sendable {
    /// The most of a request body an entry keeps (and of an event batch's events); a longer
    /// body is shown cut, and cannot be replayed from the inspector.
    static let bodyBytes = 64 << 10
    /// The most of an answer an entry keeps.
    static let answerBytes = 4 << 10
    /// The replay results an entry keeps (the count goes on).
    static let replaysKept = 20

    let keep: Int
    private let lock = PthreadLock()
    private var slots: [InspectorEntry] = []
    /// Entries recorded since the start: the id of the newest.
    private var recorded = 0

    init(keep: Int) {
        precondition(keep > 0)
        self.keep = keep
    }

    /// Keeps `entry` (dropping the oldest when `keep` are kept); its id.
    @discardableResult
    func record(_ entry: InspectorEntry) -> Int {
        var entry = entry
        return lock.locked {
            recorded += 1
            entry.id = recorded
            let slot = (recorded - 1) % keep
            if slot == slots.count { slots.append(entry) } else { slots[slot] = entry }
            return recorded
        }
    }

    /// How many were recorded since the start (kept or not).
    var count: Int { lock.locked { recorded } }

    /// The entries kept with an id above `after`, newest first.
    func entries(after: Int = 0) -> [InspectorEntry] {
        lock.locked {
            let oldest = max(recorded - slots.count + 1, after + 1, 1)
            guard oldest <= recorded else { return [] }
            return (oldest...recorded).reversed().map { slots[($0 - 1) % keep] }
        }
    }

    /// Entry `id`, while it is kept.
    func entry(_ id: Int) -> InspectorEntry? {
        lock.locked { isKept(id) ? slots[(id - 1) % keep] : nil }
    }

    /// Adds a replay's result to entry `id`, if it is still kept.
    func addReplay(_ result: JSONValue, to id: Int) {
        lock.locked {
            guard isKept(id) else { return }
            let slot = (id - 1) % keep
            slots[slot].replayCount = (slots[slot].replayCount ?? 0) + 1
            slots[slot].replays.append(result)
            if slots[slot].replays.count > Self.replaysKept { slots[slot].replays.removeFirst() }
        }
    }

    private func isKept(_ id: Int) -> Bool {
        id >= 1 && id <= recorded && id > recorded - slots.count
    }
}
