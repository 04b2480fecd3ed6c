/// Exposures repeated within a session, counted by `queue inspect --bundle`. The SDK records
/// one exposure per experiment per session, so every exposure of an experiment after the first
/// in a session (of one user) is a duplicate: the most reported exposure problem, and one that
/// inflates the counts a sample-ratio check relies on. The same counts as the warehouse query
/// `appdna warehouse duplicates` (`DuplicateExposuresSQL`), for the bundle's experiments.
///
/// Memory stays bounded, as the rest of `queue inspect`: only the `openSessions` most recently
/// started sessions are remembered (a device queue holds at most 10,000 events, so one device's
/// queue is counted exactly); a session seen again after that many others started counts as new.
/// What grows with the input is one entry per user and experiment that repeated.
/// Sessions and users are keyed by a 64-bit hash of their bytes (the fast path never makes a
/// String of them), experiments by their index in the audit's list.
public struct RepeatedExposures: Sendable {
    /// Where a repeat is and where the session's first exposure of that experiment was.
    public struct Example: Sendable {
        public let repeated: QueueLocation
        public let first: QueueLocation
    }

    /// One experiment's counts, as the SQL names them.
    public struct Counts: Sendable {
        public let experiment: String
        /// Sessions (of a user) in which the experiment was exposed.
        public internal(set) var sessions = 0
        public internal(set) var exposures = 0
        public internal(set) var duplicateExposures = 0
        public internal(set) var usersWithDuplicates = 0
        /// The first few repeats, in queue order.
        public internal(set) var examples: [Example] = []
    }

    static let examplesPerExperiment = 3
    static let openSessions = 10_000

    private struct Session: Hashable {
        let session: UInt64, user: UInt64
    }

    /// The bundle's experiment ids, by index.
    private let experimentIDs: [String]
    /// Per open session, its experiments' first exposures (few per session: a short list).
    private var firstExposures: [Session: [(experiment: Int, at: QueueLocation)]] = [:]
    /// Open sessions in the order they started, oldest at `oldest` (forgotten past `openSessions`).
    private var started: [Session] = []
    private var oldest = 0
    /// (user, experiment) pairs already counted in `usersWithDuplicates`.
    private var usersCounted: Set<Pair> = []
    private struct Pair: Hashable { let user: UInt64, experiment: Int }
    /// Counts by experiment index (nil: not exposed yet), and the order of first exposure.
    private var counts: [Counts?]
    private var order: [Int] = []

    init(experimentIDs: [String]) {
        self.experimentIDs = experimentIDs
        counts = Array(repeating: nil, count: experimentIDs.count)
    }

    /// Per experiment, in the order of their first exposure in the queue.
    public var experiments: [Counts] { order.map { counts[$0]! } }

    /// Every duplicate exposure, over all experiments.
    public var duplicateExposures: Int { counts.reduce(0) { $0 + ($1?.duplicateExposures ?? 0) } }

    /// One exposure of the bundle experiment at `index` by `user` in `session`, in queue order.
    mutating func record(session: UInt64, user: UInt64, experiment index: Int, at location: QueueLocation) {
        if counts[index] == nil {
            counts[index] = Counts(experiment: experimentIDs[index])
            order.append(index)
        }
        counts[index]!.exposures += 1
        let key = Session(session: session, user: user)
        if firstExposures[key] == nil { open(key) }
        guard let first = firstExposures[key]!.first(where: { $0.experiment == index })?.at else {
            firstExposures[key]!.append((index, location))
            counts[index]!.sessions += 1
            return
        }
        counts[index]!.duplicateExposures += 1
        if usersCounted.insert(Pair(user: user, experiment: index)).inserted {
            counts[index]!.usersWithDuplicates += 1
        }
        if counts[index]!.examples.count < Self.examplesPerExperiment {
            counts[index]!.examples.append(Example(repeated: location, first: first))
        }
    }

    /// Starts remembering `key`, forgetting the oldest open session past the window.
    private mutating func open(_ key: Session) {
        firstExposures[key] = []
        started.append(key)
        if started.count - oldest > Self.openSessions {
            firstExposures[started[oldest]] = nil
            oldest += 1
            if oldest >= Self.openSessions {  // drop the forgotten prefix now and then
                started.removeFirst(oldest)
                oldest = 0
            }
        }
    }
}
