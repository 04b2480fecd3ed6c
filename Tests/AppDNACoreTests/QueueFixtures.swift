import AppDNACore
import Foundation
import XCTest
import TestSupport

/// Queue fixtures written by the tests themselves, in every on-device format.
enum QueueFixtures {
    static let anon = "11111111-1111-4111-8111-111111111111"
    static let otherAnon = "22222222-2222-4222-8222-222222222222"
    /// 2026-02-19T10:00:00Z
    static let baseTime: Int64 = 1_771_495_200_000

    static func id(_ n: Int) -> String { TestEvents.id(n) }

    /// One SDK-shaped event as compact JSON; `extra` replaces top-level fields (raw JSON text).
    static func event(_ n: Int, name: String = "app_open", anon: String = QueueFixtures.anon, seq: Int? = nil,
                      ts: Int64? = nil, platform: String = "ios", sdk: String = "1.0.78", session: String = "s1",
                      consent: Bool = true, properties: String = "{}", extra: [String: String] = [:]) -> String {
        var fields: [(String, String)] = [
            ("schema_version", "1"),
            ("event_id", "\"\(id(n))\""),
            ("event_name", "\"\(name)\""),
            ("ts_ms", "\(ts ?? baseTime + Int64(n) * 60_000)"),
            ("user", "{\"anon_id\":\"\(anon)\"}"),
            ("device", "{\"platform\":\"\(platform)\",\"os\":\"17.0.1\",\"app_version\":\"1.0.0\",\"sdk_version\":\"\(sdk)\",\"bundle_version\":42,\"locale\":\"en-US\",\"country\":\"US\"}"),
            ("context", "{\"session_id\":\"\(session)\",\"screen\":\"home\",\"experiment_exposures\":[{\"exp\":\"onboarding-v2\",\"variant\":\"control\"}],\"client_seq\":\(seq ?? n)}"),
            ("properties", properties),
            ("privacy", "{\"consent\":{\"analytics\":\(consent)}}"),
        ]
        for (key, value) in extra {
            if let index = fields.firstIndex(where: { $0.0 == key }) { fields[index].1 = value } else { fields.append((key, value)) }
        }
        fields.removeAll { $0.1.isEmpty }
        return "{" + fields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
    }

    static func tombstone(_ ids: [Int]) -> String {
        "{\"appdna_removed\":[" + ids.map { "\"\(id($0))\"" }.joined(separator: ",") + "]}"
    }

    /// A fresh directory, removed by the caller's tearDown.
    static func directory() throws -> URL {
        try ScratchDirectory("queue").url
    }

    @discardableResult
    static func write(_ text: String, to url: URL) throws -> String {
        try Data(text.utf8).write(to: url)
        return url.path
    }

    /// An Android `appdna_events.db` in WAL mode. Rows are `(created_at, json)`. The returned
    /// connection stays open so the rows stay in the `-wal` file (closing would checkpoint them
    /// into the database and delete the log); release it to close.
    static func sqlite(at url: URL, rows: [(Int64, String?)], checkpointed: [(Int64, String?)] = []) throws -> SQLiteDatabase {
        let database = try SQLiteDatabase(path: url.path, flags: SQLite.openReadWrite | SQLite.openCreate)
        try database.execute("""
            PRAGMA journal_mode=WAL;
            PRAGMA wal_autocheckpoint=0;
            CREATE TABLE pending_events (_id INTEGER PRIMARY KEY AUTOINCREMENT, event_json TEXT NOT NULL, created_at INTEGER NOT NULL);
            """)
        func insert(_ rows: [(Int64, String?)]) throws {
            let statement = try database.prepare("INSERT INTO pending_events (event_json, created_at) VALUES (?, ?)")
            for (created, json) in rows {
                statement.reset()
                if let json { statement.bind(1, json) }
                statement.bind(2, created)
                _ = try statement.step()
            }
        }
        try insert(checkpointed)
        if !checkpointed.isEmpty { try database.execute("PRAGMA wal_checkpoint(TRUNCATE);") }
        try insert(rows)
        return database
    }

    /// Every file in a directory with its bytes, to prove nothing was created or changed.
    static func snapshot(_ directory: URL) throws -> [String: Data] {
        var result: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path) {
            result[name] = try Data(contentsOf: directory.appendingPathComponent(name))
        }
        return result
    }

    static func sharedPrefs(_ events: [String], extraLines: String = "") -> String {
        func escape(_ text: String) -> String {
            text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "\"", with: "&quot;")
                .replacingOccurrences(of: "<", with: "&lt;").replacingOccurrences(of: ">", with: "&gt;")
        }
        return """
        <?xml version='1.0' encoding='utf-8' standalone='yes' ?>
        <map>
            <string name="anon_id">\(anon)</string>
            <long name="client_seq" value="42" />
            <string name="event_queue">\(events.map(escape).joined(separator: "\n"))</string>
        \(extraLines)</map>

        """
    }
}
