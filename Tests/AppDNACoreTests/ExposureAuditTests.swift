import Foundation
import XCTest
@testable import AppDNACore

/// `queue inspect --bundle`: a generated queue of 10,000 agreeing exposures (variants computed
/// here with the reference MurmurHash3, not the tool's) and planted mismatches of every cause.
/// Each planted mismatch must be found with its cause, and nothing else may be reported.
final class ExposureAuditTests: XCTestCase {
    static let bundle = """
    {"bundle_version": 42, "experiments": {"experiments": {
      "onboarding": {"status": "running", "salt": "ob", "platforms": ["ios", "android"],
                     "variants": [{"id": "control", "weight": 0.5}, {"id": "streamlined", "weight": 0.5}]},
      "pricing": {"status": "running", "salt": "", "targeting": {"countries": ["US", "CA"], "min_app_version": "2.0"},
                  "variants": [{"id": "control", "weight": 0.43}, {"id": "higher", "weight": 0.57}]},
      "upsell": {"status": "running", "salt": "up", "started_at_ms": 1000, "traffic_allocation": 0.5,
                 "targeting": {"new_users_only": true, "user_traits": [{"trait": "plan", "operator": "eq", "value": "free"}]},
                 "variants": [{"id": "a", "weight": 0.3333333333333333}, {"id": "b", "weight": 0.3333333333333333}, {"id": "c", "weight": 0.3333333333333333}]},
      "legacy": {"status": "paused", "salt": "lg", "variants": [{"id": "a", "weight": 1}]}
    }}}
    """

    /// The SDK's assignment, computed independently: reference hash, truncated cumulative weights.
    static func referenceVariant(_ user: String, _ experiment: String, salt: String, weights: [(String, Double)]) -> String {
        let effective = salt.trimmingCharacters(in: .whitespaces).isEmpty ? experiment : salt
        let bucket = referenceMurmur3(Array("\(experiment).\(effective).\(user)".utf8), seed: 0) % 10_000
        var cumulative: UInt32 = 0
        for (id, weight) in weights {
            cumulative += UInt32(weight * 10_000)
            if bucket < cumulative { return id }
        }
        return weights.last!.0
    }

    static let weights: [String: (salt: String, weights: [(String, Double)])] = [
        "onboarding": ("ob", [("control", 0.5), ("streamlined", 0.5)]),
        "pricing": ("", [("control", 0.43), ("higher", 0.57)]),
        "upsell": ("up", [("a", 1.0 / 3), ("b", 1.0 / 3), ("c", 1.0 / 3)]),
    ]

    static func reference(_ user: String, _ experiment: String) -> String {
        let entry = weights[experiment]!
        return referenceVariant(user, experiment, salt: entry.salt, weights: entry.weights)
    }

    struct Event {
        var id: String
        var user: String?
        var anon: String
        var platform = "android", sdk = "1.0.42", country = "US", appVersion = "2.5.0"
        var bundleVersion = 42
        var exposures: [(String, String?)]
        var session = "s1"

        var json: String {
            var userObject: [String: Any] = ["anon_id": anon]
            if let user { userObject["user_id"] = user }
            let object: [String: Any] = [
                "schema_version": 1, "event_id": id, "event_name": "screen_viewed", "ts_ms": 1_771_495_200_000,
                "user": userObject,
                "device": ["platform": platform, "os": "17.0", "app_version": appVersion, "sdk_version": sdk,
                           "bundle_version": bundleVersion, "locale": "en-US", "country": country],
                "context": ["session_id": session, "screen": "home", "client_seq": 1,
                            "experiment_exposures": exposures.map { ["exp": $0.0, "variant": $0.1 as Any? ?? NSNull()] }],
                "properties": [:] as [String: Any], "privacy": ["consent": ["analytics": true]],
            ]
            let data = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
            return String(decoding: data, as: UTF8.self)
        }
    }

