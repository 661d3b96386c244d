import Foundation
import Hangar

/// Reads a store file that may be damaged, row by row, so that a damaged page costs only the rows it holds
/// (``SQLiteStore/survey(path:)``, `SQLiteStore.salvage(from:to:)`).
///
/// Nothing here goes through the store's schema checks or its indexes for the rows themselves: a table is
/// walked by rowid (its own b-tree), and when a step of the walk meets a page SQLite cannot read, the walk
/// looks for the first rowid past it whose page reads (probing further and further, then bisecting back), and
/// goes on from there. The documents table's index on (collection, key) is walked too, from both ends, to
/// name the documents whose rows are in a damaged page. Every failure is a value, never thrown past a row.
final class DamagedFileReader {
    let connection: SQLiteConnection
    /// A file cut short is read from a copy zero-filled to the length its header gives (SQLite refuses its
    /// schema otherwise, as the tables' pages past the end are missing): the copy, removed when done.
    private let extendedCopy: String?
    /// The file's length and the length its header gives, when it is cut short.
    let cutShort: (length: Int, declared: Int)?
    /// Opens the sealed bodies read (a store encrypted at rest).
    let encryption: (any DocumentEncryption)?

    /// Opens the file read-only; only a file SQLite cannot open at all (missing, a folder, no permission) throws.
    init(path: String, encryption: (any DocumentEncryption)? = nil) throws(HangarError) {
        self.encryption = encryption
        var shortfall = Self.shortfall(of: path)
        // A file shorter than its header says, whose write-ahead log holds the rest (a checkpoint that could not
        // extend the file, on a full disk), is whole: SQLite reads those pages from the log.
        if shortfall != nil, Self.readsWholeWithItsLog(path) { shortfall = nil }
        var readPath = path
        if let shortfall, let copy = Self.extendedCopy(of: path, to: shortfall.declared) {
            readPath = copy
            extendedCopy = copy
        } else {
            extendedCopy = nil
        }
        cutShort = shortfall
        do throws(HangarError) {
            // On a read-only file system, an immutable URI: SQLite could not make the log's shared memory there.
            let location = try SQLiteStore.readOnlyLocation(of: readPath)
            do {
                connection = try SQLiteConnection(path: location, mode: .readOnly, busyTimeout: 5_000)
            } catch {
                throw HangarError(error)
            }
        } catch {
            extendedCopy.map { try? FileManager.default.removeItem(atPath: $0) }
            throw error
        }
    }

