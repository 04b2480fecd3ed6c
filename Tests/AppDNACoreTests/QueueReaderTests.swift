import AppDNACore
import Foundation
import XCTest

final class QueueReaderTests: XCTestCase {
    var directory: URL!
    let now = QueueFixtures.baseTime + 86_400_000

    override func setUpWithError() throws { directory = try QueueFixtures.directory() }
    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: directory) }

    func items(_ path: String) throws -> [String] {
        var out: [String] = []
        try QueueSource.detect(path: path).read { item in
            switch item {
            case .event(let event):
                out.append("\(event.cancelled ? "cancelled" : "event") \(event.location.line > 0 ? "\(event.location.line)" : "_id=\(event.location.rowID!)") \(event.root["event_id"]?.string ?? "?")")
            case .problem(let problem):
                out.append("\(problem.kind.rawValue) \(problem.location.line > 0 ? "\(problem.location.line)" : "-"): \(problem.message)")
            case .tombstone(let location, let ids): out.append("tombstone \(location.line) \(ids)")
            case .legacyArray(let location): out.append("legacy \(location.line)")
            }
            return true
        }
        return out
    }

    func summary(_ paths: [String]) throws -> QueueSummary {
        try QueueInspector(now: now).inspect(paths.map { try QueueSource.sources(at: $0) }.flatMap { $0 })
    }

    // MARK: - iOS

    func testNDJSONWithLegacyFirstLineTombstonesGarbageAndCutOffTail() throws {
        typealias F = QueueFixtures
        let lines = [
            "[" + F.event(1) + "," + F.event(2) + "]",
            F.event(3),
            F.tombstone([1, 3]),
            "this is not json",
            F.event(5, name: "purchase_completed"),
            "",
            F.event(3), // the id again after its tombstone: live
            F.event(6, extra: ["event_id": "\"ABC\""]),
        ]
        let text = lines.joined(separator: "\n") + "\n" + String(F.event(7).prefix(50))
        let path = try F.write(text, to: directory.appendingPathComponent("pending_events.json"))
        XCTAssertEqual(try QueueSource.detect(path: path).format, .iosArray)
        XCTAssertEqual(try items(path), [
            "cancelled 1 \(F.id(1))", "event 1 \(F.id(2))",
            "legacy 1",
            "cancelled 2 \(F.id(3))",
            "tombstone 3 2",
            "malformed 4: column 2: expected 'true', found 'h'",
            "event 5 \(F.id(5))",
            "event 7 \(F.id(3))",
            "event 8 ABC",
            "truncated 9: the last line is cut off (50 bytes, no final newline): an append interrupted on the device; skipped",
        ])
        let s = try summary([path])
        XCTAssertEqual(s.sources[0].format, .iosNDJSON)
        XCTAssertEqual(s.sources[0].legacyArrayLine, 1)
        XCTAssertEqual(s.sources[0].tombstoneLines, 1)
        XCTAssertEqual([s.live, s.cancelled, s.malformed, s.truncated], [4, 2, 1, 1])
        XCTAssertEqual(s.names.map { "\($0.name)=\($0.count)" }, ["app_open=3", "purchase_completed=1"])
        XCTAssertEqual(s.duplicateIDs, 0, "the cancelled copy of event 3 is not a duplicate")
        XCTAssertEqual(s.rejectedCount, 1)
        XCTAssertEqual(s.rejected[0].location.line, 8)
        XCTAssertEqual(s.rejected[0].findings.map(\.code), ["not-lowercase-uuid"])
        // client_seq 1,2,3,5,6,3 (cancelled ones count as seen): 4 is missing; 3 repeats.
        XCTAssertEqual(s.missingSequenceNumbers, 1)
        XCTAssertEqual(s.sequenceGaps.map { "\($0.from)-\($0.to)" }, ["4-4"])
        XCTAssertEqual(s.repeatedSequenceNumbers, 1)
    }

    func testPrettyPrintedArrayAndDuplicatesDropsConsentHorizon() throws {
        typealias F = QueueFixtures
        let events = [
            F.event(1, ts: now - 8 * 86_400_000),
            F.event(2, name: "_sdk_events_dropped", properties: "{\"count\":17}"),
            F.event(2, name: "_sdk_events_dropped", properties: "{\"count\":17}"),
            F.event(4, anon: F.otherAnon, platform: "android", sdk: "1.0.42", session: "s2", consent: false),
        ]
        let pretty = "[\n  " + events.map { $0.replacingOccurrences(of: ",\"", with: ",\n    \"") }.joined(separator: ",\n  ") + "\n]\n"
        let path = try F.write(pretty, to: directory.appendingPathComponent("pending_events.json"))
        let s = try summary([path])
        XCTAssertEqual(s.sources[0].format, .iosArray)
        XCTAssertEqual([s.live, s.cancelled, s.malformed, s.truncated], [4, 0, 0, 0])
        XCTAssertEqual(s.pastHorizon, 1)
        XCTAssertEqual(s.oldest, now - 8 * 86_400_000)
        XCTAssertEqual(s.dropEvents, 2)
        XCTAssertEqual(s.droppedTotal, 34)
        XCTAssertEqual(s.duplicateIDs, 1)
        XCTAssertEqual(s.duplicateEvents, 1)
        XCTAssertEqual(s.duplicates[0].eventID, F.id(2))
        let startLines = pretty.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            .filter { $0.element.hasPrefix("  {") }.map { $0.offset + 1 }
        XCTAssertEqual(s.duplicates[0].locations.map(\.line), [startLines[1], startLines[2]], "each element's first line")
        XCTAssertEqual(s.duplicates[0].locations.count, 2)
        XCTAssertEqual(s.consentFalse, 1)
        XCTAssertEqual(s.users.count, 2)
        XCTAssertEqual(s.sessions.count, 2)
        XCTAssertEqual(s.platforms.map { "\($0.name)=\($0.count)" }, ["ios=3", "android=1"])
        XCTAssertEqual(s.sdkVersions.map { "\($0.name)=\($0.count)" }, ["ios 1.0.78=3", "android 1.0.42=1"])
        // Seqs 1, 2, 2, 4 on two devices: anon 1 has 1,2 (2 repeated), the other only 4.
        XCTAssertEqual(s.missingSequenceNumbers, 0)
        XCTAssertEqual(s.repeatedSequenceNumbers, 1)
    }

    func testArrayCutOffInsideAnElement() throws {
        typealias F = QueueFixtures
        let text = "[" + F.event(1) + ",\n" + F.event(2) + ",\n" + String(F.event(3).prefix(30))
        let path = try F.write(text, to: directory.appendingPathComponent("q.json"))
        XCTAssertEqual(try items(path), [
            "event 1 \(F.id(1))", "event 2 \(F.id(2))",
            "truncated 3: the file ends inside the array (30 bytes of an unfinished element); skipped",
        ])
    }

    func testCutOffLineFollowedByAnAppendOnTheSameLineKeepsTheAppendedEvent() throws {
        typealias F = QueueFixtures
        let text = F.event(1) + "\n" + String(F.event(2).prefix(40)) + F.event(3) + "\n" + F.event(4) + "\n"
        let path = try F.write(text, to: directory.appendingPathComponent("q.json"))
        XCTAssertEqual(try items(path), [
            "event 1 \(F.id(1))",
            "malformed 2: a cut-off event (40 bytes) followed by a complete one on the same line; the cut-off part skipped",
            "event 2 \(F.id(3))",
            "event 3 \(F.id(4))",
        ])
    }

    func testBinaryJunkLinesAreReportedAndReadingGoesOn() throws {
        typealias F = QueueFixtures
        var bytes = Array((F.event(1) + "\n").utf8)
        bytes += [0x00, 0xFF, 0xFE, 0x7B, 0x22, 0xC3, 0x28, 0x0A]   // NUL, invalid UTF-8, '{"'
        bytes += Array("{\"event_id\": 12,\n".utf8)
        bytes += Array((F.event(2) + "\r\n").utf8)
        bytes += [0x5B, 0x31, 0x2C, 0x0A]                          // "[1," mid-file
        bytes += Array((F.event(3) + "\n").utf8)
        let url = directory.appendingPathComponent("q.json")
        try Data(bytes).write(to: url)
        let listed = try items(url.path)
        XCTAssertEqual(listed.filter { $0.hasPrefix("event") }, ["event 1 \(F.id(1))", "event 4 \(F.id(2))", "event 6 \(F.id(3))"])
        XCTAssertEqual(listed.filter { $0.hasPrefix("malformed") }.map { $0.split(separator: ":")[0] }, ["malformed 2", "malformed 3", "malformed 5"])
    }

    // MARK: - Android SQLite

    func testSQLiteInWALModeReadsTheLogInCreatedAtOrderWithoutTouchingTheFiles() throws {
        typealias F = QueueFixtures
        let url = directory.appendingPathComponent("appdna_events.db")
        let connection = try F.sqlite(at: url, rows: [
            (300, F.event(3)), (100, F.event(1)), (200, "{not json"), (100, F.event(2)), (400, "[1,2]"),
        ], checkpointed: [(50, F.event(9, seq: 0))])
        // The four newest rows are only in the write-ahead log.
        let wal = try Data(contentsOf: URL(fileURLWithPath: url.path + "-wal"))
        XCTAssertGreaterThan(wal.count, 0)
        let main = try Data(contentsOf: url)
        XCTAssertNil(main.range(of: Data(F.id(3).utf8)), "event 3 must be in the -wal only")
        let before = try F.snapshot(directory)

        XCTAssertEqual(try items(url.path), [
            "event _id=1 \(F.id(9))", "event _id=3 \(F.id(1))", "event _id=5 \(F.id(2))",
            "malformed -: event_json: line 1, column 2: expected a string key or '}', found 'n'",
            "event _id=2 \(F.id(3))",
            "malformed -: event_json is a array, not an event object",
        ])
        let s = try summary([directory.path])
        XCTAssertEqual(s.sources.map(\.format), [.androidSQLite])
        XCTAssertEqual([s.live, s.malformed], [4, 2])
        XCTAssertEqual(s.sources[0].problems.map { $0.location.rowID }, [4, 6])
        XCTAssertEqual(s.missingSequenceNumbers, 0)
        XCTAssertEqual(try F.snapshot(directory), before, "input files byte-for-byte unchanged, nothing new beside them")
        _ = connection
    }

    /// Issue 44: the usual mistake with `adb pull` is to copy `appdna_events.db` without its
    /// `-wal`. A database never checkpointed then has an empty schema in the file: it used to be
    /// called "not an event queue: the database has no pending_events table"; the error now says
    /// the log is missing (66) and which files to copy. With the log beside it, it reads.
    func testSQLiteInWALModeCopiedWithoutItsLogSaysToCopyTheLog() throws {
        typealias F = QueueFixtures
        let device = directory.appendingPathComponent("device")
        let pulled = directory.appendingPathComponent("pulled")
        for url in [device, pulled] { try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) }
        let original = device.appendingPathComponent("appdna_events.db")
        let connection = try F.sqlite(at: original, rows: [(100, F.event(1)), (200, F.event(2))])
        let copy = pulled.appendingPathComponent("appdna_events.db")
        try FileManager.default.copyItem(at: original, to: copy)
        let header = Array(try Data(contentsOf: copy).prefix(20))
        XCTAssertEqual([header[18], header[19]], [2, 2], "the file says WAL mode")

        do {
            _ = try items(copy.path)
            XCTFail("read without its -wal")
        } catch let failure as Failure {
            XCTAssertEqual(failure.kind, .inputMissing)
            XCTAssertEqual(failure.message, "\(copy.path): the database is in WAL mode but its write-ahead log \(copy.path)-wal is missing: the pending_events table and the events not yet checkpointed are in that file")
            XCTAssertEqual(failure.hint, "copy appdna_events.db-wal (and appdna_events.db-shm) from the device with appdna_events.db, into the same directory under the same name (\(copy.path)-wal), then run this again")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: pulled.path), ["appdna_events.db"], "nothing written beside it")

        try FileManager.default.copyItem(atPath: original.path + "-wal", toPath: copy.path + "-wal")
        XCTAssertEqual(try items(copy.path), ["event _id=1 \(F.id(1))", "event _id=2 \(F.id(2))"])
        _ = connection
    }

    /// A database in WAL mode closed cleanly has no `-wal`, and its tables in the file: one
    /// without pending_events is another app's database, still "not an event queue".
    func testAnotherWALDatabaseWithoutItsLogIsStillNotAQueue() throws {
        let url = directory.appendingPathComponent("other.db")
        do {
            let database = try SQLiteDatabase(path: url.path, flags: SQLite.openReadWrite | SQLite.openCreate)
            try database.execute("PRAGMA journal_mode=WAL; CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('x');")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: url.path + "-wal"), "closing checkpointed and removed the log")
        XCTAssertEqual(Array(try Data(contentsOf: url).prefix(20))[18...19], [2, 2])
        XCTAssertThrowsError(try items(url.path)) { error in
            XCTAssertEqual((error as? Failure)?.message, "\(url.path): not an event queue: the database has no pending_events table")
        }
    }

    func testTruncatedSQLiteFileIsReportedNotFatal() throws {
        typealias F = QueueFixtures
        let url = directory.appendingPathComponent("appdna_events.db")
        do {
            let rows = (1...400).map { (Int64($0), F.event($0, properties: "{\"pad\":\"" + String(repeating: "x", count: 400) + "\"}")) }
            _ = try F.sqlite(at: url, rows: [], checkpointed: rows)
        }
        try? FileManager.default.removeItem(atPath: url.path + "-wal")
        try? FileManager.default.removeItem(atPath: url.path + "-shm")
        let full = try Data(contentsOf: url)
        try full.prefix(full.count / 2).write(to: url)
        let before = try F.snapshot(directory)
        let listed = try items(url.path)
        XCTAssertTrue(listed.last!.hasPrefix("unreadable -: "), listed.last!)
        XCTAssertLessThan(listed.count, 401)
        XCTAssertEqual(try F.snapshot(directory), before)
        // Garbage with a SQLite header.
        try Data("SQLite format 3\0".utf8 + [UInt8](repeating: 0xAB, count: 3000)).write(to: url)
        XCTAssertTrue(try items(url.path).allSatisfy { $0.hasPrefix("unreadable") })
    }

    // MARK: - Android shared preferences

    func testSharedPrefsXMLWithEscapesAndBadEscapes() throws {
        typealias F = QueueFixtures
        var xml = F.sharedPrefs([F.event(1, name: "a&b"), F.event(2, session: "s2"), F.event(3)])
        // A writer that forgot to escape one '&' and one unknown entity.
        xml = xml.replacingOccurrences(of: "a&amp;b", with: "a&b")
        xml = xml.replacingOccurrences(of: "&quot;s2&quot;,&quot;screen", with: "&quot;s2&quot;,&bogus;&quot;screen")
        let path = try F.write(xml, to: directory.appendingPathComponent("ai.appdna.sdk.xml"))
        XCTAssertEqual(try QueueSource.detect(path: path).format, .androidSharedPrefs)
        let listed = try items(path)
        XCTAssertEqual(listed.count, 5, listed.joined(separator: "\n"))
        XCTAssertEqual(listed[0], "bad-escape 5: column 162: bad XML escape '&b&quot;'; kept as written")
        XCTAssertEqual(listed[1], "event 5 \(F.id(1))")
        XCTAssertTrue(listed[2].hasPrefix("bad-escape 6: "), listed[2])
        XCTAssertEqual(listed[3], "malformed 6: event JSON: expected a string key after ',', found '&'")
        XCTAssertEqual(listed[4], "event 7 \(F.id(3))")
    }

    func testSharedPrefsNumericEntitiesAndCutOff() throws {
        typealias F = QueueFixtures
        let joined = [F.event(1), F.event(2)].map {
            $0.replacingOccurrences(of: "\"", with: "&#34;")
        }.joined(separator: "&#10;")
        let xml = "<?xml version='1.0' encoding='utf-8' standalone='yes' ?>\n<map>\n<string name='event_queue'>" + joined + "&#x0A;" + String(F.event(3).prefix(20))
        let path = try F.write(xml, to: directory.appendingPathComponent("prefs.xml"))
        let listed = try items(path)
        XCTAssertEqual(Array(listed.prefix(2)), ["event 3 \(F.id(1))", "event 3 \(F.id(2))"])
        XCTAssertTrue(listed[2].hasPrefix("truncated 3: the file ends inside event_queue (20 bytes"), listed[2])
        XCTAssertTrue(listed[3].hasPrefix("truncated 3: the file ends before </string>"), listed[3])
    }

    // MARK: - directories and detection

    func testDirectoryDumpFindsQueuesByContent() throws {
        typealias F = QueueFixtures
        let library = directory.appendingPathComponent("Library/Application Support/ai.appdna.sdk")
        try FileManager.default.createDirectory(at: library, withIntermediateDirectories: true)
        try F.write(F.event(1) + "\n", to: library.appendingPathComponent("renamed.bin"))
        try F.write("{\"bundle_version\": 3, \"experiments\": {}}", to: library.appendingPathComponent("appdna-config.json"))
        let prefs = directory.appendingPathComponent("shared_prefs")
        try FileManager.default.createDirectory(at: prefs, withIntermediateDirectories: true)
        try F.write(F.sharedPrefs([F.event(2)]), to: prefs.appendingPathComponent("ai.appdna.sdk.xml"))
        try F.write("<?xml version='1.0'?>\n<map><int name=\"x\" value=\"1\"/></map>\n", to: prefs.appendingPathComponent("other.xml"))
        let noBackup = directory.appendingPathComponent("no_backup")
        try FileManager.default.createDirectory(at: noBackup, withIntermediateDirectories: true)
        let connection = try F.sqlite(at: noBackup.appendingPathComponent("appdna_events.db"), rows: [(1, F.event(3))])
        let other = try SQLiteDatabase(path: noBackup.appendingPathComponent("other.db").path, flags: SQLite.openReadWrite | SQLite.openCreate)
        try other.execute("CREATE TABLE t (x); INSERT INTO t VALUES (1);")
        let before = try F.snapshot(noBackup)

        let found = try QueueSource.sources(at: directory.path)
        XCTAssertEqual(found.map { String($0.path.dropFirst(directory.path.count)) + " " + $0.format.rawValue }, [
            "/Library/Application Support/ai.appdna.sdk/renamed.bin ios-ndjson",
            "/no_backup/appdna_events.db android-sqlite",
            "/shared_prefs/ai.appdna.sdk.xml android-shared-prefs",
        ])
        let s = try QueueInspector(now: now).inspect(found)
        XCTAssertEqual(s.live, 3)
        XCTAssertEqual(try F.snapshot(noBackup), before)
        _ = (connection, other)
    }

    func testDetectionErrors() throws {
        let empty = try QueueFixtures.write("", to: directory.appendingPathComponent("empty"))
        XCTAssertThrowsError(try QueueSource.detect(path: empty)) { XCTAssertEqual(($0 as? Failure)?.kind, .malformedInput) }
        let text = try QueueFixtures.write("hello\n", to: directory.appendingPathComponent("text"))
        XCTAssertThrowsError(try QueueSource.detect(path: text)) { XCTAssertEqual(($0 as? Failure)?.kind, .malformedInput) }
        XCTAssertThrowsError(try QueueSource.sources(at: directory.path + "/missing")) { XCTAssertEqual(($0 as? Failure)?.kind, .inputMissing) }
    }

    // MARK: - schema

    func testSchemaFindings() {
        typealias F = QueueFixtures
        func codes(_ json: String) -> [String] {
            let document = try! JSONDocument(bytes: Array(json.utf8))
            return EventFields(document.root).findings.map { "\($0.code) \($0.pointer)" }
        }
        XCTAssertEqual(codes(F.event(1)), [])
        XCTAssertEqual(codes("{}"), ["missing-field /event_id", "missing-field /event_name", "missing-field /ts_ms", "missing-field /user"])
        XCTAssertEqual(codes(F.event(1, extra: ["event_id": "\"\(F.id(0xabcdef).uppercased())\""])), ["not-lowercase-uuid /event_id"])
        // A whole value is an integer however it is written (JSON Schema's `integer`); a fraction is not.
        XCTAssertEqual(codes(F.event(1, extra: ["ts_ms": "1.5e12"])), [])
        XCTAssertEqual(codes(F.event(1, extra: ["ts_ms": "1771495200000.5"])), ["wrong-type /ts_ms"])
        XCTAssertEqual(codes(F.event(1, extra: ["ts_ms": "\"1771495200000\""])), ["wrong-type /ts_ms"])
        XCTAssertEqual(codes(F.event(1, extra: ["user": "{\"user_id\":\"u\"}"])), ["missing-field /user/anon_id"])
        XCTAssertEqual(codes(F.event(1, extra: ["event_name": "\"\""])), ["empty /event_name"])
        XCTAssertEqual(codes(F.event(1, extra: ["properties": "null"])), ["null-field /properties"])
        XCTAssertEqual(codes(F.event(1, extra: ["schema_version": "2"])), ["schema-version /schema_version"])
        XCTAssertEqual(codes(F.event(1, extra: ["context": "{\"client_seq\":\"7\",\"experiment_exposures\":[{\"exp\":1}]}"])),
                       ["wrong-type /context/client_seq", "wrong-type /context/experiment_exposures/0/exp", "missing-field /context/experiment_exposures/0/variant"])
        XCTAssertEqual(codes(F.event(1, extra: ["privacy": "{\"consent\":{\"analytics\":\"yes\"}}"])), ["wrong-type /privacy/consent/analytics"])
        XCTAssertEqual(codes(F.event(1, extra: ["device": "{\"bundle_version\":4.5,\"platform\":7}"])), ["wrong-type /device/bundle_version", "wrong-type /device/platform"])
    }

    func testSequenceRangesAndDistinctCounter() {
        var counter = DistinctCounter()
        for i in 0..<200_000 { counter.insert("user-\(i % 150_000)") }
        XCTAssertTrue(counter.isApproximate)
        XCTAssertEqual(Double(counter.count), 150_000, accuracy: 150_000 * 0.05)
        var exact = DistinctCounter()
        for i in 0..<1000 { exact.insert("u\(i % 10)") }
        XCTAssertEqual(exact.count, 10)
        XCTAssertFalse(exact.isApproximate)
    }
}
