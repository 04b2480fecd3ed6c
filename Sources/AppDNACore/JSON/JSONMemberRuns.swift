/// Hands out an object's members in consecutive runs, numbered in document order, to the
/// threads that check them: each thread takes the next run when it is done with its last, so
/// a thread that is slowed down (a cold cache, a busy core) simply takes fewer. Whoever puts
/// the results together orders them by run number to get exactly what one pass would.
final class JSONMemberRuns: @unchecked Sendable {
    /// A run: the keys at tape indexes `start..<stop` (each followed by its value), number
    /// `number` counting from 0 in document order.
    struct Run {
        let number: Int
        let start: Int
        let stop: Int
    }

    private let tape: JSONTape
    private let membersPerRun: Int
    private let end: Int
    private let lock = PthreadLock()
    /// Guarded by `lock`: the key where the next run starts, and its number.
    private var cursor: Int
    private var nextNumber = 0

    /// Runs of `membersPerRun` members over the object `object`.
    init(object: JSONNode, membersPerRun: Int) {
        tape = object.document.tape
        self.membersPerRun = max(membersPerRun, 1)
        cursor = object.index + 1
        end = object.subtreeEnd
    }

    /// The next run, or nil when every member has been handed out. The walk to the end of the
    /// run is done here, under the lock: the tape only links each member to the next, and the
    /// walk is short next to checking the run.
    func next() -> Run? {
        lock.locked { () -> Run? in
            guard cursor < end else { return nil }
            let start = cursor
            var key = start
            for _ in 0..<membersPerRun where key < end { key = Int(tape[key + 1].next) }
            cursor = key
            nextNumber += 1
            return Run(number: nextNumber - 1, start: start, stop: key)
        }
    }
}
