import AppDNACore

/// The inspector's memory: the newest entries, at most `keep` of them (`--inspect-keep`) and at
/// most `maxBytes` of them (`--inspect-max-bytes`), whichever is reached first; the oldest go
/// first. Each entry holds at most `bodyBytes` of its body (and of a batch's events),
/// `answerBytes` of its answer and its headers (64 KiB at most, as the server reads them), and
/// is counted at what it holds (`InspectorEntry.heldBytes`), so 10,000 fat deliveries cost the
/// budget, not 10,000 times the largest.
///
/// Entries are kept in id order (ids are consecutive: 1, 2, 3… in the order of arrival), so
/// entry N is found at N minus the oldest kept id, without a search.
public final class InspectorLog: Sendable {
    /// The most of a request body an entry keeps (and of an event batch's events); a longer
    /// body is shown cut, and cannot be replayed from the inspector.
    public static let bodyBytes = 64 << 10
    /// The most of an answer an entry keeps.
    public static let answerBytes = 4 << 10
    /// The replay results an entry keeps (the count goes on).
    static let replaysKept = 20

    public let keep: Int
    public let maxBytes: Int
    private let state = Locked(State())

    private struct State {
        /// The kept entries, oldest first, from `head` on (slots before it were dropped and are
        /// reclaimed in batches, not one at a time).
        var slots: [InspectorEntry?] = []
        var head = 0
        /// Bytes the kept entries hold.
        var heldBytes = 0
        /// Entries recorded since the start: the id of the newest.
        var recorded = 0

        func index(of id: Int) -> Int? {
            let kept = slots.count - head
            let oldestID = recorded - kept + 1
            guard kept > 0, id >= oldestID, id <= recorded else { return nil }
            return head + (id - oldestID)
        }
    }

    public init(keep: Int, maxBytes: Int = 64 << 20) {
        precondition(keep > 0 && maxBytes > 0)
        self.keep = keep
        self.maxBytes = maxBytes
    }

    /// Keeps `entry` (dropping the oldest while over `keep` or `maxBytes`; the newest is kept
    /// whatever its size); its id.
    @discardableResult
    public func record(_ entry: InspectorEntry) -> Int {
        var entry = entry
        entry.heldBytes = entry.measuredBytes
        return state.withLock { state in
            state.recorded += 1
            entry.id = state.recorded
            state.slots.append(entry)
            state.heldBytes += entry.heldBytes
            while state.slots.count - state.head > 1 && (state.slots.count - state.head > keep || state.heldBytes > maxBytes) {
                state.heldBytes -= state.slots[state.head]?.heldBytes ?? 0
                state.slots[state.head] = nil
                state.head += 1
            }
            if state.head >= 1024 && state.head >= state.slots.count / 2 {
                state.slots.removeFirst(state.head)
                state.head = 0
            }
            return state.recorded
        }
    }

    /// How many were recorded since the start (kept or not).
    var count: Int { state.withLock { $0.recorded } }

    /// Bytes the kept entries hold now (what `maxBytes` bounds).
    var bytesHeld: Int { state.withLock { $0.heldBytes } }

    /// A page of the kept entries with `after` < id < `before`, newest first, at most `limit`;
    /// `older` is whether kept entries below the page remain (ask again with `before` set to
    /// the last id). Any numbers: nothing here adds to them.
    func page(after: Int = 0, before: Int = Int.max, limit: Int = Int.max) -> (entries: [InspectorEntry], older: Bool) {
        state.withLock { state in
            let (slots, head, recorded) = (state.slots, state.head, state.recorded)
            let kept = slots.count - head
            guard kept > 0, limit > 0 else { return ([], false) }
            let oldestID = recorded - kept + 1
            // Compared before any arithmetic: `before - 1` and `after + 1` cannot overflow here.
            guard before > oldestID, after < recorded else { return ([], false) }
            // Ids of the page: the newest below `before`, down to the oldest above `after`.
            let newest = min(recorded, before - 1)
            let oldest = max(oldestID, after + 1)
            guard oldest <= newest else { return ([], false) }
            let count = min(limit, newest - oldest + 1)
            let page = (0..<count).compactMap { slots[head + (newest - $0 - oldestID)] }
            return (page, newest - count >= oldest)
        }
    }

    /// Every kept entry with an id above `after`, newest first.
    func entries(after: Int = 0) -> [InspectorEntry] {
        page(after: after).entries
    }

    /// Entry `id`, while it is kept.
    func entry(_ id: Int) -> InspectorEntry? {
        state.withLock { state in state.index(of: id).flatMap { state.slots[$0] } }
    }

    /// Adds a replay's result to entry `id`, if it is still kept.
    func addReplay(_ result: JSONValue, to id: Int) {
        state.withLock { state in
            guard let index = state.index(of: id), var entry = state.slots[index] else { return }
            let before = entry.heldBytes
            entry.replayCount = (entry.replayCount ?? 0) + 1
            entry.replays.append(result)
            if entry.replays.count > Self.replaysKept { entry.replays.removeFirst() }
            entry.heldBytes = entry.measuredBytes
            state.heldBytes += entry.heldBytes - before
            state.slots[index] = entry
        }
    }
}
