@_spi(Engine) public import Hangar
import PostgresNIO

// The index scans behind index queries (``Hangar/DocumentReader/page(_:documents:)``): each one range scan of
// `index_entries`'s primary key (collection, name, value, key), forward or backward, in the read transaction the
// store hands (its read connection).

extension PostgresReadTransaction {
    @_spi(Engine) public func indexEntries(_ scan: IndexScan) async throws(HangarError) -> [IndexScan.Entry] {
        checkValid()
        let (statement, arguments) = scan.statement(
            table: "\(sql.quotedSchema).index_entries", documents: "\(sql.quotedSchema).documents"
        ) { "$\($0)" }
        return try await rows(statement, Self.bindings(arguments)) { row in
            let (value, key) = try row.decode((ByteBuffer, String).self)
            return IndexScan.Entry(value: PostgresBytes.bytes(value), key: key)
        }
    }

    @_spi(Engine) public func indexKeyCount(_ scan: IndexScan) async throws(HangarError) -> Int {
        checkValid()
        let (statement, arguments) = scan.countStatement(table: "\(sql.quotedSchema).index_entries") { "$\($0)" }
        return Int(try await transaction.scalar(statement, Self.bindings(arguments), as: Int64.self) ?? 0)
    }

    @_spi(Engine) public func builtIndexes(in collection: String) async throws(HangarError) -> [BuiltIndex] {
        checkValid()
        return try await rows(sql.indexes.builtIndexes + " ORDER BY name", binds(collection)) { row in
            let (name, fingerprint) = try row.decode((String, String).self)
            return BuiltIndex(name: name, fingerprint: fingerprint)
        }
    }

    private static func bindings(_ arguments: [IndexScan.Argument]) -> PostgresBindings {
        var values = PostgresBindings()
        for argument in arguments {
            switch argument {
            case .text(let text): values.append(text)
            case .blob(let bytes): values.append(PostgresBytes.bind(bytes))
            case .integer(let integer): values.append(Int64(integer))
            }
        }
        return values
    }
}