    /// 5,000 events with two agreeing exposures each (10,000), then planted mismatches.
    static func generate() -> (events: [Event], planted: [String: ExposureAudit.Cause]) {
        var random = SplitMix64(seed: 14)
        var events: [Event] = []
        var number = 0
        func nextID() -> String { number += 1; return QueueFixtures.id(number) }
        for index in 0..<5_000 {
            let identified = index % 3 != 0
            let anon = UUID(uuid: (UInt8(index & 0xff), UInt8(index >> 8), 0, 0, 0, 0, 0x40, 0, 0x80, 0, 0, 0, 0, 0, 0, UInt8(random.next() & 0xff))).uuidString.lowercased()
            let user = identified ? (index % 7 == 0 ? "caf\u{E9}-\(index)" : "user-\(random.next() % 1_000_000)") : nil
            let hashed = user ?? anon
            let ios = index % 2 == 0
            var event = Event(id: nextID(), user: user, anon: anon, exposures: [])
            if ios { event.platform = "ios"; event.sdk = "1.0.78" }
            event.country = index % 5 == 0 ? "CA" : "US"
            // onboarding always; then pricing, or upsell where traffic allocation lets the user in.
            event.exposures.append(("onboarding", reference(hashed, "onboarding")))
            let allocation = referenceMurmur3(Array("upsell.up.\(hashed).allocation".utf8), seed: 0) % 10_000
            if index % 4 == 1 && (!ios || allocation < 5_000) {
                event.exposures.append(("upsell", reference(hashed, "upsell")))
            } else {
                event.exposures.append(("pricing", reference(hashed, "pricing")))
            }
            events.append(event)
        }

        var planted: [String: ExposureAudit.Cause] = [:]
        func plant(_ event: Event, _ cause: ExposureAudit.Cause) {
            events.insert(event, at: (events.count * (planted.count + 1)) / 40)
            planted[event.id] = cause
        }
        var found = 0, k = 0
        // iOS <= 1.0.69 hashed the blank salt literally.
        while found < 3 {
            k += 1
            let user = "old-ios-\(k)"
            let old = { () -> String in
                let bucket = referenceMurmur3(Array("pricing..\(user)".utf8), seed: 0) % 10_000
                return bucket < 4300 ? "control" : "higher"
            }()
            guard old != reference(user, "pricing") else { continue }
            var event = Event(id: nextID(), user: user, anon: QueueFixtures.anon, exposures: [("pricing", old)])
            event.platform = "ios"; event.sdk = "1.0.6\(found + 6)"
            plant(event, .blankSaltOldIOS)
            found += 1
        }
        // A user id in NFD with white space around it, whose trimmed NFC form was hashed.
        found = 0; k = 0
        while found < 3 {
            k += 1
            let clean = "Zo\u{EB}-\(k)"
            let raw = (found == 1 ? "" : " ") + "Zoe\u{308}-\(k)" + (found == 0 ? "" : "\t")
            let recorded = reference(clean, "onboarding")
            guard recorded != reference(raw, "onboarding") else { continue }
            plant(Event(id: nextID(), user: raw, anon: QueueFixtures.anon, exposures: [("onboarding", recorded)]), .userIDNotNormalised)
            found += 1
        }
        // Another bundle on the device.
        for index in 0..<3 {
            let user = "moved-\(index)"
            let other = reference(user, "onboarding") == "control" ? "streamlined" : "control"
            var event = Event(id: nextID(), user: user, anon: QueueFixtures.anon, exposures: [("onboarding", other)])
            event.bundleVersion = 41
            plant(event, .bundleVersion)
        }
        for index in 0..<3 {
            plant(Event(id: nextID(), user: "ghost-\(index)", anon: QueueFixtures.anon, exposures: [("retired-test", "b")]), .experimentMissing)
            plant(Event(id: nextID(), user: "paused-\(index)", anon: QueueFixtures.anon, exposures: [("legacy", "a")]), .experimentNotRunning)
        }
        // Not eligible by a rule the event settles: country, app version, platform-applied allocation.
        var outside = Event(id: nextID(), user: "fr-user", anon: QueueFixtures.anon, exposures: [("pricing", reference("fr-user", "pricing"))])
        outside.country = "FR"
        plant(outside, .notEligible)
        var old = Event(id: nextID(), user: "old-app", anon: QueueFixtures.anon, exposures: [("pricing", reference("old-app", "pricing"))])
        old.appVersion = "1.9"
        plant(old, .notEligible)
        k = 0
        while true {
            k += 1
            let user = "held-out-\(k)"
            guard referenceMurmur3(Array("upsell.up.\(user).allocation".utf8), seed: 0) % 10_000 >= 5_000 else { continue }
            var event = Event(id: nextID(), user: user, anon: QueueFixtures.anon, exposures: [("upsell", reference(user, "upsell"))])
            event.platform = "ios"; event.sdk = "1.0.78"
            plant(event, .notEligible)
            break
        }
        plant(Event(id: nextID(), user: "mystery", anon: QueueFixtures.anon, exposures: [("onboarding", "no-such-variant")]), .unexplained)
        return (events, planted)
    }

