import Foundation
import Hangar
import PropertyList

/// What reading a store file row by row found (``SQLiteStore/survey(path:)``): every document it still names, and
/// the parts of it that could not be read.
public struct StoreSurvey: Sendable {
    /// One document the file names.
    public struct Document: Sendable {
        /// Its collection and key.
        public let name: DocumentName
        /// Why its current revision cannot be read or is not an envelope: ``HangarError/Code/corrupt`` for a
        /// damaged page, ``HangarError/Code/undecodable`` or ``HangarError/Code/invalidDocument`` for stored
        /// bytes that do not decode; nil when it reads.
        public let problem: HangarError?
        /// Its row in the documents table, when the row reads.
        let rowid: Int64?
    }

    /// Every document the file names, each once, sorted by collection and key: those whose rows read, and
    /// those the (collection, key) index names whose rows are in a damaged page.
    public var documents: [Document]
    /// The parts of the documents table that could not be read, in words (`the rows of documents between
    /// rowids 120 and 181: …`): the documents they held are listed in ``documents`` only when the index
    /// still names them.
    public var unreadable: [String]

    /// How many documents the file names.
    public var count: Int { documents.count }
}

/// What `SQLiteStore.salvage(from:to:)` copied (from a damaged file, or from any engine's store).
public struct SalvageReport: Sendable {
    /// A document the file names that was not copied, and why.
    public struct Loss: Sendable, CustomStringConvertible {
        /// Its collection and key.
        public let name: DocumentName
        /// Why it was not copied.
        public let error: HangarError

        /// `collection/key: reason`.
        public var description: String { "\(name): \(error.reason)" }
    }

    /// The documents the damaged file names (M of `salvaged N of M documents`).
    public var found = 0
    /// The documents copied, each with its current revision and every earlier revision of its history that
    /// reads (N).
    public var copied = 0
    /// The documents not copied, sorted by name.
    public var lost: [Loss] = []
    /// The parts of the documents table that could not be read and name no document (``StoreSurvey/unreadable``).
    public var unreadable: [String] = []
    /// Revisions kept in history that could not be read or decoded, of the documents copied or of others.
    public var historyRevisionsLost = 0

    /// An empty report: nothing found, nothing copied.
    public init() {}
}

extension SQLiteStore {
    /// Reads every document of the store file at `path` row by row, without opening it as a store: a damaged
    /// page costs only the documents it holds (the others are still read), and the file is not changed.
    ///
    /// - Throws: only when SQLite cannot open the file at all (missing, a folder, no permission). A file that
    ///   is not a database, or is cut short, is a survey whose every part is ``StoreSurvey/unreadable``.
    /// With `encryption`, sealed bodies are opened with its keys (without, they are reported unreadable).
    public static func survey(path: String, encryption: (any DocumentEncryption)? = nil) throws(HangarError)
        -> StoreSurvey
    {
        try survey(DamagedFileReader(path: path, encryption: encryption))
    }

    /// SQLite's integrity check of the store file at `path`, read-only, without opening it as a store: `["ok"]`,
    /// or at most `limit` lines about what it found damaged.
    public static func checkIntegrity(path: String, limit: Int = 100) throws(HangarError) -> [String] {
        try DamagedFileReader(path: path).integrityCheck(limit: max(1, limit))
    }

    static func survey(_ reader: DamagedFileReader) -> StoreSurvey {
        let (rowids, gaps) = reader.rowids(of: "documents")
        let names = reader.documentNames()
        var found: [DocumentName: StoreSurvey.Document] = [:]
        var unreadable = gaps.map { "\($0.describe(table: "documents")): \($0.error.reason)" }
        var readRowids = Set<Int64>()
        for rowid in rowids {
            readRowids.insert(rowid)
            switch reader.document(rowid: rowid) {
            case .success(let stored):
                let name = DocumentName(collection: stored.collection, key: stored.key)
                let document = StoreSurvey.Document(name: name, problem: envelopeProblem(stored), rowid: rowid)
                // A name met twice (a damaged page may repeat a row): the readable one stands.
                if found[name]?.problem == nil, found[name] != nil { continue }
                found[name] = document
            case .failure(let error):
                guard let name = names[rowid] else {
                    unreadable.append("row \(rowid) of documents: \(error.reason)")
                    continue
                }
                if found[name] == nil { found[name] = StoreSurvey.Document(name: name, problem: error, rowid: nil) }
            }
        }
        for (rowid, name) in names where !readRowids.contains(rowid) && found[name] == nil {
            // A row the walk did not reach may still read by the rowid the index gives.
            if case .success(let stored) = reader.document(rowid: rowid), stored.collection == name.collection,
                stored.key == name.key
            {
                found[name] = StoreSurvey.Document(name: name, problem: envelopeProblem(stored), rowid: rowid)
                continue
            }
            let error = HangarError(
                .corrupt, "Its row (\(rowid)) is in a damaged page of the documents table", collection: name.collection,
                key: name.key)
            found[name] = StoreSurvey.Document(name: name, problem: error, rowid: nil)
        }
        if let cutShort = reader.cutShort {
            unreadable.insert(
                "the file is cut short: \(cutShort.length) of the \(cutShort.declared) bytes its header gives", at: 0)
        }
        return StoreSurvey(documents: found.values.sorted { $0.name < $1.name }, unreadable: unreadable)
    }

