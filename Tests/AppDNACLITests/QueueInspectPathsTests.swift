import Foundation
import XCTest
import TestSupport
@testable import AppDNACLI
@testable import AppDNACore

/// `queue inspect` reads iOS NDJSON queues through a parallel tape fast path; every other
/// format (and, when told, NDJSON too) goes item by item through the readers. The two must be
/// one behaviour: the whole `--json` output, exposure audit included, byte for byte, over
/// queues with every kind of line.
final class QueueInspectPathsTests: XCTestCase {
    static let bundle = """
    {"bundle_version": 3, "experiments": {
      "onboarding": {"status": "running", "salt": "ob", "variants": [{"id": "control", "weight": 0.5}, {"id": "b", "weight": 0.5}]},
      "caf\\u00e9": {"status": "running", "salt": "s", "traffic_allocation": 0.5, "platforms": ["ios"],
                     "variants": [{"id": "x", "weight": 1}]}}}
    """

    /// One event with exposures, in one of several spellings.
    static func event(_ n: Int, escaped: Bool, user: String?, exposures: String) -> String {
        let name = escaped ? #"scr\u0065en_\"viewed\""# : "screen_viewed"
        let userPart = user.map { #","user_id":"\#($0)""# } ?? ""
        return #"{"schema_version":1,"event_id":"\#(TestEvents.id(n))","event_name":"\#(name)","ts_ms":\#(1_771_495_200_000 + Int64(n) * 1000),"user":{"anon_id":"11111111-1111-4111-8111-11111111111\#(n % 10)"\#(userPart)},"device":{"platform":"\#(n % 3 == 0 ? "android" : "ios")","sdk_version":"1.0.7\#(n % 10)","bundle_version":3,"app_version":"2.0"},"context":{"session_id":"s\#(n % 4)","client_seq":\#(n % 7 == 0 ? n + 2 : n),"experiment_exposures":\#(exposures)},"properties":{"k":"\u00e9\#(n)"}}"#
    }

    static func queue(seed: UInt64) -> String {
        var state = seed
        func next(_ n: Int) -> Int {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Int((z ^ (z >> 31)) % UInt64(n))
        }
        var lines: [String] = []
        for n in 1...400 {
            let exposures = [#"[]"#, #"[{"exp":"onboarding","variant":"control"},{"exp":"onboarding","variant":"b"}]"#,
                             #"[{"exp":"caf\u00e9","variant":"x"}]"#, #"[{"exp":"cafe\u0301","variant":"x"}]"#,
                             #"[{"exp":"gone","variant":"a"},{"exp":3}]"#][next(5)]
            let user = [nil, "u\(n % 9)", "", " ", "z\\u00f6e"][next(5)]
            switch next(14) {
            case 0: lines.append(#"{"appdna_removed":["\#(TestEvents.id(max(1, n - 3)))"]}"#)
            case 1: lines.append(#"{"event_id": "broken"#)
            case 2: lines.append("   ")
            case 3: lines.append(#"{"schema_version":1,"event_id":"\#(TestEvents.id(n))","event_name":"x\udcff"}"#)  // a lone surrogate escape
            case 4: lines.append(event(max(1, n - 1), escaped: false, user: user, exposures: exposures))  // a repeated id
            case 5: lines.append("[" + event(n, escaped: false, user: user, exposures: exposures) + "]")
            case 6: lines.append(#"{"not":"an event"}"#)
            default: lines.append(event(n, escaped: next(2) == 0, user: user, exposures: exposures))
            }
        }
        // An oversized line (over the SDK's 5 MiB cap) in the first queue only (read byte by
        // byte in a debug build, four times per queue, it was most of the test's time), and a
        // last line cut off.
        if seed == 1 {
            lines.insert("{\"event_id\":\"" + String(repeating: "a", count: QueueSourceSummary.byteCap + 10) + "\"}", at: 200)
        }
        return lines.joined(separator: "\n") + "\n" + String(event(999, escaped: false, user: nil, exposures: "[]").prefix(40))
    }

    func output(_ path: String, throughTheTape: Bool, bundle: String?) throws -> String {
        let inspector = QueueInspector(now: 1_771_495_800_000)
        inspector.readsNDJSONThroughTheTape = throughTheTape
        if let bundle { inspector.exposureAudit = ExposureAudit(bundle: try JSONDocument(bytes: Array(bundle.utf8)).root) }
        let summary = try inspector.inspect(try QueueSource.sources(at: path))
        let sink = OutputSink(capturingAsTerminal: false)
        QueueInspectReport.writeJSON(summary, audit: inspector.exposureAudit, to: sink)
        return sink.capturedText
    }

    func testTheTapePathAndTheItemPathGiveTheSameOutput() throws {
        let scratch = try ScratchDirectory("inspect-paths")
        defer { scratch.remove() }
        for seed: UInt64 in [1, 2, 3] {
            let path = try scratch.file("pending_events-\(seed).ndjson", Array(Self.queue(seed: seed).utf8))
            for bundle in [nil, Self.bundle] {
                let tape = try output(path, throughTheTape: true, bundle: bundle)
                let items = try output(path, throughTheTape: false, bundle: bundle)
                XCTAssertTrue(tape.contains("\"live\""), tape)
                if tape != items {
                    let a = tape.split(separator: "\n"), b = items.split(separator: "\n")
                    let first = zip(a, b).enumerated().first { $0.element.0 != $0.element.1 }
                    XCTFail("seed \(seed), bundle \(bundle != nil): the paths differ at line \(first?.offset ?? min(a.count, b.count)):\n tape:  \(first?.element.0 ?? "")\n items: \(first?.element.1 ?? "")")
                }
            }
        }
    }
}