    func audit(_ text: String, named name: String, bundle: String = ExposureAuditTests.bundle) throws -> ExposureAudit {
        let directory = try QueueFixtures.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = try QueueFixtures.write(text, to: directory.appendingPathComponent(name))
        let inspector = QueueInspector(now: QueueFixtures.baseTime)
        let audit = ExposureAudit(bundle: try JSONDocument(bytes: Array(bundle.utf8)).root, listLimit: 100)
        inspector.exposureAudit = audit
        _ = try inspector.inspect(try QueueSource.sources(at: path))
        return audit
    }

    func testPlantedMismatchesAreFoundWithTheirCauseAndAgreeingExposuresAreNot() throws {
        let (events, planted) = Self.generate()
        XCTAssertEqual(Set(planted.values), Set(ExposureAudit.Cause.allCases), "every cause is planted")
        let ndjson = events.map(\.json).joined(separator: "\n") + "\n"
        let audit = try audit(ndjson, named: "pending_events.json")
        XCTAssertEqual(audit.agreeing, 10_000, "no false positive among the agreeing exposures")
        XCTAssertEqual(audit.checked, 10_000 + planted.count)
        XCTAssertEqual(audit.mismatchCount, planted.count)
        var found: [String: ExposureAudit.Cause] = [:]
        for mismatch in audit.mismatches { found[mismatch.eventID!] = mismatch.cause }
        XCTAssertEqual(found, planted)
        // Queue order, so the output is stable.
        let order = events.map(\.id).filter { planted[$0] != nil }
        XCTAssertEqual(audit.mismatches.map(\.eventID!), order)
        let notRunning = try XCTUnwrap(audit.mismatches.first { $0.cause == .experimentNotRunning })
        XCTAssertEqual(notRunning.recorded, "a")
        XCTAssertNil(notRunning.expected)
        let moved = try XCTUnwrap(audit.mismatches.first { $0.cause == .bundleVersion })
        XCTAssertEqual(moved.expected, Self.reference("moved-0", "onboarding"))
    }

    /// The general path (a legacy JSON array, iOS <= 1.0.68) gives the same verdicts.
    func testTheLegacyArrayQueueGivesTheSameVerdicts() throws {
        let (events, planted) = Self.generate()
        let sample = events.prefix(400).filter { planted[$0.id] == nil } + events.filter { planted[$0.id] != nil }
        let audit = try audit("[" + sample.map(\.json).joined(separator: ",") + "]", named: "pending_events.json")
        var found: [String: ExposureAudit.Cause] = [:]
        for mismatch in audit.mismatches { found[mismatch.eventID!] = mismatch.cause }
        XCTAssertEqual(found, planted)
        XCTAssertEqual(audit.mismatchCount, planted.count)
    }

    /// The tape path reads only unescaped strings; an event whose user id, experiment, variant,
    /// country or app version is escaped goes through the document path, and the verdicts are
    /// those of the same event written plainly. Half the sample disagrees (its variant is
    /// flipped), so an escaped user id hashed as raw bytes could not pass for an agreement.
    func testEscapedStringsGiveTheSameVerdictsAsPlainOnes() throws {
        let (events, planted) = Self.generate()
        var sample = events.prefix(600).filter { planted[$0.id] == nil && $0.user != nil } + events.filter { planted[$0.id] != nil }
        for index in sample.indices where index % 2 == 0 && sample[index].exposures[0].0 == "onboarding" {
            sample[index].exposures[0].1 = sample[index].exposures[0].1 == "control" ? "streamlined" : "control"
        }
        let plain = sample.map(\.json)
        // `"user_id":"user-1"` → `"user_id":"\u0075ser-1"`, one field per event in turn, all
        // of them on every fifth event; on the planted events the country and app version only
        // (read as unknown, they would let the planted not-eligible exposures pass).
        let fields = ["user_id", "exp", "variant", "country", "app_version"]
        let escaped = plain.enumerated().map { index, line -> String in
            var line = line
            for (k, field) in fields.enumerated()
            where planted[sample[index].id] != nil ? k >= 3 : (index % 5 == 4 || index % 5 == k) {
                guard let range = line.range(of: "\"\(field)\":\"") else { continue }
                let first = line[range.upperBound]
                guard first.isASCII, first != "\\" else { continue }
                let code = String(first.asciiValue!, radix: 16)
                line.replaceSubrange(range.upperBound...range.upperBound, with: "\\u00" + (code.count == 1 ? "0" : "") + code)
            }
            return line
        }
        XCTAssertTrue(escaped.allSatisfy { $0.contains("\\u00") })
        let expected = try audit(plain.joined(separator: "\n") + "\n", named: "pending_events.json")
        let audit = try audit(escaped.joined(separator: "\n") + "\n", named: "pending_events.json")
        XCTAssertGreaterThan(expected.mismatchCount, sample.count / 3, "the flipped exposures disagree")
        XCTAssertEqual(audit.checked, expected.checked)
        XCTAssertEqual(audit.agreeing, expected.agreeing)
        XCTAssertEqual(audit.mismatchCount, expected.mismatchCount)
        func rows(_ audit: ExposureAudit) -> [String] {
            audit.mismatches.map { [$0.eventID ?? "-", $0.experiment, $0.recorded ?? "-", $0.expected ?? "-", $0.cause.rawValue, $0.detail].joined(separator: "|") }
        }
        XCTAssertEqual(rows(audit), rows(expected))
    }