    /// Why a stored document's bytes are not a readable envelope, or nil.
    private static func envelopeProblem(_ stored: StoredDocument) -> HangarError? {
        do throws(HangarError) {
            _ = try DocumentRules.envelopeVersion(try stored.envelope(), collection: stored.collection, key: stored.key)
            return nil
        } catch {
            return error
        }
    }

    /// Copies every document of the damaged store file at `path` that still reads into a new store at
    /// `destination`, and reports what it could not copy.
    ///
    /// The file is read row by row (``survey(path:)``) and never changed. Each document whose current revision
    /// reads and decodes as an envelope is copied as it is stored (revision, version, class tag, times and
    /// bytes), with every earlier revision of its history that reads and decodes; a document whose current
    /// revision cannot be read is not copied, not even from its history (that would silently bring back an
    /// older revision), and is listed in ``SalvageReport/lost``. Each key's last revision is kept where it
    /// reads, so revisions keep growing. The new store's change feed starts past every sequence the damaged
    /// one gave: a follower of the old store, wherever it was, gets ``HangarError/changesTooOld`` from the new
    /// one and starts over. Indexes are not copied: a store opened with its configuration builds them.
    ///
    /// - Throws: ``HangarError/Code/io`` when `destination` exists (a salvage only writes a new store); what
    ///   opening or writing the new store throws; only when SQLite cannot open `path` at all.
    ///
    /// The new store is opened with `configuration`; its ``StoreConfiguration/encryption`` also opens the damaged
    /// file's sealed bodies, which are copied sealed, as stored.
    public static func salvage(
        from path: String, to destination: String, configuration: StoreConfiguration = StoreConfiguration()
    ) throws(HangarError) -> SalvageReport {
        guard !FileManager.default.fileExists(atPath: destination) else {
            throw HangarError(.io, "\(destination) already exists; a salvage writes a new store")
        }
        let reader = try DamagedFileReader(path: path, encryption: configuration.encryption)
        let surveyed = survey(reader)
        var report = SalvageReport()
        report.found = surveyed.count
        report.unreadable = surveyed.unreadable
        var copies: [DocumentName: StoredDocument] = [:]
        for document in surveyed.documents {
            if let problem = document.problem {
                report.lost.append(SalvageReport.Loss(name: document.name, error: problem))
                continue
            }
            guard let rowid = document.rowid else { continue }
            switch reader.document(rowid: rowid) {
            case .success(let stored): copies[document.name] = stored
            case .failure(let error): report.lost.append(SalvageReport.Loss(name: document.name, error: error))
            }
        }
        let (history, lostRevisions) = readableHistory(reader, of: copies)
        report.historyRevisionsLost = lostRevisions
        let target = try SQLiteStore(path: destination, store: configuration)
        try target.writeSalvaged(
            copies.values.sorted { ($0.collection, $0.key) < ($1.collection, $1.key) }, history: history,
            keyRevisions: reader.keyRevisions(), lastSequence: reader.lastChangeSequence() ?? 0)
        report.copied = copies.count
        report.lost.sort { $0.name < $1.name }
        return report
    }

    /// Copies every document of `source`, a store on any engine, that still reads into a new SQLite store at
    /// `destination`, as `salvage(from:to:)` does for a damaged file, through `source`'s own reads: each
    /// document in a read transaction of its own, so one that cannot be read costs only itself. Its current
    /// revision and the earlier revisions of its history that read are copied as stored; the last revision of
    /// a deleted key is not (revisions of a key deleted and saved again start over).
    ///
    /// - Throws: ``HangarError/Code/io`` when `destination` exists; what listing `source`'s collections and
    ///   keys throws (nothing can be copied then); what opening or writing the new store throws.
    ///
    /// The new store is opened with `configuration`: give it the source's encryption, so the sealed bodies,
    /// copied as stored, can be read there.
    public static func salvage<Source: DocumentStore>(
        from source: Source, to destination: String, configuration: StoreConfiguration = StoreConfiguration()
    ) async throws -> SalvageReport {
        guard !FileManager.default.fileExists(atPath: destination) else {
            throw HangarError(.io, "\(destination) already exists; a salvage writes a new store")
        }
        var report = SalvageReport()
        var copies: [StoredDocument] = []
        var history: [StoredDocument] = []
        for collection in try await source.read({ try await $0.collections() }) {
            for key in try await source.read({ try await $0.keys(in: collection) }) {
                report.found += 1
                do {
                    let (current, revisions, lost) = try await source.read { transaction in
                        try await readableRevisions(of: DocumentName(collection: collection, key: key), transaction)
                    }
                    copies.append(current)
                    history += revisions
                    report.historyRevisionsLost += lost
                } catch let error as HangarError {
                    report.lost.append(
                        SalvageReport.Loss(name: DocumentName(collection: collection, key: key), error: error))
                }
            }
        }
        let lastSequence = (try? await source.read { try await $0.lastChangeSequence() }) ?? 0
        try SQLiteStore(path: destination, store: configuration).writeSalvaged(
            copies, history: history, keyRevisions: [:], lastSequence: lastSequence)
        report.copied = copies.count
        return report
    }

