@_spi(Engine) import Hangar

/// The rows re-encryption reads and rewrites (``DocumentStore/rekey(batchSize:progress:)``).
extension SQLiteWriteTransaction {
    /// At most `limit` stored bodies of `part` not sealed with `keyID`, after `position`, in (collection, key,
    /// revision) order.
    @_spi(Engine) public func bodies(
        in part: StoredPart, notSealedWith keyID: String, after position: StoredDocument?, limit: Int
    )
        throws(HangarError) -> [StoredDocument]
    {
        checkValid()
        let arguments: [SQLiteValue] = [
            .text(position?.collection ?? ""), .text(position?.key ?? ""),
            .integer(Int64(position?.revision ?? -1)), .text(keyID), .integer(Int64(max(1, limit))),
        ]
        let sql = part == .current ? SQLiteSQL.documentsNotSealedWith : SQLiteSQL.revisionsNotSealedWith
        return try query(sql, arguments) { statement in
            storedDocument(statement, collection: statement.text(at: 0), key: statement.text(at: 1), firstColumn: 2)
        }
    }

    /// Replaces the stored bytes of `document` with `body` sealed with `keyID`, if the row still holds the
    /// revision and key id it was read with; returns whether it did.
    @_spi(Engine) public func replaceBody(
        of document: StoredDocument, in part: StoredPart, with body: [UInt8], keyID: String
    )
        throws(HangarError) -> Bool
    {
        checkValid()
        let sql = part == .current ? SQLiteSQL.replaceDocumentBody : SQLiteSQL.replaceRevisionBody
        try execute(
            sql,
            [
                .text(document.collection), .text(document.key), .integer(Int64(document.revision)),
                document.keyID.map(SQLiteValue.text) ?? .null, .blob(body), .text(keyID),
            ], collection: document.collection, key: document.key)
        return connection.changes > 0
    }
}