    func testCancelledEventsAndEventsWithoutUsersAreNotAudited() throws {
        let event = Event(id: QueueFixtures.id(1), user: "mystery", anon: QueueFixtures.anon, exposures: [("onboarding", "no-such-variant")])
        let audit = try audit(event.json + "\n" + QueueFixtures.tombstone([1]) + "\n", named: "pending_events.json")
        XCTAssertEqual(audit.checked, 0)
        XCTAssertEqual(audit.mismatchCount, 0)
    }

    /// Devices hash bytes: an exposure recorded under the NFD spelling of an experiment id is
    /// not one of the bundle's NFC experiment, and an NFD variant id is not the NFC one.
    func testIdsAreMatchedByTheirBytesNotByCanonicalEquivalence() throws {
        let nfc = "caf\u{E9}", nfd = "cafe\u{301}"
        let bundle = """
        {"bundle_version": 7, "experiments": {"\(nfc)-exp": {"status": "running", "salt": "s",
          "variants": [{"id": "\(nfc)", "weight": 1}]}}}
        """
        var events: [String] = []
        var renamed = Event(id: QueueFixtures.id(1), user: "u1", anon: QueueFixtures.anon, exposures: [("\(nfd)-exp", nfc)])
        renamed.bundleVersion = 7
        events.append(renamed.json)
        var variant = Event(id: QueueFixtures.id(2), user: "u2", anon: QueueFixtures.anon, exposures: [("\(nfc)-exp", nfd)])
        variant.bundleVersion = 7
        events.append(variant.json)
        var agreeing = Event(id: QueueFixtures.id(3), user: "u3", anon: QueueFixtures.anon, exposures: [("\(nfc)-exp", nfc)])
        agreeing.bundleVersion = 7
        events.append(agreeing.json)
        for name in ["pending_events.ndjson", "pending_events.json"] {
            let text = name.hasSuffix(".ndjson") ? events.joined(separator: "\n") + "\n" : "[" + events.joined(separator: ",") + "]"
            let audit = try audit(text, named: name, bundle: bundle)
            XCTAssertEqual(audit.checked, 3, name)
            XCTAssertEqual(audit.agreeing, 1, name)
            XCTAssertEqual(audit.mismatches.map(\.cause), [.experimentMissing, .unexplained], name)
            XCTAssertTrue(audit.mismatches[0].detail.contains("only in Unicode normalisation: NFD vs NFC"), audit.mismatches[0].detail)
            XCTAssertTrue(audit.mismatches[1].detail.contains("only in Unicode normalisation: NFD vs NFC"), audit.mismatches[1].detail)
        }
    }

    /// iOS SDKs before 1.0.78 ignore traffic allocation: a user outside the share who got a
    /// variant there agrees. A blank user id is hashed as the anonymous id, as the SDK does.
    func testOldIOSIgnoresTrafficAllocationAndABlankUserIdFallsBackToTheAnonymousId() throws {
        var k = 0, user = ""
        repeat { k += 1; user = "outside-\(k)" } while referenceMurmur3(Array("upsell.up.\(user).allocation".utf8), seed: 0) % 10_000 < 5_000
        var old = Event(id: QueueFixtures.id(1), user: user, anon: QueueFixtures.anon, exposures: [("onboarding", Self.reference(user, "onboarding"))])
        old.platform = "ios"; old.sdk = "1.0.77"; old.exposures.append(("upsell", Self.reference(user, "upsell")))
        var new = old
        new.id = QueueFixtures.id(2); new.sdk = "1.0.78"
        var blank = Event(id: QueueFixtures.id(3), user: " ", anon: QueueFixtures.anon, exposures: [("onboarding", Self.reference(QueueFixtures.anon, "onboarding"))])
        blank.platform = "android"
        var empty = blank
        empty.id = QueueFixtures.id(4); empty.user = ""
        let text = [old, new, blank, empty].map(\.json).joined(separator: "\n") + "\n"
        let audit = try audit(text, named: "pending_events.ndjson")
        XCTAssertEqual(audit.checked, 6)
        XCTAssertEqual(audit.mismatches.map(\.eventID), [QueueFixtures.id(2)], "only the 1.0.78 device applies the allocation")
        XCTAssertEqual(audit.mismatches.first?.cause, .notEligible)
    }

