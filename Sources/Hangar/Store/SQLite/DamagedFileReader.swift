/// Reads a store file that may be damaged, row by row, so that a damaged page costs only the rows it holds
/// (``Store/survey(path:)``, ``Store/salvage(from:to:)``).
///
/// Nothing here goes through the store's schema checks or its indexes for the rows themselves: a table is
/// walked by rowid (its own b-tree), and when a step of the walk meets a page SQLite cannot read, the walk
/// looks for the first rowid past it whose page reads (probing further and further, then bisecting back), and
/// goes on from there. The documents table's index on (collection, key) is walked too, from both ends, to
/// name the documents whose rows are in a damaged page. Every failure is a value, never thrown past a row.
final class DamagedFileReader {
    let connection: SQLiteConnection

    /// Opens the file read-only; only a file SQLite cannot open at all (missing, a folder, no permission) throws.
    init(path: String) throws(HangarError) {
        do {
            connection = try SQLiteConnection(path: path, mode: .readOnly, busyTimeout: 5_000)
        } catch {
            throw HangarError(error)
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
                return (rowids, gaps)
            } catch {
                let resume = firstReadableRowid(of: table, after: next)
                gaps.append(Gap(after: rowids.last, before: resume, error: HangarError(error)))
                guard let resume else { return (rowids, gaps) }
                next = resume
            }
        }
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
        if readNames(StoreSQL.salvageNamesAscending, into: &names) { return names }
        _ = readNames(StoreSQL.salvageNamesDescending, into: &names)
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
        row(StoreSQL.salvageDocument, rowid: rowid) { statement in
            ReadTransaction.storedDocument(
                statement, collection: statement.text(at: 0), key: statement.text(at: 1), firstColumn: 2)
        }
    }

    /// The history row `rowid` as stored (its `createdAt` is when it was saved).
    func historyRevision(rowid: Int64) -> Result<StoredDocument, HangarError> {
        row(StoreSQL.salvageHistoryRevision, rowid: rowid) { statement in
            ReadTransaction.storedDocument(
                statement, collection: statement.text(at: 0), key: statement.text(at: 1), firstColumn: 2)
        }
    }

    /// The last revision of each key the file still records (deleted keys included), as far as it reads.
    func keyRevisions() -> [DocumentName: Int] {
        var revisions: [DocumentName: Int] = [:]
        do throws(SQLiteError) {
            let statement = try connection.cachedStatement(StoreSQL.salvageKeyRevisions)
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
            return try connection.integer(StoreSQL.changeCounter).map { Int($0) }
        } catch {
            return nil
        }
    }

    /// SQLite's integrity check, at most `limit` lines (`["ok"]` for a sound file).
    func integrityCheck(limit: Int) throws(HangarError) -> [String] {
        do throws(SQLiteError) {
            let statement = try connection.cachedStatement("PRAGMA integrity_check(\(limit))")
            defer { statement.reset() }
            var lines: [String] = []
            while try statement.step() { lines.append(statement.text(at: 0)) }
            return lines
        } catch {
            throw HangarError(error)
        }
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

/// A document's collection and key.
public struct DocumentName: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The collection.
    public let collection: String
    /// The key.
    public let key: String

    /// The name of the document at `key` in `collection`.
    public init(collection: String, key: String) {
        self.collection = collection
        self.key = key
    }

    /// `collection/key`.
    public var description: String { "\(collection)/\(key)" }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.collection.utf8.lexicographicallyPrecedes(rhs.collection.utf8))
            || (lhs.collection == rhs.collection && lhs.key.utf8.lexicographicallyPrecedes(rhs.key.utf8))
    }
}

extension StoreSQL {
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
        SELECT collection, key, revision, major, minor, class_tag, saved_at, saved_at, body FROM history
        WHERE rowid = ?1
        """
    /// collection, key, revision of every key's last revision.
    static let salvageKeyRevisions = "SELECT collection, key, revision FROM key_revisions"
}
