import CSQLite
import Foundation
public import HangarSQLite
public import PropertyList

/// SQLiteStore files to damage, and the damage: a store of a few hundred documents in several collections, with
/// history, an index and a change feed; the roles of its pages (SQLite's `dbstat`); bytes overwritten in a
/// page or a write-ahead log frame, from a seeded generator so that a failure replays.
///
/// Every document's content names its collection, key and revision, so a document read back from a damaged
/// file can be checked on its own: it is right when it says what it is.
public enum DamagedStores {
    /// The collections and how many documents each holds.
    public static let collections: [(name: String, count: Int)] = [("pilots", 150), ("planes", 100), ("fields", 60)]
    /// Every `historyEvery`th document is saved three times (two revisions in history).
    public static let historyEvery = 4

    /// The configuration the stores are written with: an index on the pilots' names.
    public static func configuration() -> StoreConfiguration {
        var configuration = StoreConfiguration()
        configuration.collections["pilots"] = CollectionOptions(indexes: [.path("name", name: "name")])
        return configuration
    }

    /// The envelope of revision `revision` of `collection/key`.
    public static func envelope(collection: String, key: String, revision: Int) -> PropertyList {
        [
            "majorVersion": 1, "minorVersion": 0, "collection": .string(collection), "key": .string(key),
            "revision": .integer(PropertyList.Integer(revision)), "name": .string("\(key) at revision \(revision)"),
            "notes": .string(String(repeating: "\(collection) ", count: 12)),
        ]
    }

    /// Whether `stored` says what it is: its content names its own collection, key and revision.
    public static func isIntact(_ stored: StoredDocument) -> Bool {
        guard let content = (try? stored.envelope())?.dictionaryValue else { return false }
        return content["collection"]?.stringValue == stored.collection && content["key"]?.stringValue == stored.key
            && content["revision"] == .integer(PropertyList.Integer(stored.revision))
    }

    /// The key of document `index` of a collection.
    public static func key(_ index: Int) -> String { String(format: "k%04d", index) }

    /// Every document name the stores hold.
    public static var names: [DocumentName] {
        collections.flatMap { collection in
            (0..<collection.count).map { DocumentName(collection: collection.name, key: key($0)) }
        }
    }

    /// Writes the store at `path` and closes it (the log checkpointed into the file, unless `leavingLog`:
    /// then the last `leavingLog` documents' final saves are still only in the write-ahead log, which the
    /// returned store keeps open; copy the file and its `-wal` while it is).
    @discardableResult
    public static func build(at path: String, leavingLog: Bool = false) throws -> SQLiteStore? {
        let store = try SQLiteStore(path: path, store: configuration())
        for collection in collections {
            try store.write { transaction in
                for index in 0..<collection.count {
                    let saves = index % historyEvery == 0 ? 3 : 1
                    for revision in 1...saves {
                        try transaction.save(
                            envelope: envelope(collection: collection.name, key: key(index), revision: revision),
                            key: key(index), in: collection.name)
                    }
                }
            }
        }
        try store.checkpoint()
        guard leavingLog else { return nil }
        // Later saves stay in the log: a new revision of every fifth pilot.
        try store.write { transaction in
            for index in stride(from: 1, to: 150, by: 5) {
                let revision = (index % historyEvery == 0 ? 3 : 1) + 1
                try transaction.save(
                    envelope: envelope(collection: "pilots", key: key(index), revision: revision), key: key(index),
                    in: "pilots")
            }
        }
        return store
    }

    /// The pages of the file at `path` by the table or index that holds them, and the kind of each page
    /// (`leaf`, `internal`, `overflow`), from SQLite's `dbstat` table.
    public static func pages(of path: String) throws -> [(name: String, page: Int, kind: String)] {
        var database: OpaquePointer?
        defer { sqlite3_close_v2(database) }
        guard sqlite3_open_v2(path, &database, SQLITE_OPEN_READONLY, nil) == SQLITE_OK else {
            throw HangarError(.io, "cannot open \(path) to list its pages")
        }
        var statement: OpaquePointer?
        defer { sqlite3_finalize(statement) }
        let sql = "SELECT name, pageno, pagetype FROM dbstat ORDER BY pageno"
        guard sqlite3_prepare_v2(database, sql, -1, &statement, nil) == SQLITE_OK else {
            throw HangarError(.database, "this SQLite has no dbstat table")
        }
        func text(_ column: Int32) -> String {
            sqlite3_column_text(statement, column).map { String(cString: $0) } ?? ""
        }
        var pages: [(String, Int, String)] = []
        var result = sqlite3_step(statement)
        while result == SQLITE_ROW {
            pages.append((text(0), Int(sqlite3_column_int64(statement, 1)), text(2)))
            result = sqlite3_step(statement)
        }
        guard result == SQLITE_DONE else { throw HangarError(.database, "listing the pages of \(path) failed") }
        return pages
    }