    /// A document's current revision (which must decode as an envelope), the earlier revisions kept in its
    /// history that read and decode, and how many do not.
    private static func readableRevisions<Reader: DocumentReader>(of name: DocumentName, _ transaction: Reader)
        async throws(HangarError) -> (current: StoredDocument, history: [StoredDocument], lost: Int)
    {
        guard let current = try await transaction.document(in: name.collection, key: name.key) else {
            throw HangarError(.notFound, "Deleted while it was copied", collection: name.collection, key: name.key)
        }
        if let problem = envelopeProblem(current) { throw problem }
        var history: [StoredDocument] = []
        var lost = 0
        for info in try await transaction.history(in: name.collection, key: name.key) where !info.isCurrent {
            let stored = try? await transaction.document(in: name.collection, key: name.key, revision: info.revision)
            if let stored, envelopeProblem(stored) == nil { history.append(stored) } else { lost += 1 }
        }
        return (current, history, lost)
    }

    /// The history rows of the `copies` that read and decode as envelopes (older than the copy's current
    /// revision), and how many history rows could not be read or decoded.
    private static func readableHistory(_ reader: DamagedFileReader, of copies: [DocumentName: StoredDocument])
        -> (revisions: [StoredDocument], lost: Int)
    {
        let (rowids, gaps) = reader.rowids(of: "history")
        var revisions: [StoredDocument] = []
        var lost = gaps.count
        for rowid in rowids {
            guard case .success(let stored) = reader.historyRevision(rowid: rowid), envelopeProblem(stored) == nil
            else {
                lost += 1
                continue
            }
            let name = DocumentName(collection: stored.collection, key: stored.key)
            guard let current = copies[name], stored.revision < current.revision else { continue }
            revisions.append(stored)
        }
        return (revisions, lost)
    }

    /// Writes salvaged rows into this (new) store, in one transaction.
    private func writeSalvaged(
        _ documents: [StoredDocument], history: [StoredDocument], keyRevisions: [DocumentName: Int], lastSequence: Int
    ) throws(HangarError) {
        do {
            try write { transaction in
                for stored in documents {
                    try transaction.execute(SQLiteSQL.salvageInsertDocument, Self.columns(of: stored, updatedAt: true))
                }
                for stored in history {
                    try transaction.execute(SQLiteSQL.salvageInsertHistory, Self.columns(of: stored, updatedAt: false))
                }
                for (name, revision) in keyRevisions {
                    try transaction.execute(
                        SQLiteSQL.setLastRevision, [.text(name.collection), .text(name.key), .integer(Int64(revision))])
                }
                try transaction.execute(SQLiteSQL.setPrunedThrough, [.integer(Int64(lastSequence) + 1)])
            }
        } catch {
            throw Self.storeError(error)
        }
    }

    /// ?1 collection, ?2 key, ?3 class tag, ?4 major, ?5 minor, ?6 revision, ?7 created (saved) at, ?8 body,
    /// ?9 key id, then ?10 updated at for a current revision.
    private static func columns(of stored: StoredDocument, updatedAt: Bool) -> [SQLiteValue] {
        var columns: [SQLiteValue] = [
            .text(stored.collection), .text(stored.key), stored.classTag.map(SQLiteValue.text) ?? .null,
            .integer(Int64(stored.version.major)), .integer(Int64(stored.version.minor)),
            .integer(Int64(stored.revision)), .real(stored.createdAt.timeIntervalSince1970), .blob(stored.body),
            stored.keyID.map(SQLiteValue.text) ?? .null,
        ]
        if updatedAt { columns.append(.real(stored.updatedAt.timeIntervalSince1970)) }
        return columns
    }
}

extension SQLiteSQL {
    // MARK: writing a salvage

    /// A salvaged current revision, as it was stored (parameters as ``SQLiteStore/columns(of:updatedAt:)``).
    static let salvageInsertDocument = """
        INSERT INTO documents
            (collection, key, class_tag, major, minor, revision, created_at, updated_at, body, key_id)
        VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?10, ?8, ?9)
        """
    /// A salvaged history revision, as it was stored.
    static let salvageInsertHistory = """
        INSERT OR IGNORE INTO history (collection, key, revision, class_tag, major, minor, saved_at, body, key_id)
        VALUES (?1, ?2, ?6, ?3, ?4, ?5, ?7, ?8, ?9)
        """
}
