/// The exposure audit of `queue inspect --bundle`: for every live event carrying
/// `context.experiment_exposures`, recompute the variant the bundle assigns to the event's user
/// (`user.user_id`, else `user.anon_id`; platform, country and app version from `device`) the
/// way devices do (`sdk` scheme), and explain each exposure that disagrees with the most likely
/// cause. Counts are exact; the list of mismatches is capped, so memory stays flat.
public final class ExposureAudit {
    /// Why a recorded exposure differs from what the bundle assigns, most specific first.
    public enum Cause: String, Sendable, CaseIterable {
        /// The old iOS SDK (<= 1.0.69) hashed a blank salt literally ("exp..user"), and that
        /// hash gives the recorded variant.
        case blankSaltOldIOS = "blank-salt-old-ios"
        /// The user id is not NFC or has white space around it, and its normalised, trimmed
        /// form gives the recorded variant.
        case userIDNotNormalised = "user-id-not-normalised"
        /// The event's `device.bundle_version` is not the file's: the device ran another bundle.
        case bundleVersion = "bundle-version"
        case experimentMissing = "experiment-missing"
        case experimentNotRunning = "experiment-not-running"
        /// A rule the event settles (platform, country, app version, traffic allocation) fails.
        case notEligible = "not-eligible"
        case unexplained
    }

    public struct Mismatch: Sendable {
        public let eventID: String?
        /// Where the event is; set by the thread that knows line numbers.
        public internal(set) var location: QueueLocation
        public let experiment: String
        public let recorded: String?
        public let expected: String?
        public let cause: Cause
        public let detail: String
    }

    /// One experiment of the bundle, ready for many users: the hashed string's fixed part laid
    /// out once, and the context rules of the last context seen (a device's events share it).
    final class Prepared {
        let definition: ExperimentDefinition
        let allocation: VariantAllocation
        var bucketer: BatchBucketer
        var cachedContext: (platform: String?, country: String?, appVersion: String?)?
        var cachedAdmits = false
        // For the tape path (`ExposureAudit+Tape.swift`), which compares and hashes bytes:
        /// The variant ids' UTF-8, by index.
        let variantIDs: [[UInt8]]
        /// The traffic allocation hash, when the experiment has a traffic allocation.
        var allocationBucketer: BatchBucketer?
        /// `contextAdmits` of the judge's context generation `admitsGeneration`.
        var admitsGeneration = -1
        var generationAdmits = false
        /// The experiment's place in `ExposureAudit.experimentIDs` (the same in every judge).
        let index: Int

        init(_ definition: ExperimentDefinition, index: Int) {
            self.definition = definition
            self.index = index
            allocation = definition.allocation
            bucketer = BatchBucketer(scheme: .sdk, experiment: definition.id, salt: definition.salt, allocation: allocation, variantTable: false)
            variantIDs = allocation.ranges.map { Array($0.variant.utf8) }
            if definition.trafficAllocation != nil {
                allocationBucketer = .trafficAllocation(experiment: definition.id, salt: definition.salt)
            }
        }

        /// Whether no context rule (status, platform, targeting) fails in this context.
        func contextAdmits(_ context: UserContext) -> Bool {
            if let cached = cachedContext, cached.platform == context.platform, cached.country == context.country,
               cached.appVersion == context.appVersion {
                return cachedAdmits
            }
            cachedAdmits = !Eligibility.contextRules(definition, context: context).contains(where: \.failed)
            cachedContext = (context.platform, context.country, context.appVersion)
            return cachedAdmits
        }

        /// The SDK bucket of `user`, without building the hashed string.
        func bucket(_ user: String) -> UInt32 {
            var user = user
            return user.withUTF8 { bytes in bucketer.assign(UnsafeRawBufferPointer(bytes)).bucket }
        }
    }