    /// How many pages SQLite sees in the database at `path`, its write-ahead log included (`PRAGMA page_count`).
    public static func pageCount(of path: String) throws -> Int {
        var database: OpaquePointer?
        defer { sqlite3_close_v2(database) }
        guard sqlite3_open_v2(path, &database, SQLITE_OPEN_READONLY, nil) == SQLITE_OK else {
            throw HangarError(.io, "cannot open \(path) to count its pages")
        }
        var statement: OpaquePointer?
        defer { sqlite3_finalize(statement) }
        guard sqlite3_prepare_v2(database, "PRAGMA page_count", -1, &statement, nil) == SQLITE_OK,
            sqlite3_step(statement) == SQLITE_ROW
        else {
            throw HangarError(.database, "cannot count the pages of \(path)")
        }
        return Int(sqlite3_column_int64(statement, 0))
    }

    /// The page size of the file at `path` (the big-endian 16-bit number at offset 16 of its header).
    public static func pageSize(of path: String) throws -> Int {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)).prefix(18))
        guard bytes.count == 18 else { return 4096 }
        let size = Int(bytes[16]) << 8 | Int(bytes[17])
        return size == 1 ? 65536 : size
    }

    /// The rowids of the cells of a table leaf page (`page`, 1-based) of the file at `path`.
    public static func rowids(onLeafPage page: Int, of path: String) throws -> [Int64] {
        let size = try pageSize(of: path)
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let start = (page - 1) * size
        let header = start + (page == 1 ? 100 : 0)
        guard header + 8 <= bytes.count, bytes[header] == 0x0D else { return [] }
        let cells = Int(bytes[header + 3]) << 8 | Int(bytes[header + 4])
        var rowids: [Int64] = []
        for cell in 0..<cells {
            let pointer = header + 8 + cell * 2
            var offset = start + (Int(bytes[pointer]) << 8 | Int(bytes[pointer + 1]))
            _ = varint(bytes, &offset)  // the payload's size
            rowids.append(varint(bytes, &offset))
        }
        return rowids
    }

    private static func varint(_ bytes: [UInt8], _ offset: inout Int) -> Int64 {
        var value: UInt64 = 0
        for index in 0..<9 {
            let byte = bytes[offset]
            offset += 1
            if index == 8 { return Int64(bitPattern: value << 8 | UInt64(byte)) }
            value = value << 7 | UInt64(byte & 0x7F)
            if byte & 0x80 == 0 { break }
        }
        return Int64(bitPattern: value)
    }

    /// Overwrites `count` bytes of page `page` (1-based) of the file at `path` at random offsets among its
    /// first `within` bytes (its header and cell pointers, for damage SQLite can see), each XORed with a
    /// random non-zero byte.
    public static func damage(
        page: Int, of path: String, count: Int = 8, within: Int = 64, using generator: inout SeededGenerator
    ) throws {
        let size = try pageSize(of: path)
        try flip(path, region: (page - 1) * size..<((page - 1) * size + min(within, size)), count: count, &generator)
    }

    /// XORs `count` bytes at random offsets in `region` of the file at `path` with random non-zero bytes.
    public static func flip(_ path: String, region: Range<Int>, count: Int, _ generator: inout SeededGenerator) throws {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let region = region.clamped(to: 0..<bytes.count)
        guard !region.isEmpty else { return }
        for _ in 0..<count {
            bytes[Int.random(in: region, using: &generator)] ^= UInt8.random(in: 1...255, using: &generator)
        }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    /// Cuts the file at `path` to `length` bytes.
    public static func truncate(_ path: String, to length: Int) throws {
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        try handle.truncate(atOffset: UInt64(length))
        try handle.close()
    }
}
