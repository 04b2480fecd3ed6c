/// The few SQLite calls the queue readers (and the tests that build fixture databases) need,
/// from `libsqlite3` loaded with `dlopen` at first use. Linking the library would add its
/// loading and relocation to the start-up of every command, `appdna bucket` included; loading
/// it only when a database is opened keeps one-shot commands as fast as a hello-world.
public enum SQLite {
    public static let openReadOnly: Int32 = 0x0000_0001
    public static let openReadWrite: Int32 = 0x0000_0002
    public static let openCreate: Int32 = 0x0000_0004
    public static let openURI: Int32 = 0x0000_0040
    static let ok: Int32 = 0, row: Int32 = 100, done: Int32 = 101
    public static let typeNull: Int32 = 5

    typealias OpenV2 = @convention(c) (UnsafePointer<CChar>?, UnsafeMutablePointer<OpaquePointer?>?, Int32, UnsafePointer<CChar>?) -> Int32
    typealias Close = @convention(c) (OpaquePointer?) -> Int32
    typealias ErrMsg = @convention(c) (OpaquePointer?) -> UnsafePointer<CChar>?
    typealias PrepareV2 = @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, Int32, UnsafeMutablePointer<OpaquePointer?>?, UnsafeMutablePointer<UnsafePointer<CChar>?>?) -> Int32
    typealias Step = @convention(c) (OpaquePointer?) -> Int32
    typealias ColumnInt64 = @convention(c) (OpaquePointer?, Int32) -> Int64
    typealias ColumnBlob = @convention(c) (OpaquePointer?, Int32) -> UnsafeRawPointer?
    typealias ColumnInt = @convention(c) (OpaquePointer?, Int32) -> Int32
    typealias BindText = @convention(c) (OpaquePointer?, Int32, UnsafePointer<CChar>?, Int32, UnsafeRawPointer?) -> Int32
    typealias BindInt64 = @convention(c) (OpaquePointer?, Int32, Int64) -> Int32
    typealias Exec = @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, UnsafeRawPointer?, UnsafeRawPointer?, UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32

    // Unchecked because C function pointers are not Sendable to Swift; these are loaded once,
    // never changed, and libsqlite3's functions may be called from any thread.
    struct Functions: @unchecked Sendable {
        let open: OpenV2, close: Close, errmsg: ErrMsg, prepare: PrepareV2, step: Step, finalize: Step, reset: Step
        let columnInt64: ColumnInt64, columnText: ColumnBlob, columnBytes: ColumnInt, columnType: ColumnInt
        let bindText: BindText, bindInt64: BindInt64, exec: Exec
    }

    /// Loaded once, on first use; nil (with the reason) when the library is not installed.
    static let functions: Result<Functions, Failure> = load()

    static func load() -> Result<Functions, Failure> {
        // APPDNA_LIBSQLITE3 replaces the search with one file (see SystemLibrary).
        let library: LoadedLibrary
        do { library = try SystemLibrary.sqlite.open() } catch { return .failure(error) }
        var missing: String? = nil
        func symbol<T>(_ name: String, _ type: T.Type) -> T {
            if let pointer = library.symbol(name) { return unsafeBitCast(pointer, to: type) }
            missing = missing ?? name
            return unsafeBitCast(library.symbol("sqlite3_libversion") ?? UnsafeMutableRawPointer(bitPattern: 1)!, to: type)
        }
        let functions = Functions(
            open: symbol("sqlite3_open_v2", OpenV2.self), close: symbol("sqlite3_close_v2", Close.self),
            errmsg: symbol("sqlite3_errmsg", ErrMsg.self), prepare: symbol("sqlite3_prepare_v2", PrepareV2.self),
            step: symbol("sqlite3_step", Step.self), finalize: symbol("sqlite3_finalize", Step.self),
            reset: symbol("sqlite3_reset", Step.self),
            columnInt64: symbol("sqlite3_column_int64", ColumnInt64.self), columnText: symbol("sqlite3_column_text", ColumnBlob.self),
            columnBytes: symbol("sqlite3_column_bytes", ColumnInt.self), columnType: symbol("sqlite3_column_type", ColumnInt.self),
            bindText: symbol("sqlite3_bind_text", BindText.self), bindInt64: symbol("sqlite3_bind_int64", BindInt64.self),
            exec: symbol("sqlite3_exec", Exec.self))
        if let missing {
            return .failure(SystemLibrary.sqlite.missing("the library found has no \(missing)"))
        }
        return .success(functions)
    }

    static func api() throws(Failure) -> Functions {
        switch functions {
        case let .success(f): return f
        case let .failure(error): throw error
        }
    }
}

/// An open SQLite connection.
public final class SQLiteDatabase {
    let handle: OpaquePointer
    let api: SQLite.Functions

    /// Opens `path` (a `file:` URI when `flags` include `SQLite.openURI`).
    public init(path: String, flags: Int32) throws(Failure) {
        let api = try SQLite.api()
        var handle: OpaquePointer? = nil
        let status = api.open(path, &handle, flags, nil)
        guard status == SQLite.ok, let handle else {
            let message = handle.flatMap { api.errmsg($0) }.map { String(cString: $0) } ?? "error \(status)"
            if let handle { _ = api.close(handle) }
            throw Failure(.malformedInput, message)
        }
        self.handle = handle
        self.api = api
    }

    deinit { _ = api.close(handle) }

    public var errorMessage: String { api.errmsg(handle).map { String(cString: $0) } ?? "unknown error" }

    public func prepare(_ sql: String) throws(Failure) -> SQLiteStatement {
        var statement: OpaquePointer? = nil
        let status = api.prepare(handle, sql, -1, &statement, nil)
        guard status == SQLite.ok, let statement else { throw Failure(.malformedInput, errorMessage) }
        return SQLiteStatement(database: self, handle: statement)
    }
}

/// A prepared statement; finalised when released.
public final class SQLiteStatement {
    let database: SQLiteDatabase
    let handle: OpaquePointer

    init(database: SQLiteDatabase, handle: OpaquePointer) {
        self.database = database
        self.handle = handle
    }

    deinit { _ = database.api.finalize(handle) }

    /// true: a row is ready; false: done. Throws with SQLite's message on any error.
    public func step() throws(Failure) -> Bool {
        let status = database.api.step(handle)
        if status == SQLite.row { return true }
        if status == SQLite.done { return false }
        throw Failure(.malformedInput, database.errorMessage)
    }

    public func int64(_ column: Int32) -> Int64 { database.api.columnInt64(handle, column) }

    public func isNull(_ column: Int32) -> Bool { database.api.columnType(handle, column) == SQLite.typeNull }

    /// The column as UTF-8 text bytes (valid until the next step).
    public func text(_ column: Int32) -> UnsafeRawBufferPointer {
        let pointer = database.api.columnText(handle, column)
        let count = Int(database.api.columnBytes(handle, column))
        return UnsafeRawBufferPointer(start: pointer, count: pointer == nil ? 0 : count)
    }
}
