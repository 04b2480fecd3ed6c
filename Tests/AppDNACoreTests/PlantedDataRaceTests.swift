import Foundation
import XCTest
@testable import AppDNACore

/// The proof that the ThreadSanitizer run (scripts/tsan-check, .github/workflows/tsan.yml) can
/// fail. Two threads add to one counter, each under a lock, and the total is exact. With
/// APPDNA_TSAN_PLANTED_RACE=1 the lock is left out: the same writes are then a data race, which
/// TSan must report (`WARNING: ThreadSanitizer: data race`, and the test process exits 66);
/// `scripts/tsan-check --plant` runs it so and fails unless TSan does. The locked run is part of
/// the TSan run too, so the harness itself is shown free of races.
final class PlantedDataRaceTests: XCTestCase {
    static let variable = "APPDNA_TSAN_PLANTED_RACE"
    static let writes = 100_000

    /// A plain stored property: nothing but `lock` orders the threads' writes to it.
    final class Counter: @unchecked Sendable {
        var count = 0
        let lock = NSLock()
    }

    func testTwoThreadsAddToOneCounterUnderALockUnlessARaceIsPlanted() {
        let planted = ProcessInfo.processInfo.environment[Self.variable] == "1"
        let counter = Counter()
        // Both threads run their loops at the same time, so without the lock the writes overlap;
        // TSan reports the unordered pair however the scheduler interleaves them.
        let threads = (0..<2).map { _ in
            ThreadSpawner.spawn {
                for _ in 0..<Self.writes {
                    if planted {
                        counter.count += 1
                    } else {
                        counter.lock.lock()
                        counter.count += 1
                        counter.lock.unlock()
                    }
                }
            }
        }
        threads.forEach { $0.join() }
        if planted {
            // Lost updates are possible (that is the race); the test's verdict is TSan's report.
            XCTAssertLessThanOrEqual(counter.count, 2 * Self.writes)
        } else {
            XCTAssertEqual(counter.count, 2 * Self.writes, "the lock orders every write")
        }
    }
}