    /// The SDK records one exposure per experiment per session: later ones in the same session
    /// of the same user are counted (bundle experiments only, agreeing or not), whether the
    /// event went through the fast path or the general one (an escaped field sends it there).
    func testExposuresRepeatedWithinASessionAreCountedOnEitherPath() throws {
        let agreeing = ("onboarding", Self.reference("u1", "onboarding"))
        let first = Event(id: QueueFixtures.id(1), user: "u1", anon: QueueFixtures.anon, exposures: [agreeing])
        var escaped = first
        escaped.id = QueueFixtures.id(2)
        var otherSession = first
        otherSession.id = QueueFixtures.id(3); otherSession.session = "s2"
        var otherUser = Event(id: QueueFixtures.id(4), user: "u2", anon: QueueFixtures.anon, exposures: [("onboarding", Self.reference("u2", "onboarding"))])
        otherUser.session = "s1"
        var notInBundle = first
        notInBundle.id = QueueFixtures.id(5); notInBundle.exposures = [("no-such-experiment", "a"), ("no-such-experiment", "a")]
        var disagreeing = first
        disagreeing.id = QueueFixtures.id(6); disagreeing.exposures = [("onboarding", "no-such-variant")]
        let lines = [first.json, escaped.json.replacingOccurrences(of: #""country":"US""#, with: #""country":"U\u0053""#),
                     otherSession.json, otherUser.json, notInBundle.json, disagreeing.json]
        XCTAssertTrue(lines[1].contains(#"U\u0053"#))
        let audit = try audit(lines.joined(separator: "\n") + "\n", named: "pending_events.ndjson")
        XCTAssertEqual(audit.repeated.experiments.map(\.experiment), ["onboarding"])
        let counts = try XCTUnwrap(audit.repeated.experiments.first)
        XCTAssertEqual([counts.sessions, counts.exposures, counts.duplicateExposures, counts.usersWithDuplicates], [3, 5, 2, 1])
        XCTAssertEqual(counts.examples.map { [$0.repeated.line, $0.first.line] }, [[2, 1], [6, 1]])
    }

    /// Memory stays bounded: only the 10,000 most recently started sessions are remembered, so
    /// a session that comes back after 10,000 others is counted as a new one; within the window
    /// every repeat is found.
    func testRepeatedExposuresRememberABoundedWindowOfSessions() {
        var repeated = RepeatedExposures(experimentIDs: ["a", "b"])
        let here = QueueLocation(path: "q", line: 1)
        repeated.record(session: 1, user: 7, experiment: 0, at: here)
        repeated.record(session: 1, user: 7, experiment: 1, at: here)
        repeated.record(session: 1, user: 7, experiment: 0, at: here)  // a repeat
        repeated.record(session: 1, user: 8, experiment: 0, at: here)  // another user's session
        for session in 2..<UInt64(RepeatedExposures.openSessions) {  // 10,000 open with the two above
            repeated.record(session: session, user: 7, experiment: 1, at: here)
        }
        repeated.record(session: 1, user: 7, experiment: 0, at: here)  // still open: a repeat
        repeated.record(session: UInt64(RepeatedExposures.openSessions), user: 7, experiment: 1, at: here)  // the oldest is forgotten
        repeated.record(session: 1, user: 7, experiment: 0, at: here)  // forgotten: counted as a new session
        XCTAssertEqual(repeated.experiments.map(\.experiment), ["a", "b"])
        let a = repeated.experiments[0]
        XCTAssertEqual([a.sessions, a.exposures, a.duplicateExposures, a.usersWithDuplicates], [3, 5, 2, 1])
        XCTAssertEqual(repeated.duplicateExposures, 2)
    }
}
