@_spi(Engine) import Hangar

// The index scans behind index queries (``Hangar/DocumentReader/page(_:documents:)``): each one range scan of
// `index_entries`'s primary key (collection, name, value, key), forward or backward.

extension SQLiteReadTransaction {
    @_spi(Engine) public func indexEntries(_ scan: IndexScan) throws(HangarError) -> [IndexScan.Entry] {
        checkValid()
        let (sql, arguments) = scan.statement(table: "index_entries") { "?\($0)" }
        return try query(sql, arguments.map(Self.value), collection: scan.collection) { statement in
            IndexScan.Entry(value: statement.blob(at: 0), key: statement.text(at: 1))
        }
    }

    @_spi(Engine) public func indexKeyCount(_ scan: IndexScan) throws(HangarError) -> Int {
        checkValid()
        let (sql, arguments) = scan.countStatement(table: "index_entries") { "?\($0)" }
        return try query(sql, arguments.map(Self.value), collection: scan.collection) { Int($0.int64(at: 0)) }.first
            ?? 0
    }

    @_spi(Engine) public func builtIndexes(in collection: String) throws(HangarError) -> [BuiltIndex] {
        checkValid()
        return try query(SQLiteSQL.builtIndexes + " ORDER BY name", [.text(collection)], collection: collection) {
            BuiltIndex(name: $0.text(at: 0), fingerprint: $0.text(at: 1))
        }
    }

    private static func value(_ argument: IndexScan.Argument) -> SQLiteValue {
        switch argument {
        case .text(let text): .text(text)
        case .blob(let bytes): .blob(bytes)
        case .integer(let integer): .integer(Int64(integer))
        }
    }
}
