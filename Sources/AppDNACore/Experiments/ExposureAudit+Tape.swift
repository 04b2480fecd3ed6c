/// The exposure audit's fast path: an event's exposures judged straight from the parser's tape
/// (the fields `FastEventFields` found), without building a document or a String per
/// exposure. It settles only the common case, an exposure that agrees with the bundle: the
/// experiment found by the exact bytes of its id, the user id hashed as bytes after the
/// experiment's fixed prefix, the recorded variant compared with the expected one's id as
/// bytes. Byte equality implies the String equality the general path uses, so an agreement here
/// is one there. Anything else (a mismatch to explain, an escaped string, an experiment not
/// found by its bytes) returns nil and the whole event goes through `judge(event:)`, which
/// decides exactly as before.
extension ExposureAudit {
    /// What a judge keeps for the tape path. Classes, not structs: the judge reaches them
    /// for every exposure, and a struct property of a class would be copied (retaining each of
    /// its arrays) or accessed exclusively each time.
    final class TapeState {
        /// `experiments` in one array, and each id's bytes → its index.
        let prepared: [Prepared]
        let byID: ByteKeyCache
        let context = ContextBytes()

        init(_ experiments: [ByteKey: Prepared]) {
            prepared = Array(experiments.values)
            var byID = ByteKeyCache()
            for (index, experiment) in prepared.enumerated() {
                var id = experiment.definition.id
                id.withUTF8 { bytes in
                    let raw = UnsafeRawBufferPointer(bytes)
                    byID.insert(raw, hash: IDHash.hash(raw), id: index)
                }
            }
            self.byID = byID
        }

        /// The experiment whose id is exactly these bytes (nil also when the index was full).
        func experiment(_ id: UnsafeRawBufferPointer) -> Prepared? {
            byID.find(id, hash: IDHash.hash(id)).map { prepared[$0] }
        }
    }

    /// The last event's platform, country and app version as bytes, and as the `UserContext`
    /// the rules read. The events of one device share them, so the Strings are made and every
    /// experiment's context rules evaluated again only when they change (a new `generation`).
    final class ContextBytes {
        private var platform: [UInt8]?, country: [UInt8]?, appVersion: [UInt8]?
        private(set) var generation = 0
        private(set) var context = UserContext()
        private(set) var platformLowercased: String?

        func update(platform: UnsafeRawBufferPointer?, country: UnsafeRawBufferPointer?, appVersion: UnsafeRawBufferPointer?) {
            if generation > 0 && Self.same(self.platform, platform) && Self.same(self.country, country)
                && Self.same(self.appVersion, appVersion) {
                return
            }
            self.platform = platform.map { Array($0) }
            self.country = country.map { Array($0) }
            self.appVersion = appVersion.map { Array($0) }
            func text(_ bytes: UnsafeRawBufferPointer?) -> String? { bytes.map { String(decoding: $0, as: UTF8.self) } }
            context = UserContext(platform: text(platform), country: text(country), appVersion: text(appVersion))
            platformLowercased = context.platform?.lowercased()
            generation += 1
        }

        private static func same(_ kept: [UInt8]?, _ bytes: UnsafeRawBufferPointer?) -> Bool {
            guard let kept, let bytes else { return kept == nil && bytes == nil }
            return kept.withUnsafeBytes { $0.count == bytes.count && ($0.count == 0 || RawMemory.compare($0.baseAddress!, bytes.baseAddress!, count: $0.count) == 0) }
        }
    }
}

extension ExposureAudit.Prepared {
    /// `contextAdmits` once per context generation of the judge.
    func contextAdmits(_ context: ExposureAudit.ContextBytes, generation: Int) -> Bool {
        if admitsGeneration != generation {
            admitsGeneration = generation
            generationAdmits = contextAdmits(context.context)
        }
        return generationAdmits
    }

