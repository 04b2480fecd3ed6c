/// Hands out an object's members in consecutive runs, numbered in document order, to the
/// threads that check them: each thread takes the next run when it is done with its last, so
/// a thread that is slowed down (a cold cache, a busy core) simply takes fewer. Whoever puts
/// the results together orders them by run number to get exactly what one pass would.
///
/// The object may still be being parsed (`init(whileParsed:)`): then a run is handed out once
/// its members are final, and a thread asking for one waits for the parse to get there.
///
/// Unchecked because it holds a raw pointer to a tape that may still be being written, read
/// only under `JSONParseProgress`'s publication protocol (it waits on that lock, not its own).
final class JSONMemberRuns: @unchecked Sendable {
    /// A run: the keys at tape indexes `start..<stop` (each followed by its value), number
    /// `number` counting from 0 in document order.
    struct Run {
        let number: Int
        let start: Int
        let stop: Int
    }

    private let membersPerRun: Int
    private let lock: PthreadLock
    /// The parse still filling the tape, if it was not finished when the runs began.
    private let progress: JSONParseProgress?
    /// Guarded by `lock`: the tape, the object and where to find it, the end of its members
    /// once known, the key where the next run starts and its number.
    private var tape: UnsafePointer<JSONTapeNode>?
    private var object: Int?
    private var end: Int?
    private var cursor = 0
    private var nextNumber = 0
    private var isAbandoned = false
    /// Keeps a finished document's tape alive (`init(object:membersPerRun:)`).
    private let owner: JSONTape?

    /// Runs of `membersPerRun` members over the object `object`.
    init(object: JSONNode, membersPerRun: Int) {
        self.membersPerRun = max(membersPerRun, 1)
        lock = PthreadLock()
        progress = nil
        owner = object.document.tape
        tape = UnsafePointer(object.document.tape.base)
        self.object = object.index
        cursor = object.index + 1
        end = object.subtreeEnd
    }

    /// Runs over an object of a document `progress` is parsing; the object is named later
    /// (`choose`), by a reader that recognises it among the open containers.
    init(whileParsed progress: JSONParseProgress, membersPerRun: Int) {
        self.membersPerRun = max(membersPerRun, 1)
        lock = progress.lock
        self.progress = progress
        owner = nil
    }

    /// Names the object whose members the runs are; it must be an object the progress has
    /// published (final or open). Only the first choice counts.
    func choose(object index: Int, tape base: UnsafePointer<JSONTapeNode>) {
        lock.locked {
            guard object == nil else { return }
            object = index
            tape = base
            cursor = index + 1
            progress?.noteChange()
        }
    }

    /// Whether `abandon()` or a failed `confirm` stopped the runs.
    var wasAbandoned: Bool { lock.locked { isAbandoned } }

    /// Whether the runs are over the object at `index`; if they are not, they are abandoned:
    /// every `next()` returns nil from now on.
    func confirm(object index: Int) -> Bool {
        lock.locked {
            if object == index && !isAbandoned { return true }
            isAbandoned = true
            progress?.noteChange()
            return false
        }
    }

    /// Hands out nothing more (wakes a thread waiting in `next()`).
    func abandon() { _ = confirm(object: -1) }

    /// The next run, or nil when every member has been handed out (or the runs were abandoned,
    /// or the parse failed). The walk to the end of the run is done here, under the lock: the
    /// tape only links each member to the next, and the walk is short next to checking the run.
    func next() -> Run? {
        lock.locked { () -> Run? in
            while true {
                if isAbandoned { return nil }
                guard let objectIndex = object, let tape else {
                    // Not chosen yet: only a parse still going on can name it.
                    guard let progress, progress.state == .parsing else { return nil }
                    progress.waitForChange()
                    continue
                }
                guard let (available, isComplete) = finalMembers(of: objectIndex, in: tape) else {
                    guard let progress, progress.state == .parsing else { return nil }
                    progress.waitForChange()
                    continue
                }
                var key = cursor, walked = 0
                while walked < membersPerRun && key < available {
                    key = Int(tape[key + 1].next)
                    walked += 1
                }
                if walked == membersPerRun || (isComplete && walked > 0) {
                    let run = Run(number: nextNumber, start: cursor, stop: key)
                    cursor = key
                    nextNumber += 1
                    return run
                }
                if isComplete { return nil }
                progress?.waitForChange()
            }
        }
    }

    /// Under the lock: the keys below which the object's members are final, and whether that
    /// is all of them; nil when the parse has not got far enough to tell (or failed).
    private func finalMembers(of index: Int, in tape: UnsafePointer<JSONTapeNode>) -> (available: Int, isComplete: Bool)? {
        if let end { return (end, true) }
        guard let progress, progress.state != .failed else { return nil }
        let open = progress.open
        if let depth = open.depth(of: index) {
            // Still open: its members are final up to the one whose value is still open (the
            // next container open inside it), or all those written so far.
            return (depth + 1 < open.count ? open.node(depth + 1) - 1 : progress.count, false)
        }
        guard index < progress.count else { return nil }
        // Published and no longer open: closed, so its node is final.
        end = Int(tape[index].next)
        return (end!, true)
    }
}
