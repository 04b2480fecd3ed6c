/// One change to what `api serve` serves (an override set or cleared, a refetch, an edit of
/// the source, the overrides given at start), proven before anything is kept:
///
///     parse → check against the source → build the served bundle → validate it (the tool's
///     own validator) and bucket it (the tool's own allocation) → encode the state and load it
///     back → write it atomically → swap
///
/// This type is the steps that touch nothing (`prepare`, through loading back); the server
/// writes and swaps what it returns, so a step failing leaves memory, the state file and the
/// served bytes as they were. A refusal names its step and whose fault it is: the request's
/// (a wrong override, a state grown past its bound: 400), the server's (a bundle it would
/// build wrong, a file it cannot write: 500) or upstream's (a live bundle that cannot be
/// fetched or is not a bundle: 502).
public enum OverrideTransaction {
    public enum Step: String, Sendable {
        case parse, check, fetch, build, validate, bucket, encode
        case readBack = "load back"
        case write
    }

    public enum Fault: Sendable, Equatable {
        case request, server, upstream
    }

    /// Classified like any failure, so a command or a server words it as Core's own: `message`
    /// is what failed (a file edit that is not JSON reads as every bundle reader words it);
    /// `description` adds that nothing was changed and at which step.
    public struct Refusal: ClassifiedError, Sendable, CustomStringConvertible {
        public let step: Step
        public let fault: Fault
        public let message: String

        public init(_ step: Step, _ fault: Fault, _ message: String) {
            self.step = step
            self.fault = fault
            self.message = message
        }

        public var description: String { "nothing was changed: the \(step.rawValue) step failed: \(message)" }

        /// The request's fault is malformed input (400); the live bundle's is unavailable
        /// (502); this server's is an I/O error (500).
        public var kind: FailureKind {
            switch fault {
            case .request: return .malformedInput
            case .upstream: return .unavailable
            case .server: return .ioError
            }
        }
    }

    /// What a change would serve and keep, proven but not yet written.
    public struct Prepared: Sendable {
        /// The bundle to serve and its `bundle_version`.
        public let served: [UInt8]
        public let version: Int64
        /// The state to keep (with the served mark) and its bytes, loaded back once.
        public let state: OverrideState
        public let stateBytes: [UInt8]
        public let staleness: OverrideStaleness
        /// Nothing overridden, nothing changed, the source's bytes served as they are: a fresh
        /// state need not be written for this (the state file is written at the first change).
        public let servesSourceAsIs: Bool
    }

    /// Builds, validates, buckets, encodes and loads back the bundle served from `source`
    /// (its bytes, parsed, and its `bundle_version`) with `state`'s overrides. With
    /// `remembersServed` the served version is the server's own (`ServedVersion`: never back,
    /// new bytes a new version), kept in the state; without, the source is served with its own
    /// version (a file nothing was ever changed on is served as written).
    public static func prepare(source: JSONDocument, sourceBytes: [UInt8], sourceVersion: Int64,
                               state: OverrideState, name: String, remembersServed: Bool = true) throws(Refusal) -> Prepared {
        let staleness = OverrideStaleness(state.overrides, against: source.root, name: name)
        let applied = staleness.applied
        // Build: the source as written while nothing was ever changed, else rewritten.
        let chosen: (version: Int64, bytes: [UInt8], mark: OverrideState.ServedMark)
        do {
            let candidate = try BundleOverrides.servedVersion(source: sourceVersion, changes: state.changes)
            chosen = try ServedVersion.choose(candidate: candidate, last: remembersServed ? state.served : nil) { version throws(Failure) in
                if applied.isEmpty && state.changes == 0 && version == sourceVersion { return sourceBytes }
                return JSONWriter(indent: 2).write(applied.apply(to: source.root, version: version)) + [0x0A]
            }
        } catch {
            throw Refusal(.build, .server, error.message)
        }
        let served: JSONDocument
        do { served = try JSONDocument(bytes: chosen.bytes) } catch {
            throw Refusal(.build, .server, "the served bundle does not parse back: \(error)")
        }
        try validate(served, against: source)
        try bucket(served, applied)
        // Encode and load back: what is written is what the next start reads.
        var kept = state
        kept.served = remembersServed ? chosen.mark : nil
        let bytes = kept.encoded
        guard bytes.count <= OverrideState.maxBytes else {
            throw Refusal(.encode, .request, "the overrides would take \(NumberText.binarySize(bytes.count)), over the \(NumberText.binarySize(OverrideState.maxBytes)) the state file may take: clear some first")
        }
        let loaded: OverrideState
        do { loaded = try OverrideState.decode(bytes, name: "the state to write") } catch {
            throw Refusal(.readBack, .server, error.message)
        }
        guard loaded == kept else { throw Refusal(.readBack, .server, "the state to write loads back different") }
        return Prepared(served: chosen.bytes, version: chosen.version, state: kept, stateBytes: bytes, staleness: staleness,
                        servesSourceAsIs: state.overrides.isEmpty && state.changes == 0 && chosen.bytes == sourceBytes)
    }

    /// The served bundle has no error the source does not already have (an edited source
    /// with its own errors is still served, as it was before overrides).
    static func validate(_ served: JSONDocument, against source: JSONDocument) throws(Refusal) {
        func errors(_ document: JSONDocument) -> [BundleFinding] {
            BundleValidator.validate(document: document).filter { $0.severity == .error }
        }
        var known: [String: Int] = [:]
        for finding in errors(source) { known[finding.rule.rawValue, default: 0] += 1 }
        for finding in errors(served) {
            let left = known[finding.rule.rawValue, default: 0]
            guard left > 0 else {
                throw Refusal(.validate, .server, "the served bundle would fail bundle validate: \(finding.rule.rawValue) at \(finding.pointer): \(finding.message)")
            }
            known[finding.rule.rawValue] = left - 1
        }
    }

    /// Every forced experiment gives every bucket to its variant, running for everyone: what
    /// devices compute from the served bundle is the forced answer.
    static func bucket(_ served: JSONDocument, _ applied: BundleOverrides) throws(Refusal) {
        let experiments = BundleExperiments.map(in: served.root)
        for item in applied.list where item.kind == .experiment {
            let variant = item.value.stringValue ?? ""
            guard let node = experiments?[item.key], node.kind == .object else {
                throw Refusal(.bucket, .server, "the served bundle has no experiment '\(VisibleText.escaped(item.key))'")
            }
            let definition = ExperimentDefinition(id: item.key, node: node)
            let allocation = definition.allocation
            let owned = allocation.ranges.filter { ByteIdentity.same($0.variant, variant) }.reduce(UInt32(0)) { $0 + $1.bucketCount }
            guard definition.status == "running", definition.platforms == nil, definition.targeting == nil,
                  definition.trafficAllocation == nil, owned == allocation.bucketCount else {
                throw Refusal(.bucket, .server, "in the served bundle, variant '\(VisibleText.escaped(variant))' of '\(VisibleText.escaped(item.key))' gets \(owned) of \(allocation.bucketCount) buckets, not every one")
            }
        }
    }
}
