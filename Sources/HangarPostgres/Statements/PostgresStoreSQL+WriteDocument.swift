extension PostgresStoreSQL {
    /// A save or delete in one round trip: schema step 4 installs `write_document(…)`, a function that takes the
    /// key's lock, reads the stored row and the key's last revision, and, when the plan's conditions plainly hold,
    /// writes history, the row, the key's last revision and its index entries, all in the one statement that
    /// calls it.
    ///
    /// The function decides nothing the rules (`DocumentRules`) have not decided the same way: whenever a
    /// condition is not plainly met (an expected revision that differs, a stored newer major, a stored body that
    /// is sealed, a stored newer minor a model save must keep keys of, a built index this store does not declare)
    /// it writes nothing and hands the stored row back (outcome `refused`), and the engine goes on with the
    /// statements one at a time, where `DocumentRules.resolve` gives the error or the write. After a write the
    /// engine checks the function's revision against the rules' (`DocumentRules.resolve` on the row handed
    /// back), so the two can never silently disagree.
    package struct WriteStatements: Sendable {
        /// Calls `write_document`. $1 collection, $2 key, $3 whether it saves (false: deletes), $4 class tag, $5
        /// major, $6 minor, $7 body, $8 time, $9 expected revision (NULL: any), $10 readable major (NULL: any),
        /// $11 overwriting a newer major, $12 refusing a stored newer minor of the same major, $13 history kept
        /// (NULL: all, 0: none, n: the last n), $14 index names, $15 their values, $16 whether each is unique,
        /// $17 the indexes the store declares for the collection.
        ///
        /// Returns one row: outcome (`written`, `absent`: a delete of nothing, `duplicate`, `refused`), the
        /// revision written or deleted, the stored row before (revision, major, minor, class tag, key id; NULLs
        /// when none), the key's last revision before (0: never saved), for `duplicate` the index and the other
        /// key holding the value, and a NULL ticket (the columns of ``writeDocumentAlone``).
        package let writeDocument: String
        /// Calls `write_document_alone` (schema step 5): `write_document` on its own, in autocommit, noting its
        /// change as the transaction's last statement does (`note_changes`). $1 … $17 as ``writeDocument``, $18
        /// and $19 the retention (as ``ChangeStatements/numberChanges``'s $2 and $3). Returns ``writeDocument``'s
        /// row and the ticket the change is pending under (NULL: numbered already, or nothing written).
        package let writeDocumentAlone: String

        init(_ s: String) {
            // The same columns as `writeDocumentAlone`'s, the ticket NULL: the transaction notes its changes last.
            writeDocument = """
                SELECT outcome, revision, current_revision, current_major, current_minor, current_class_tag,
                    current_key_id, last_revision, index_name, other_key, NULL::bigint AS ticket
                FROM \(s).write_document($1, $2, $3, $4, $5::bigint, $6::bigint, $7, $8::double precision,
                    $9::bigint, $10::bigint, $11, $12, $13::bigint, $14::text[], $15::bytea[], $16::boolean[],
                    $17::text[])
                """
            writeDocumentAlone = """
                SELECT outcome, revision, current_revision, current_major, current_minor, current_class_tag,
                    current_key_id, last_revision, index_name, other_key, ticket
                FROM \(s).write_document_alone($1, $2, $3, $4, $5::bigint, $6::bigint, $7, $8::double precision,
                    $9::bigint, $10::bigint, $11, $12, $13::bigint, $14::text[], $15::bytea[], $16::boolean[],
                    $17::text[], $18::bigint, $19::double precision)
                """
        }
    }
}