    /// The verdicts on one event's exposures.
    public struct LineResult: Sendable {
        var checked = 0, agreeing = 0, skipped = 0
        /// The first mismatches (as many as the audit lists); the others only counted in
        /// `unlisted`, so an event with a million wrong exposures holds a few hundred, not a
        /// million (`api serve` budgets its audit by the exposures a batch can hold, issue 49).
        var mismatches: [Mismatch] = []
        var unlisted: [Cause: Int] = [:]
        /// The event's session and hashed user id (hashes of their bytes), when it has a session.
        var session: (session: UInt64, user: UInt64)?
        /// With a session: the indices of the bundle experiments its checked exposures name, in
        /// order (for `RepeatedExposures`).
        var exposed: [Int] = []
    }

    public let bundleVersion: String?
    /// How a cause names the bundle's version: "the file's" (`queue inspect --bundle FILE`),
    /// "the served bundle_version" (`api serve`, whose bundle is not a file a reader holds).
    let bundleVersionName: String
    /// By the ids' bytes: an exposure recorded for `cafe\u{301}-exp` is not one of `café-exp`.
    let definitions: [ByteKey: ExperimentDefinition]
    /// The experiment ids in byte order: `Prepared.index` and `RepeatedExposures` refer to them.
    let experimentIDs: [ByteKey]
    let listLimit: Int
    /// Judges events on this thread (the general path and non-NDJSON queues).
    private lazy var judge = makeJudge()

    /// Exposures compared with the bundle.
    public private(set) var checked = 0
    public private(set) var agreeing = 0
    /// Exposures that could not be compared: no user id on the event, or no `exp` string.
    public private(set) var skipped = 0
    public private(set) var mismatchCount = 0
    /// The first `listLimit` mismatches, in queue order.
    public private(set) var mismatches: [Mismatch] = []
    public private(set) var causeCounts: [Cause: Int] = [:]
    /// Exposures of the bundle's experiments repeated within a session.
    public private(set) var repeated: RepeatedExposures

    /// `root` is a config bundle of either shape.
    public init(bundle root: JSONNode, listLimit: Int = 1000, bundleVersionName: String = "the file's") {
        bundleVersion = root["bundle_version"]?.numberText
        self.bundleVersionName = bundleVersionName
        var definitions: [ByteKey: ExperimentDefinition] = [:]
        if let map = BundleExperiments.map(in: root) {
            for member in map.members where member.value.kind == .object {
                definitions[ByteKey(member.key)] = ExperimentDefinition(id: member.key, node: member.value)
            }
        }
        self.definitions = definitions
        experimentIDs = definitions.keys.sorted()
        repeated = RepeatedExposures(experimentIDs: experimentIDs.map(\.text))
        self.listLimit = listLimit
    }

    public var mismatchesNotListed: Int { mismatchCount - mismatches.count }

    /// A judge for one thread (its caches and scratch buffers are its own).
    func makeJudge() -> Judge {
        var experiments: [ByteKey: Prepared] = [:]
        for (index, id) in experimentIDs.enumerated() { experiments[id] = Prepared(definitions[id]!, index: index) }
        return Judge(bundleVersion: bundleVersion, experiments: experiments, listLimit: listLimit, bundleVersionName: bundleVersionName)
    }

    /// One live event.
    public func audit(event: JSONNode, location: QueueLocation) {
        if let result = judge.judge(event: event) { add(result, location: location) }
    }

    /// Adds one live event's verdicts, in queue order.
    func add(_ result: LineResult, location: QueueLocation) {
        checked += result.checked
        agreeing += result.agreeing
        skipped += result.skipped
        if let session = result.session {
            for index in result.exposed {
                repeated.record(session: session.session, user: session.user, experiment: index, at: location)
            }
        }
        for var mismatch in result.mismatches {
            mismatchCount += 1
            causeCounts[mismatch.cause, default: 0] += 1
            if mismatches.count < listLimit {
                mismatch.location = location
                mismatches.append(mismatch)
            }
        }
        for (cause, count) in result.unlisted {
            mismatchCount += count
            causeCounts[cause, default: 0] += count
        }
    }
}

