/// How far a parse running on one thread has got, for threads that read the document while it
/// is parsed (the `JSONParseObserver` of `bundle validate`'s runner: the parser reports, this
/// keeps the lock, the readers and the waiting): `bundle validate` checks the experiments of a big bundle that the parse has
/// already closed while the parse goes on (a third of its time was checking after parsing).
///
/// Every so often, when it closes an array or object near the top of the document, the parser
/// publishes how many tape nodes it has written and which containers are still open. Every node
/// below that count is then final except those open containers (their end and next are written
/// when they close): a reader reads only such nodes, after taking the lock the publication was
/// made under, so it sees exactly what the parser wrote. The parser publishes only where no
/// open container can later drop its children (`JSONParseOptions.keepChildrenAboveDepth`), so
/// no published node is ever rewritten; and the tape is reserved at the largest size the input
/// can need, so it never moves (`JSONTapeBuilder(reservingFor:)`).
///
/// Readers register with `enter()` before the parse starts and `leave()` when done: a parse that
/// fails waits for them to leave before it frees the tape.
///
/// Unchecked because readers read the tape's raw nodes while the parser writes others: what
/// makes that safe is the publication protocol above (under `lock`), which a `Locked` box
/// cannot express (the nodes are not in the box; the box would cost the parser a copy).
final class JSONParseProgress: JSONParseObserver, @unchecked Sendable {
    /// The open containers at a publication (the parser's report).
    typealias OpenContainers = JSONOpenContainers

    enum State { case parsing, finished, failed }

    let lock = PthreadLock()
    let changed = PthreadCondition()
    /// Guarded by `lock`. Nodes below `count` are final except `open`'s.
    private(set) var count = 0
    private(set) var open = OpenContainers()
    private(set) var state = State.parsing
    /// Where the tape is and how many nodes it can hold, once the parse has started.
    private(set) var tape: (base: UnsafePointer<JSONTapeNode>, capacity: Int)?
    private var readers = 0
    /// Bumped on every change, so a waiter can tell something happened.
    private(set) var generation = 0

    // MARK: The parser's side

    func started(tape base: UnsafePointer<JSONTapeNode>, capacity: Int) {
        lock.locked {
            tape = (base, capacity)
            generation += 1
        }
        changed.broadcast()
    }

    func publish(count: Int, open: OpenContainers) {
        lock.locked {
            self.count = count
            self.open = open
            generation += 1
        }
        changed.broadcast()
    }

    /// The whole tape (`count` nodes) is final.
    func finished(count: Int) {
        lock.locked {
            guard state == .parsing else { return }  // it never started (no tape reserved)
            self.count = count
            open = OpenContainers()
            state = .finished
            generation += 1
        }
        changed.broadcast()
    }

    /// The parse failed, or will publish nothing (no tape that never moves could be reserved):
    /// nothing more comes. Returns once every reader has left, so the caller may free the tape.
    func failed() {
        lock.locked {
            state = .failed
            generation += 1
        }
        changed.broadcast()
        lock.locked { while readers > 0 { lock.wait(changed) } }
    }

    // MARK: The readers' side

    /// Registers a reader; call before the parse can fail (before it starts).
    func enter() { lock.locked { readers += 1 } }

    /// A reader will read no more nodes.
    func leave() {
        lock.locked {
            readers -= 1
            generation += 1
        }
        changed.broadcast()
    }

    /// What a reader sees at one moment.
    struct Snapshot {
        let generation: Int
        let count: Int
        let open: OpenContainers
        let state: State
        let tape: (base: UnsafePointer<JSONTapeNode>, capacity: Int)?
    }

    /// The state once it differs from generation `seen` (at once if it already does).
    func snapshot(after seen: Int) -> Snapshot {
        lock.locked {
            wait(untilAfter: seen)
            return Snapshot(generation: generation, count: count, open: open, state: state, tape: tape)
        }
    }

    /// Inside `lock.locked`: waits until something changes.
    func waitForChange() { wait(untilAfter: generation) }

    /// Inside `lock.locked`: waits until the generation is past `seen`.
    private func wait(untilAfter seen: Int) {
        while generation == seen { lock.wait(changed) }
    }

    /// Inside `lock.locked`: wakes the other waiters (a reader changed something they wait on).
    func noteChange() {
        generation += 1
        changed.broadcast()
    }
}
