import AppDNACore
import Foundation
import XCTest

final class ReplayJournalTests: XCTestCase {
    var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("appdna-journal-\(UUID().uuidString)")
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: directory) }

    func testEventIDAcceptsOnlyLowercaseUUIDs() {
        XCTAssertNotNil(EventID128("00000001-0000-4000-8000-00000000000a"))
        XCTAssertEqual(EventID128("00000001-0000-4000-8000-00000000000a"), EventID128("00000001-0000-4000-8000-00000000000a"))
        XCTAssertNotEqual(EventID128("00000001-0000-4000-8000-00000000000a"), EventID128("00000001-0000-4000-8000-00000000000b"))
        XCTAssertNil(EventID128("00000001-0000-4000-8000-00000000000A"))
        XCTAssertNil(EventID128("00000001-0000-4000-8000-00000000000"))
        XCTAssertNil(EventID128("000000010000-4000-8000-00000000000a0"))
    }

    func testRecordsSurviveAndACutOffLineIsIgnored() throws {
        let a = "00000001-0000-4000-8000-000000000001", b = "00000002-0000-4000-8000-000000000002"
        let c = "00000003-0000-4000-8000-000000000003"
        var journal: ReplayJournal? = try ReplayJournal(directory: directory.path)
        XCTAssertTrue(journal!.delivered.isEmpty)
        try journal!.openForWriting()
        try journal!.record(deadLetter: false, status: 200, ids: [a, b])
        try journal!.record(deadLetter: true, status: 400, ids: [c])
        let path = journal!.journalPath
        journal = nil   // the process ends: the lock goes with it
        // A crash in the middle of the next write.
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        handle.seekToEndOfFile()
        handle.write(Data("delivered 200 00000004-0000-4000-8000-0000".utf8))
        try handle.close()

        let reread = try ReplayJournal(directory: directory.path)
        XCTAssertEqual(reread.delivered, [EventID128(a)!, EventID128(b)!])
        XCTAssertEqual(reread.deadLettered, [EventID128(c)!])
        XCTAssertEqual(reread.ignoredLines, 1)
        // Appending after the cut-off line starts a fresh line.
        try reread.openForWriting()
        try reread.record(deadLetter: false, status: 202, ids: ["00000005-0000-4000-8000-000000000005"])
        let third = try ReplayJournal(directory: directory.path)
        XCTAssertEqual(third.delivered.count, 3)
    }

    func testTheLockIsExclusive() throws {
        let first = try ReplayJournal(directory: directory.path)
        try first.openForWriting()
        let second = try ReplayJournal(directory: directory.path)
        XCTAssertThrowsError(try second.openForWriting()) { error in
            XCTAssertTrue("\(error)".contains("pid \(getpid())"), "\(error)")
        }
    }

    func testBatchBodySplicesEventsAndGroupsByPlatformAndVersion() {
        var batcher = ReplayBatcher(size: 2)
        let ios = ReplayGroup(platform: "ios", sdkVersion: "1.0.78"), android = ReplayGroup(platform: "android", sdkVersion: "2.0.0")
        func event(_ text: String) -> ReplayEvent { ReplayEvent(id: "x", bytes: Array(text.utf8), location: QueueLocation(path: "q")) }
        XCTAssertNil(batcher.add(event("{\"a\": 1}"), group: ios))
        XCTAssertNil(batcher.add(event("{\"b\":2}"), group: android))
        let full = batcher.add(event("{ \"c\" :3 }"), group: ios)
        XCTAssertEqual(full.map { String(decoding: $0.body, as: UTF8.self) }, "{\"batch\":[{\"a\": 1},{ \"c\" :3 }]}")
        let rest = batcher.finish()
        XCTAssertEqual(rest.map(\.group), [android])
    }
}