extension ExposureAudit {
    /// Judges events against the bundle: one per thread.
    final class Judge {
        let bundleVersion: String?
        let bundleVersionName: String
        let experiments: [ByteKey: Prepared]
        /// The experiments by the bytes of their ids, and the last event's context.
        let tape: TapeState
        /// Mismatches kept per event (`LineResult.mismatches`): no more are ever listed.
        let listLimit: Int

        init(bundleVersion: String?, experiments: [ByteKey: Prepared], listLimit: Int, bundleVersionName: String = "the file's") {
            self.bundleVersion = bundleVersion
            self.bundleVersionName = bundleVersionName
            self.experiments = experiments
            self.listLimit = listLimit
            tape = TapeState(experiments)
        }

        /// An event a worker's parser has just parsed (`box`) and the fast path has read
        /// (`fields`): judged from the tape when it can be, else from a document of the same
        /// parse. No second parse either way.
        func judge(line: UnsafeRawBufferPointer, fields: FastEventFields, parsedBy box: LineParserBox) -> LineResult? {
            let tape = box.parser.tape.base
            guard fields.exposuresIndex >= 0, tape[fields.exposuresIndex].next > fields.exposuresIndex + 1 else { return nil }
            if let result = judge(fields, tape: tape, line.baseAddress!.assumingMemoryBound(to: UInt8.self)) { return result }
            return judge(event: box.document(line).root)
        }

        /// nil when the event carries no exposures.
        func judge(event: JSONNode) -> LineResult? {
            guard let exposures = event["context"]?["experiment_exposures"], exposures.kind == .array, exposures.count > 0 else { return nil }
            var result = LineResult()
            let user = event["user"]
            // The SDK hashes the anonymous id when the user id is empty or only white space.
            let identified = user?["user_id"]?.string.flatMap { BucketingScheme.isBlank($0) ? nil : $0 }
            guard let userID = identified ?? user?["anon_id"]?.string else {
                result.skipped = exposures.count
                return result
            }
            if let session = event["context"]?["session_id"]?.string {
                result.session = (Self.byteHash(session), Self.byteHash(userID))
            }
            let device = event["device"]
            let context = UserContext(platform: device?["platform"]?.string, country: device?["country"]?.string,
                                      appVersion: device?["app_version"]?.string, sdkVersion: device?["sdk_version"]?.string)
            for exposure in exposures.elements {
                guard let experiment = exposure["exp"]?.string else { result.skipped += 1; continue }
                let recorded = exposure["variant"]?.string
                result.checked += 1
                if result.session != nil, let index = experiments[ByteKey(experiment)]?.index { result.exposed.append(index) }
                guard let finding = judge(experiment: experiment, recorded: recorded, userID: userID, context: context,
                                          device: device) else {
                    result.agreeing += 1
                    continue
                }
                guard result.mismatches.count < listLimit else {
                    result.unlisted[finding.cause, default: 0] += 1
                    continue
                }
                result.mismatches.append(Mismatch(eventID: event["event_id"]?.string, location: QueueLocation(path: ""), experiment: experiment,
                                                  recorded: recorded, expected: finding.expected, cause: finding.cause, detail: finding.detail))
            }
            return result
        }