    /// Whether the recorded variant `recorded` is what this experiment assigns to `user` in
    /// `context` (whose generation and lowercased platform the caller read once per event):
    /// the same decision as `Judge.judge(experiment:…)` returning nil, read as bytes.
    func agrees(recorded: UnsafeRawBufferPointer, user: UnsafeRawBufferPointer, context: ExposureAudit.ContextBytes,
                generation: Int, platformLowercased: String?) -> Bool {
        guard contextAdmits(context, generation: generation) else { return false }
        if let share = definition.trafficAllocation {
            let bucket = allocationBucketer!.assign(user).bucket
            guard Eligibility.allocationState(share: share, bucket: bucket, platformLowercased: platformLowercased) != .failed else { return false }
        }
        guard let index = bucketer.assign(user).variant else { return false }
        return variantIDs[index].withUnsafeBytes {
            $0.count == recorded.count && ($0.count == 0 || RawMemory.compare($0.baseAddress!, recorded.baseAddress!, count: $0.count) == 0)  // not an id: byte counts, then the bytes
        }
    }
}

extension ExposureAudit.Judge {
    /// The verdicts on the exposures at tape index `f.exposuresIndex` when every one agrees,
    /// read from the tape of the event `base` holds; nil when `judge(event:)` must decide.
    func judge(_ f: FastEventFields, tape: UnsafeMutablePointer<JSONTapeNode>, _ base: UnsafePointer<UInt8>) -> ExposureAudit.LineResult? {
        guard !f.deviceEscaped else { return nil }
        func bytes(_ start: Int, _ count: Int) -> UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base + start, count: count) }
        // `user.user_id`, else `user.anon_id` (the fast path read both as unescaped strings).
        let user = f.hasUser ? bytes(f.userIDStart, f.userIDLength) : bytes(f.anonStart, f.anonLength)
        // An empty or white-space user id means the anonymous id: `judge(event:)` decides (also
        // for ids of white space and non-ASCII bytes only, which may be Unicode white space).
        if f.hasUser && user.allSatisfy({ $0 == 0x20 || ($0 >= 0x09 && $0 <= 0x0D) || $0 >= 0x80 }) { return nil }
        let state = self.tape, context = state.context
        context.update(platform: f.platformLength >= 0 ? bytes(f.platformStart, f.platformLength) : nil,
                       country: f.countryLength >= 0 ? bytes(f.countryStart, f.countryLength) : nil,
                       appVersion: f.appVersionLength >= 0 ? bytes(f.appVersionStart, f.appVersionLength) : nil)
        let generation = context.generation, platformLowercased = context.platformLowercased
        var result = ExposureAudit.LineResult()
        let array = tape[f.exposuresIndex]
        var e = f.exposuresIndex + 1
        while e < Int(array.next) {
            // An object whose members have unescaped keys and `exp` and `variant` strings
            // (`FastEventFields.scan` checked), whatever else it holds.
            let exposure = tape[e]
            var experiment: UnsafeRawBufferPointer?, recorded: UnsafeRawBufferPointer?
            let read = FastEventFields.forEachMember(tape, e, base) { key, keyLength, _, value in
                if keyLength == 3 && FastEventFields.equal(key, "exp") {
                    guard let (s, l) = FastEventFields.string(value) else { return false }
                    experiment = bytes(s, l)
                } else if keyLength == 7 && FastEventFields.equal(key, "variant") {
                    guard let (s, l) = FastEventFields.string(value) else { return false }
                    recorded = bytes(s, l)
                }
                return true
            }
            e = Int(exposure.next)
            guard read, let experiment, let recorded, let prepared = state.experiment(experiment),
                  prepared.agrees(recorded: recorded, user: user, context: context, generation: generation,
                                  platformLowercased: platformLowercased) else { return nil }
            result.checked += 1
            result.agreeing += 1
            if f.hasSession { result.exposed.append(prepared.index) }
        }
        if f.hasSession { result.session = (f.sessionHash, IDHash.hash(user)) }
        return result
    }
}
