import CSQLite
import Fiber
import Foundation

/// One SQLite connection: the module's only file that calls SQLite's C API.
/// Not thread-safe; `SQLiteCacheStorage`, an actor, owns it.
final class SQLiteConnection {
    private var handle: OpaquePointer?
    /// Prepared statements by their SQL, reused: preparing parses and plans each time.
    private var statements: [String: OpaquePointer] = [:]
    let path: String

    /// Opens (creating) the database at `path`, waiting up to `busyTimeout` for other processes' locks.
    /// - Throws: `CacheStorageError` when it cannot be opened.
    init(path: String, busyTimeout: Duration) throws(CacheStorageError) {
        self.path = path
        var db: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let code = sqlite3_open_v2(path, &db, flags, nil)
        handle = db
        guard code == SQLITE_OK else {
            let error = Self.error(code, db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open", path: path)
            sqlite3_close_v2(db)
            handle = nil
            throw error
        }
        let milliseconds = Int32(clamping: busyTimeout.components.seconds * 1000
            + busyTimeout.components.attoseconds / 1_000_000_000_000_000)
        sqlite3_busy_timeout(db, milliseconds)
        sqlite3_extended_result_codes(db, 0)
    }

    deinit { close() }

    /// Closes the connection (later statements fail).
    func close() {
        for statement in statements.values { sqlite3_finalize(statement) }
        statements = [:]
        sqlite3_close_v2(handle)
        handle = nil
    }

    /// Runs `sql`, which returns no rows that matter.
    /// - Throws: `CacheStorageError` as SQLite reports it.
    func execute(_ sql: String) throws(CacheStorageError) {
        var message: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &message)
        defer { sqlite3_free(message) }
        guard code == SQLITE_OK else {
            throw Self.error(code, message.map { String(cString: $0) } ?? "failed", path: path)
        }
    }

    /// A value bound to a statement's parameter.
    enum Value {
        case text(String)
        case blob(Data)
        case integer(Int64)
        case real(Double)
    }

    /// A column of a result row.
    enum Column {
        case text
        case blob
        case integer
        case real
    }

    /// Runs `sql` with `values` bound in order, and returns its rows, each the `columns` asked for.
    /// - Throws: `CacheStorageError` as SQLite reports it.
    @discardableResult
    func query(_ sql: String, _ values: [Value] = [], columns: [Column] = []) throws(CacheStorageError) -> [[Value]] {
        let statement = try prepared(sql)
        // Ready for the next use whatever happens here; bound blobs are copied by SQLite.
        defer {
            sqlite3_reset(statement)
            sqlite3_clear_bindings(statement)
        }
        var code: Int32
        for (index, value) in values.enumerated() {
            let position = Int32(index + 1)
            switch value {
            case .text(let text): code = sqlite3_bind_text(statement, position, text, -1, Self.transient)
            case .blob(let data):
                code = data.withUnsafeBytes { sqlite3_bind_blob64(statement, position, $0.baseAddress, UInt64($0.count), Self.transient) }
            case .integer(let number): code = sqlite3_bind_int64(statement, position, number)
            case .real(let number): code = sqlite3_bind_double(statement, position, number)
            }
            guard code == SQLITE_OK else { throw lastError(code) }
        }
        var rows: [[Value]] = []
        while true {
            code = sqlite3_step(statement)
            if code == SQLITE_DONE { return rows }
            guard code == SQLITE_ROW else { throw lastError(code) }
            rows.append(columns.enumerated().map { index, column in Self.read(statement, Int32(index), as: column) })
        }
    }

    /// The statement for `sql`, prepared once.
    private func prepared(_ sql: String) throws(CacheStorageError) -> OpaquePointer {
        if let statement = statements[sql] { return statement }
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard code == SQLITE_OK, let statement else {
            sqlite3_finalize(statement)
            throw lastError(code)
        }
        statements[sql] = statement
        return statement
    }

    /// Changes made by the last statement.
    var changes: Int { Int(sqlite3_changes(handle)) }

    private static func read(_ statement: OpaquePointer?, _ index: Int32, as column: Column) -> Value {
        switch column {
        case .text:
            return .text(sqlite3_column_text(statement, index).map { String(cString: $0) } ?? "")
        case .blob:
            let count = Int(sqlite3_column_bytes(statement, index))
            guard count > 0, let bytes = sqlite3_column_blob(statement, index) else { return .blob(Data()) }
            return .blob(Data(bytes: bytes, count: count))
        case .integer:
            return .integer(sqlite3_column_int64(statement, index))
        case .real:
            return .real(sqlite3_column_double(statement, index))
        }
    }

    private func lastError(_ code: Int32) -> CacheStorageError {
        Self.error(code, handle.map { String(cString: sqlite3_errmsg($0)) } ?? "closed", path: path)
    }

    /// SQLite's result code as a storage error.
    static func error(_ code: Int32, _ message: String, path: String) -> CacheStorageError {
        let kind: CacheStorageError.Kind = switch code & 0xff {
        case SQLITE_CORRUPT, SQLITE_NOTADB, SQLITE_FORMAT: .corrupt
        case SQLITE_BUSY, SQLITE_LOCKED: .busy
        default: .io
        }
        return CacheStorageError(kind, path: path, detail: "SQLite \(code): \(message)")
    }

    /// `SQLITE_TRANSIENT`: SQLite copies the bound bytes (the macro does not import).
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}
