extension PostgresStoreSQL {
    /// Schema step 7 (frozen once released): the two reads every HTTP request makes, as functions, so that they are
    /// planned once per session rather than at every call.
    ///
    /// The store's statements are unnamed (PgBouncer's transaction pooling cannot keep a prepared statement), so
    /// PostgreSQL plans each one as it comes; a function's statements are planned once per session and kept. A
    /// point read with its token (`SELECT` of the token's columns and a `LEFT JOIN` of the document) took four
    /// times longer to plan than to run; `SELECT … FROM read_document($1, $2)` is a function scan, planned at
    /// once. Both are `STABLE`: their statements read the calling statement's snapshot, so a token and the
    /// document read with it are of one snapshot, as before.
    ///
    /// - `commit_token()`: the WAL position (what a standby replayed, or what the primary wrote) as `pg_lsn` text,
    ///   and the feed's last sequence.
    /// - `read_document(collection, key)`: `commit_token()`'s two columns, then the document's columns
    ///   (``DocumentStatements/columns``), all NULL when there is none.
    static func step7ReadsPlannedOnce(_ s: String) -> [String] {
        // The token's two assignments, the same in both functions.
        let token = """
            wal_position := (CASE WHEN pg_is_in_recovery() THEN pg_last_wal_replay_lsn()
                    ELSE pg_current_wal_lsn() END)::text;
                SELECT c.last_sequence INTO last_sequence FROM \(s).change_counter AS c WHERE c.id = 1;
            """
        return [
            """
            CREATE FUNCTION \(s).commit_token(OUT wal_position text, OUT last_sequence bigint)
            LANGUAGE plpgsql STABLE AS $token$
            BEGIN
                \(token)
            END
            $token$
            """,
            """
            CREATE FUNCTION \(s).read_document(p_collection text, p_key text,
                OUT wal_position text, OUT last_sequence bigint, OUT revision bigint, OUT major bigint,
                OUT minor bigint, OUT class_tag text, OUT created_at double precision, OUT updated_at double precision,
                OUT body bytea, OUT key_id text)
            LANGUAGE plpgsql STABLE AS $read$
            #variable_conflict use_column
            BEGIN
                \(token)
                SELECT d.revision, d.major, d.minor, d.class_tag, d.created_at, d.updated_at, d.body, d.key_id
                INTO revision, major, minor, class_tag, created_at, updated_at, body, key_id
                FROM \(s).documents AS d WHERE d.collection = p_collection AND d.key = p_key;
            END
            $read$
            """,
        ]
    }
}
