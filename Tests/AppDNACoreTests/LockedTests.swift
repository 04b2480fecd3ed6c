import XCTest
@testable import AppDNACore

/// `Locked`: what one thread changes under the lock the next holder sees whole, and a thread
/// waiting inside the box wakes when the value it waits for is broadcast.
final class LockedTests: XCTestCase {
    func testIncrementsFromManyThreadsAreNeverLost() {
        let counter = Locked(0)
        let started = Locked(0)
        let threads = (0..<4).map { _ in
            ThreadSpawner.spawn {
                // All start together, so they really run at once.
                started.withLock { $0 += 1 }
                while started.withLock({ $0 }) < 4 {}
                for _ in 0..<200_000 {
                    counter.withLock { value in
                        // Read, then write after a call the optimiser cannot remove: without
                        // the lock another thread's write in between is lost (580,796 of
                        // 800,000 were counted when the lock was taken out).
                        let before = value
                        if SystemTime.monotonicNanoseconds() < 0 { return }
                        value = before + 1
                    }
                }
            }
        }
        for thread in threads { thread.join() }
        XCTAssertEqual(counter.withLock { $0 }, 800_000)
    }

    struct Line {
        var items: [Int] = []
        var waiting = 0
        var closed = false
    }

    func testAWaiterIsCountedWhileItWaitsAndWakesOnBroadcast() {
        let line = Locked(Line())
        let taken = Locked<[Int]>([])
        let consumer = ThreadSpawner.spawn {
            while let item = line.withLock(until: { !$0.items.isEmpty || $0.closed }, counting: \.waiting, { line -> Int? in
                line.items.isEmpty ? nil : line.items.removeFirst()
            }) {
                taken.withLock { $0.append(item) }
            }
        }
        // The consumer waits (counted) for the first item.
        let deadline = SystemTime.monotonicNanoseconds() + 10_000_000_000
        while line.withLock({ $0.waiting }) != 1 && SystemTime.monotonicNanoseconds() < deadline { SystemTime.sleep(0.001) }
        XCTAssertEqual(line.withLock { $0.waiting }, 1, "the waiting consumer is counted")
        for item in 1...100 {
            line.withLock { $0.items.append(item) }
            line.broadcast()
        }
        line.withLock { $0.closed = true }
        line.broadcast()
        consumer.join()
        XCTAssertEqual(taken.withLock { $0 }, Array(1...100))
        XCTAssertEqual(line.withLock { $0.waiting }, 0, "no one waits once it returned")
    }
}
