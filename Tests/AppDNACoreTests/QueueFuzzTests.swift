import AppDNACore
import Foundation
import XCTest

/// Seeded mutation fuzzing of the text readers: valid NDJSON and shared-prefs queues with
/// bytes flipped, inserted, deleted, duplicated and cut off. Every mutant must be read to the
/// end without crashing, every problem must carry a line inside the file, and every item must
/// be accounted for.
final class QueueFuzzTests: XCTestCase {
    var directory: URL!

    override func setUpWithError() throws { directory = try QueueFixtures.directory() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: directory) }

    static let mutator = ByteMutator(tokens: ["{", "}", "[", "]", ",", ":", "\"", "\\", "\n", "\r", "&", ";", "<", ">", "/", " ", "0", "e", "-",
                                              "\u{0}", "\u{FF}", "é", "&amp;", "&#x", "{\"appdna_removed\": [", "\"event_id\":"],
                                     maxEdits: 8, maxDelete: 20, maxDuplicate: 200)

    static func mutate(_ input: [UInt8], _ rng: inout SplitMix64) -> [UInt8] {
        mutator.mutate(input, using: &rng)
    }

    func fuzz(name: String, seed: UInt64, iterations: Int, _ make: () -> String) throws {
        var rng = SplitMix64(seed: seed)
        let original = Array(make().utf8)
        let url = directory.appendingPathComponent(name)
        for iteration in 0..<iterations {
            let mutant = Self.mutate(original, &rng)
            try Data(mutant).write(to: url)
            let lines = mutant.split(separator: 10, omittingEmptySubsequences: false).count
            guard let source = try? QueueSource.detect(path: url.path) else { continue }
            var items = 0
            try source.read { item in
                items += 1
                switch item {
                case .problem(let problem):
                    XCTAssertTrue((0...lines).contains(problem.location.line), "seed \(seed) iteration \(iteration): line \(problem.location.line) of \(lines)")
                    XCTAssertFalse(problem.message.isEmpty)
                case .event(let event):
                    XCTAssertTrue((1...lines).contains(event.location.line), "seed \(seed) iteration \(iteration)")
                    _ = EventFields(event.root)
                default: break
                }
                return true
            }
            _ = try QueueInspector(now: QueueFixtures.baseTime).inspect([source])
            XCTAssertLessThan(items, mutant.count + 2)
        }
    }

    func testNDJSONMutants() throws {
        typealias F = QueueFixtures
        try fuzz(name: "pending_events.json", seed: 0x5EED_0001, iterations: 400) {
            "[" + F.event(1) + "," + F.event(2) + "]\n" + (3...8).map { F.event($0) }.joined(separator: "\n") + "\n" + F.tombstone([3, 4]) + "\n" + F.event(9) + "\n"
        }
    }

    func testJSONArrayMutants() throws {
        typealias F = QueueFixtures
        try fuzz(name: "pending_events.json", seed: 0x5EED_0002, iterations: 300) {
            "[\n" + (1...6).map { "  " + F.event($0) }.joined(separator: ",\n") + "\n]\n"
        }
    }

    func testSharedPrefsMutants() throws {
        typealias F = QueueFixtures
        try fuzz(name: "ai.appdna.sdk.xml", seed: 0x5EED_0003, iterations: 400) {
            F.sharedPrefs((1...6).map { F.event($0, name: "a<b>&\"c'") })
        }
    }
}
