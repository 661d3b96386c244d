extension PostgresStoreSQL {
    /// Schema step 1 (frozen once released): the tables, as in SQLite, in the schema `s` (quoted).
    static func step1Tables(_ s: String) -> [String] {
        [
            """
            CREATE TABLE \(s).documents (
                collection text COLLATE "C" NOT NULL,
                key text COLLATE "C" NOT NULL,
                class_tag text COLLATE "C",
                major bigint NOT NULL,
                minor bigint NOT NULL,
                revision bigint NOT NULL,
                created_at double precision NOT NULL,
                updated_at double precision NOT NULL,
                body bytea NOT NULL,
                PRIMARY KEY (collection, key)
            )
            """,
            "CREATE INDEX documents_by_class_tag ON \(s).documents (collection, class_tag)",
            """
            CREATE TABLE \(s).history (
                collection text COLLATE "C" NOT NULL,
                key text COLLATE "C" NOT NULL,
                revision bigint NOT NULL,
                class_tag text COLLATE "C",
                major bigint NOT NULL,
                minor bigint NOT NULL,
                saved_at double precision NOT NULL,
                body bytea NOT NULL,
                PRIMARY KEY (collection, key, revision)
            )
            """,
            """
            CREATE TABLE \(s).key_revisions (
                collection text COLLATE "C" NOT NULL,
                key text COLLATE "C" NOT NULL,
                revision bigint NOT NULL,
                PRIMARY KEY (collection, key)
            )
            """,
            """
            CREATE TABLE \(s).index_entries (
                collection text COLLATE "C" NOT NULL,
                name text COLLATE "C" NOT NULL,
                value bytea NOT NULL,
                key text COLLATE "C" NOT NULL,
                PRIMARY KEY (collection, name, value, key)
            )
            """,
            "CREATE INDEX index_entries_by_key ON \(s).index_entries (collection, key)",
            """
            CREATE TABLE \(s).index_catalog (
                collection text COLLATE "C" NOT NULL,
                name text COLLATE "C" NOT NULL,
                fingerprint text NOT NULL,
                PRIMARY KEY (collection, name)
            )
            """,
            """
            CREATE TABLE \(s).changes (
                sequence bigint PRIMARY KEY,
                transaction_id bigint NOT NULL,
                collection text COLLATE "C" NOT NULL,
                key text COLLATE "C" NOT NULL,
                revision bigint NOT NULL,
                kind text NOT NULL,
                major bigint NOT NULL,
                minor bigint NOT NULL,
                class_tag text COLLATE "C",
                committed_at double precision NOT NULL
            )
            """,
            "CREATE INDEX changes_by_collection ON \(s).changes (collection, sequence)",
            """
            CREATE TABLE \(s).change_counter (
                id integer PRIMARY KEY CHECK (id = 1),
                last_sequence bigint NOT NULL,
                last_transaction bigint NOT NULL,
                pruned_through bigint NOT NULL
            )
            """,
            """
            INSERT INTO \(s).change_counter (id, last_sequence, last_transaction, pruned_through)
            VALUES (1, 0, 0, 0)
            """,

        ]
    }
}
