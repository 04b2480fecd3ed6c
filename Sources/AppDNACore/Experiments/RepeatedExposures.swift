/// Exposures repeated within a session, counted by `queue inspect --bundle`. The SDK records
/// one exposure per experiment per session, so every exposure of an experiment after the first
/// in a session (of one user) is a duplicate: the most reported exposure problem, and one that
/// inflates the counts a sample-ratio check relies on. The same counts as the warehouse query
/// `queue inspect --sql … --duplicates` (`DuplicateExposuresSQL`), for the bundle's experiments.
///
/// Sessions and users are keyed by a 64-bit hash of their bytes (the fast path never makes a
/// String of them); experiments by their bytes.
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

    private struct SessionExperiment: Hashable {
        let session: UInt64, user: UInt64
        let experiment: ByteKey
    }

    private var firstExposure: [SessionExperiment: QueueLocation] = [:]
    private var usersWithDuplicates: Set<SessionExperiment> = []  // session 0: one key per user and experiment
    private var index: [ByteKey: Int] = [:]
    /// Per experiment, in the order of their first exposure in the queue.
    public private(set) var experiments: [Counts] = []

    /// Every duplicate exposure, over all experiments.
    public var duplicateExposures: Int { experiments.reduce(0) { $0 + $1.duplicateExposures } }

    /// One exposure of `experiment` (a bundle experiment) by `user` in `session`, in queue order.
    mutating func record(session: UInt64, user: UInt64, experiment: String, at location: QueueLocation) {
        let key = ByteKey(experiment)
        let position: Int
        if let known = index[key] {
            position = known
        } else {
            position = experiments.count
            index[key] = position
            experiments.append(Counts(experiment: experiment))
        }
        experiments[position].exposures += 1
        let sessionKey = SessionExperiment(session: session, user: user, experiment: key)
        guard let first = firstExposure[sessionKey] else {
            firstExposure[sessionKey] = location
            experiments[position].sessions += 1
            return
        }
        experiments[position].duplicateExposures += 1
        if usersWithDuplicates.insert(SessionExperiment(session: 0, user: user, experiment: key)).inserted {
            experiments[position].usersWithDuplicates += 1
        }
        if experiments[position].examples.count < Self.examplesPerExperiment {
            experiments[position].examples.append(Example(repeated: location, first: first))
        }
    }
}