    deinit {
        guard let extendedCopy else { return }
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: extendedCopy + suffix) }
    }

    /// The file's length and the length its SQLite header gives (page size × page count), when it is shorter.
    private static func shortfall(of path: String) -> (length: Int, declared: Int)? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let header = try? handle.read(upToCount: 100), header.count == 100,
            header.starts(with: Array("SQLite format 3\0".utf8)),
            let length = try? handle.seekToEnd()
        else { return nil }
        let bytes = [UInt8](header)
        let sizeField = Int(bytes[16]) << 8 | Int(bytes[17])
        let pageSize = sizeField == 1 ? 65_536 : sizeField
        let pages = bytes[28..<32].reduce(0) { $0 << 8 | Int($1) }
        let declared = pageSize * pages
        // Only a plausible header: a power-of-two page size, and at most 4 GiB to fill.
        guard pageSize >= 512, pageSize & (pageSize - 1) == 0, declared > Int(length), declared <= 1 << 32 else {
            return nil
        }
        return (Int(length), declared)
    }

    /// Whether SQLite, reading the file together with its write-ahead log, finds the database sound.
    private static func readsWholeWithItsLog(_ path: String) -> Bool {
        guard FileManager.default.fileExists(atPath: path + "-wal"),
            let location = try? SQLiteStore.readOnlyLocation(of: path),
            let connection = try? SQLiteConnection(path: location, mode: .readOnly, busyTimeout: 5_000)
        else { return false }
        return (try? connection.integrityCheck(limit: 1)) == ["ok"]
    }

    /// A copy of the file (and its log) in the temporary folder, zero-filled to `declared` bytes; nil when it
    /// cannot be written.
    private static func extendedCopy(of path: String, to declared: Int) -> String? {
        let copy = NSTemporaryDirectory() + "hangar-salvage-\(UUID().uuidString).sqlite"
        do {
            try FileManager.default.copyItem(atPath: path, toPath: copy)
            if FileManager.default.fileExists(atPath: path + "-wal") {
                try FileManager.default.copyItem(atPath: path + "-wal", toPath: copy + "-wal")
            }
            let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: copy))
            defer { try? handle.close() }
            try handle.truncate(atOffset: UInt64(declared))
            return copy
        } catch {
            try? FileManager.default.removeItem(atPath: copy)
            return nil
        }
    }

    /// A stretch of a table's rows the walk could not read: from after `after` (the last rowid read before
    /// it, nil at the start) to before `before` (the first read after it, nil to the end).
    struct Gap {
        let after: Int64?
        let before: Int64?
        let error: HangarError

        /// `rows 12…40 of documents`, `rows from 12 on of documents`.
        func describe(table: String) -> String {
            switch (after, before) {
            case (nil, nil): "every row of \(table)"
            case (let after?, nil): "the rows of \(table) after rowid \(after)"
            case (nil, let before?): "the rows of \(table) before rowid \(before)"
            case (let after?, let before?): "the rows of \(table) between rowids \(after) and \(before)"
            }
        }
    }

    /// The rowids of `table` the walk reaches, in order, and the stretches it could not read.
    func rowids(of table: String) -> (rowids: [Int64], gaps: [Gap]) {
        var rowids: [Int64] = []
        var gaps: [Gap] = []
        var next = Int64.min
        let sql = "SELECT rowid FROM \(table) WHERE rowid >= ?1 ORDER BY rowid"
        while true {
            do throws(SQLiteError) {
                let statement = try connection.cachedStatement(sql)
                defer { statement.reset() }
                try statement.bind(next, at: 1)
                while try statement.step() {
                    let rowid = statement.int64(at: 0)
                    // A damaged page may hold rowids out of order: the walk only goes forward.
                    guard rowid >= next else { continue }
                    rowids.append(rowid)
                    guard rowid < Int64.max else { return (rowids, gaps) }
                    next = rowid + 1
                }
                return (rowids + backwardRowids(of: table, seen: Set(rowids)), gaps)
            } catch {
                let resume = firstReadableRowid(of: table, after: next)
                gaps.append(Gap(after: rowids.last, before: resume, error: HangarError(error)))
                guard let resume else {
                    return (rowids + backwardRowids(of: table, seen: Set(rowids)), gaps)
                }
                next = resume
            }
        }
    }

    /// The rowids of `table` from the last down, until one already `seen` or a page that cannot be read: a
    /// damaged page that gave the forward walk a rowid far too large would hide the rows after it.
    private func backwardRowids(of table: String, seen: Set<Int64>) -> [Int64] {
        var rowids: [Int64] = []
        do throws(SQLiteError) {
            let statement = try connection.cachedStatement("SELECT rowid FROM \(table) ORDER BY rowid DESC")
            defer { statement.reset() }
            while try statement.step() {
                let rowid = statement.int64(at: 0)
                guard !seen.contains(rowid) else { break }
                rowids.append(rowid)
            }
        } catch {
            // The rows below the damaged page are the forward walk's.
        }
        return rowids.reversed()
    }

    /// The smallest rowid past `failing` (where a seek failed) whose seek succeeds; nil when none does.
    private func firstReadableRowid(of table: String, after failing: Int64) -> Int64? {
        let sql = "SELECT rowid FROM \(table) WHERE rowid >= ?1 ORDER BY rowid LIMIT 1"
        func seeks(_ rowid: Int64) -> Bool {
            do throws(SQLiteError) {
                let statement = try connection.cachedStatement(sql)
                defer { statement.reset() }
                try statement.bind(rowid, at: 1)
                _ = try statement.step()
                return true
            } catch {
                return false
            }
        }
        // Further and further (1, 2, 4, … past the failure), then back by halves to the first that reads.
        var low = failing
        var step: Int64 = 1
        var high = failing
        while high == failing {
            let (candidate, overflow) = failing.addingReportingOverflow(step)
            guard !overflow else { return nil }
            if seeks(candidate) {
                high = candidate
            } else {
                low = candidate
                guard step <= Int64.max / 2 else { return nil }
                step *= 2
            }
        }
        while high - low > 1 {
            let middle = low + (high - low) / 2
            if seeks(middle) { high = middle } else { low = middle }
        }
        return high
    }

    /// The names the documents table's (collection, key) index gives its rows, by rowid: walked from the
    /// start and, past a damaged page, from the end. Index pages that cannot be read just name fewer rows.
    func documentNames() -> [Int64: DocumentName] {
        var names: [Int64: DocumentName] = [:]
        if readNames(SQLiteSQL.salvageNamesAscending, into: &names) { return names }
        _ = readNames(SQLiteSQL.salvageNamesDescending, into: &names)
        return names
    }

    /// Adds the names `sql` lists until it ends (returns true), meets a damaged page or a row already named
    /// (returns false).
    private func readNames(_ sql: String, into names: inout [Int64: DocumentName]) -> Bool {
        do throws(SQLiteError) {
            let statement = try connection.cachedStatement(sql)
            defer { statement.reset() }
            while try statement.step() {
                let name = DocumentName(collection: statement.text(at: 1), key: statement.text(at: 2))
                // Met from the other end: the rest has been read already.
                guard names.updateValue(name, forKey: statement.int64(at: 0)) == nil else { return false }
            }
            return true
        } catch {
            return false
        }
    }

    /// The documents row `rowid` as stored.
    func document(rowid: Int64) -> Result<StoredDocument, HangarError> {
        row(SQLiteSQL.salvageDocument, rowid: rowid) { statement in
            SQLiteReadTransaction.storedDocument(
                statement, collection: statement.text(at: 0), key: statement.text(at: 1), firstColumn: 2,
                encryption: encryption)
        }
    }

    /// The history row `rowid` as stored (its `createdAt` is when it was saved).
    func historyRevision(rowid: Int64) -> Result<StoredDocument, HangarError> {
        row(SQLiteSQL.salvageHistoryRevision, rowid: rowid) { statement in
            SQLiteReadTransaction.storedDocument(
                statement, collection: statement.text(at: 0), key: statement.text(at: 1), firstColumn: 2,
                encryption: encryption)
        }
    }

    /// The last revision of each key the file still records (deleted keys included), as far as it reads.
    func keyRevisions() -> [DocumentName: Int] {
        var revisions: [DocumentName: Int] = [:]
        do throws(SQLiteError) {
            let statement = try connection.cachedStatement(SQLiteSQL.salvageKeyRevisions)
            defer { statement.reset() }
            while try statement.step() {
                let name = DocumentName(collection: statement.text(at: 0), key: statement.text(at: 1))
                revisions[name] = max(revisions[name] ?? 0, Int(statement.int64(at: 2)))
            }
        } catch {
            // The rest is lost with its page: revisions then grow from the documents kept.
        }
        return revisions
    }

    /// The last change sequence the file records, or nil when it cannot be read.
    func lastChangeSequence() -> Int? {
        do throws(SQLiteError) {
            return try connection.integer(SQLiteSQL.changeCounter).map { Int($0) }
        } catch {
            return nil
        }
    }

    /// SQLite's integrity check, at most `limit` lines (`["ok"]` for a sound file).
    func integrityCheck(limit: Int) throws(HangarError) -> [String] {
        try connection.integrityCheck(limit: limit)
    }

    private func row(_ sql: String, rowid: Int64, _ read: (SQLiteStatement) -> StoredDocument)
        -> Result<StoredDocument, HangarError>
    {
        do throws(SQLiteError) {
            let statement = try connection.cachedStatement(sql)
            defer { statement.reset() }
            try statement.bind(rowid, at: 1)
            guard try statement.step() else {
                return .failure(HangarError(.corrupt, "Row \(rowid) is gone from its damaged page"))
            }
            return .success(read(statement))
        } catch {
            return .failure(HangarError(error))
        }
    }
}

extension SQLiteSQL {
    // MARK: reading a damaged file (DamagedFileReader)

    /// rowid, collection, key of every document, by the (collection, key) index alone, ascending.
    static let salvageNamesAscending =
        "SELECT rowid, collection, key FROM documents INDEXED BY sqlite_autoindex_documents_1 ORDER BY collection, key"
    /// The same, descending (to read past a damaged index page from the other end).
    static let salvageNamesDescending = """
        SELECT rowid, collection, key FROM documents INDEXED BY sqlite_autoindex_documents_1
        ORDER BY collection DESC, key DESC
        """
    /// collection, key, then ``documentColumns``, of the documents row ?1.
    static let salvageDocument = "SELECT collection, key, \(documentColumns) FROM documents WHERE rowid = ?1"
    /// collection, key, then ``documentColumns`` (saved_at for both times), of the history row ?1.
    static let salvageHistoryRevision = """
        SELECT collection, key, revision, major, minor, class_tag, saved_at, saved_at, body, key_id FROM history
        WHERE rowid = ?1
        """
    /// collection, key, revision of every key's last revision.
    static let salvageKeyRevisions = "SELECT collection, key, revision FROM key_revisions"
}
