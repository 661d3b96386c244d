@_spi(Engine) public import Hangar
import PostgresNIO

/// The rows re-encryption reads and rewrites (`DocumentStore.rekey(batchSize:progress:)`).
extension PostgresWriteTransaction {
    /// At most `limit` stored bodies of `part` not sealed with `keyID`, after `position`, in (collection, key,
    /// revision) order.
    @_spi(Engine) public func bodies(
        in part: StoredPart, notSealedWith keyID: String, after position: StoredDocument?, limit: Int
    )
        async throws(HangarError) -> [StoredDocument]
    {
        checkValid()
        var values = binds(position?.collection ?? "", position?.key ?? "")
        values.append(Int64(position?.revision ?? -1))
        values.append(keyID)
        values.append(Int64(max(1, limit)))
        let statement = part == .current ? sql.history.documentsNotSealedWith : sql.history.revisionsNotSealedWith
        let encryption = self.encryption
        return try await rows(statement, values) { row in
            let cells = row.makeRandomAccess()
            return try Self.storedDocument(
                row, collection: try cells[0].decode(String.self), key: try cells[1].decode(String.self),
                firstColumn: 2, encryption: encryption)
        }
    }

    /// Replaces the stored bytes of `document` with `body` sealed with `keyID`, if the row still holds the
    /// revision and key id it was read with; returns whether it did.
    @_spi(Engine) public func replaceBody(
        of document: StoredDocument, in part: StoredPart, with body: [UInt8], keyID: String
    )
        async throws(HangarError) -> Bool
    {
        checkValid()
        var values = binds(document.collection, document.key)
        values.append(Int64(document.revision))
        values.append(document.keyID)
        values.append(PostgresBytes.bind(body))
        values.append(keyID)
        let statement = part == .current ? sql.history.replaceDocumentBody : sql.history.replaceRevisionBody
        return try await !transaction.query(statement, values).isEmpty
    }
}
