@testable import AppDNACore

/// Writing SQLite databases, which only the tests do (queue fixtures in the Android SDK's
/// layout): the product opens queues read-only, so these helpers live here, over the same
/// dlopen'ed library the product reads with.
extension SQLiteDatabase {
    /// Runs SQL that returns no rows (several statements allowed).
    func execute(_ sql: String) throws(Failure) {
        let status = api.exec(handle, sql, nil, nil, nil)
        if status != SQLite.ok { throw Failure(.malformedInput, errorMessage) }
    }
}

extension SQLiteStatement {
    func reset() { _ = database.api.reset(handle) }

    func bind(_ index: Int32, _ text: String) {
        // SQLITE_TRANSIENT: SQLite copies the text.
        _ = database.api.bindText(handle, index, text, -1, UnsafeRawPointer(bitPattern: -1))
    }

    func bind(_ index: Int32, _ value: Int64) { _ = database.api.bindInt64(handle, index, value) }
}