        /// nil when the recorded variant is what the bundle assigns; else the expected variant and why.
        func judge(experiment: String, recorded: String?, userID: String, context: UserContext,
                   device: JSONNode?) -> (expected: String?, cause: Cause, detail: String)? {
            // Read only when explaining a mismatch: most exposures agree.
            var eventVersion: String? { device?["bundle_version"]?.numberText }
            var sdkVersion: String? { device?["sdk_version"]?.string }
            var otherBundle: Bool { eventVersion.flatMap { version in bundleVersion.map { $0 != version } } ?? false }
            var versions: String { "the event's bundle_version is \(eventVersion ?? "-"), \(bundleVersionName) \(bundleVersion ?? "-")" }
            guard let prepared = experiments[ByteKey(experiment)] else {
                let lookalike = experiments.keys.lazy.compactMap { ByteIdentity.normalisationDifference(experiment, from: $0.text) }.first
                return otherBundle ? (nil, .bundleVersion, versions + " (the experiment is not in the file)")
                    : (nil, .experimentMissing, "no experiment '\(experiment)' in the bundle" + (lookalike.map { "; it \($0), and devices hash the bytes" } ?? ""))
            }
            // The fast path decides without wording any rule (or copying the definition): most
            // exposures agree.
            var mayAssign = prepared.contextAdmits(context)
            if mayAssign, prepared.definition.trafficAllocation != nil,
               let allocation = Eligibility.allocationState(prepared.definition, userID: userID, context: context) {
                mayAssign = allocation.state != .failed
            }
            let bucket = prepared.bucket(userID)
            let expected = mayAssign ? prepared.allocation.variant(forBucket: bucket) : nil
            // By bytes: an NFD variant id recorded where the bundle says NFC is another variant
            // to analytics, which joins on the id as written.
            if ByteIdentity.same(recorded, expected) { return nil }

            let definition = prepared.definition

            if definition.status != "running" {
                return otherBundle ? (expected, .bundleVersion, versions + " (the experiment is \(definition.status ?? "without status") in the file)")
                    : (expected, .experimentNotRunning, "the experiment is \(definition.status ?? "without status") in the bundle")
            }
            if let recorded {
                // Exact hypotheses first: each recomputes the hash the way a known bug would.
                if BucketingScheme.isBlank(definition.salt), context.platform?.lowercased() == "ios",
                   sdkVersion.map({ Self.isAtMost($0, [1, 0, 69]) }) ?? true {
                    let literal = "\(experiment).\(definition.salt).\(userID)"
                    if ByteIdentity.same(prepared.allocation.variant(forBucket: MurmurHash3.x86_32(utf8: literal) % 10_000), recorded) {
                        return (expected, .blankSaltOldIOS, "iOS SDK \(sdkVersion ?? "(version not given)") hashed the blank salt literally: \"\(literal)\" gives \(recorded)")
                    }
                }
                for form in Self.normalisedForms(userID) where !form.utf8.elementsEqual(userID.utf8) {
                    let hash = BucketingScheme.sdk.assign(user: form, experiment: experiment, salt: definition.salt).bucket
                    if ByteIdentity.same(prepared.allocation.variant(forBucket: hash), recorded) {
                        return (expected, .userIDNotNormalised, "the user id is not NFC or has white space; hashed as \"\(form)\" it gives \(recorded)")
                    }
                }
            }
            if otherBundle {
                return (expected, .bundleVersion, versions)
            }
            if let failed = Eligibility.evaluate(definition, userID: userID, context: context).first(where: \.failed) {
                return (expected, .notEligible, "\(failed.rule): \(failed.detail)")
            }
            if let recorded, let expected, let lookalike = ByteIdentity.normalisationDifference(recorded, from: expected) {
                return (expected, .unexplained, "the recorded variant \(lookalike): devices and analytics compare the bytes")
            }
            return (expected, .unexplained, "no known cause reproduces \(recorded ?? "no variant")")
        }

        /// The hash the fast path keys sessions and users by (`FastEventFields.hash`), of `text`'s bytes.
        static func byteHash(_ text: String) -> UInt64 {
            var text = text
            return text.withUTF8 { IDHash.hash(UnsafeRawBufferPointer($0)) }
        }

        /// NFC, trimmed, and both: the forms an SDK or a backend may have hashed instead. Compared
        /// by bytes: Swift's `==` calls NFC and NFD spellings equal, but their hashes differ.
        static func normalisedForms(_ id: String) -> [String] {
            let trimmed = PortabilityHazards.trimWhitespace(id)
            var forms: [String] = []
            for form in [UnicodeForms.nfc(id), trimmed, UnicodeForms.nfc(trimmed)] where !forms.contains(where: { $0.utf8.elementsEqual(form.utf8) }) {
                forms.append(form)
            }
            return forms
        }

        /// Whether dotted version `text` is at most `limit` (a version that cannot be read is not).
        static func isAtMost(_ text: String, _ limit: [Int]) -> Bool {
            guard let parts = Targeting.versionParts(text) else { return false }
            return Targeting.compareVersions(parts, limit) <= 0
        }
    }
}
