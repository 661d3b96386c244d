public import Hangar

extension HangarError {
    /// A result code SQLite reported, as it reported it (extended codes are on, so `SQLITE_BUSY_SNAPSHOT` rather
    /// than `SQLITE_BUSY`).
    ///
    /// Two codes are equal when their primary codes (the low byte) are, so `error.sqliteResultCode == .busy`
    /// holds for `SQLITE_BUSY` and for each of its extended codes. Compare ``rawValue`` to tell extended codes
    /// apart.
    public struct SQLiteResultCode: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        /// The code as SQLite reported it, extended bits included.
        public let rawValue: Int32

        public init(rawValue: Int32) { self.rawValue = rawValue }

        /// The primary code, without the extended bits.
        public var primary: SQLiteResultCode { SQLiteResultCode(rawValue: rawValue & 0xFF) }

        /// `SQLITE_ERROR`: a generic error.
        public static let error = SQLiteResultCode(rawValue: 1)
        /// `SQLITE_PERM`: access permission denied.
        public static let permission = SQLiteResultCode(rawValue: 3)
        /// `SQLITE_ABORT`: an operation was aborted.
        public static let abort = SQLiteResultCode(rawValue: 4)
        /// `SQLITE_BUSY`: another connection holds a lock the operation needs.
        public static let busy = SQLiteResultCode(rawValue: 5)
        /// `SQLITE_LOCKED`: a conflict within the same connection or a shared cache.
        public static let locked = SQLiteResultCode(rawValue: 6)
        /// `SQLITE_NOMEM`: out of memory.
        public static let noMemory = SQLiteResultCode(rawValue: 7)
        /// `SQLITE_READONLY`: an attempt to write a read-only database.
        public static let readOnly = SQLiteResultCode(rawValue: 8)
        /// `SQLITE_INTERRUPT`: the operation was interrupted.
        public static let interrupt = SQLiteResultCode(rawValue: 9)
        /// `SQLITE_IOERR`: the operating system reported an I/O error.
        public static let ioError = SQLiteResultCode(rawValue: 10)
        /// `SQLITE_CORRUPT`: the database file is malformed.
        public static let corrupt = SQLiteResultCode(rawValue: 11)
        /// `SQLITE_FULL`: the disk (or the database's size limit) is full.
        public static let full = SQLiteResultCode(rawValue: 13)
        /// `SQLITE_CANTOPEN`: the database file could not be opened.
        public static let cannotOpen = SQLiteResultCode(rawValue: 14)
        /// `SQLITE_SCHEMA`: the schema changed.
        public static let schema = SQLiteResultCode(rawValue: 17)
        /// `SQLITE_TOOBIG`: a string or blob is too large.
        public static let tooBig = SQLiteResultCode(rawValue: 18)
        /// `SQLITE_CONSTRAINT`: a constraint was violated.
        public static let constraint = SQLiteResultCode(rawValue: 19)
        /// `SQLITE_MISMATCH`: a data type mismatch.
        public static let mismatch = SQLiteResultCode(rawValue: 20)
        /// `SQLITE_MISUSE`: the library was used incorrectly.
        public static let misuse = SQLiteResultCode(rawValue: 21)
        /// `SQLITE_RANGE`: a bind parameter index is out of range.
        public static let range = SQLiteResultCode(rawValue: 25)
        /// `SQLITE_NOTADB`: the file is not a database.
        public static let notADatabase = SQLiteResultCode(rawValue: 26)

        public static func == (lhs: Self, rhs: Self) -> Bool { lhs.rawValue & 0xFF == rhs.rawValue & 0xFF }

        public func hash(into hasher: inout Hasher) { hasher.combine(rawValue & 0xFF) }

        /// `SQLITE_BUSY (5)`, or `SQLITE_BUSY (517)` for an extended code; `SQLite result code N` for others.
        public var description: String {
            let names: [Int32: String] = [
                1: "SQLITE_ERROR", 2: "SQLITE_INTERNAL", 3: "SQLITE_PERM", 4: "SQLITE_ABORT", 5: "SQLITE_BUSY",
                6: "SQLITE_LOCKED", 7: "SQLITE_NOMEM", 8: "SQLITE_READONLY", 9: "SQLITE_INTERRUPT",
                10: "SQLITE_IOERR", 11: "SQLITE_CORRUPT", 12: "SQLITE_NOTFOUND", 13: "SQLITE_FULL",
                14: "SQLITE_CANTOPEN", 15: "SQLITE_PROTOCOL", 16: "SQLITE_EMPTY", 17: "SQLITE_SCHEMA",
                18: "SQLITE_TOOBIG", 19: "SQLITE_CONSTRAINT", 20: "SQLITE_MISMATCH", 21: "SQLITE_MISUSE",
                22: "SQLITE_NOLFS", 23: "SQLITE_AUTH", 24: "SQLITE_FORMAT", 25: "SQLITE_RANGE", 26: "SQLITE_NOTADB",
            ]
            guard let name = names[rawValue & 0xFF] else { return "SQLite result code \(rawValue)" }
            return "\(name) (\(rawValue))"
        }
    }
}

extension HangarError {
    /// SQLite's result code (extended, as SQLite reported it), for errors SQLite reported.
    public var sqliteResultCode: SQLiteResultCode? { resultCode.map(SQLiteResultCode.init(rawValue:)) }
}
