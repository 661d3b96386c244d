extension PostgresStoreSQL {
    /// The change feed's tables and statements (see ``PostgresChangeRecorder`` for how they are used, and the
    /// `Engines` article for why the feed keeps its promises).
    ///
    /// - `changes`: the numbered feed, as in SQLite; `change_counter`: its last sequence, last transaction and
    ///   the last sequence pruned.
    /// - `pending_changes` (schema 3): committed changes not numbered yet, under their transaction's ticket (from
    ///   the sequence `change_tickets`, drawn by its last statement before `COMMIT`) and their order in it.
    /// - `note_changes(…)` (schema 3): a transaction's last statement; notes its changes as pending and, when it
    ///   gets the numbering lock at once, numbers every pending change there (``noteChanges``).
    /// - `number_changes(ticket, maximum_count, cutoff)` (schema 3): run after `COMMIT`, in a transaction of its
    ///   own, for changes left pending (``numberChanges``).
    /// - `number_pending_changes(maximum_count, cutoff)` (schema 3): what both run under the numbering lock: moves
    ///   every pending change it sees into `changes` with the next sequences, by ticket then order, advances the
    ///   counter, prunes by retention and notifies ``channel`` (the payload is the last sequence).
    package struct ChangeStatements: Sendable {
        /// last_sequence, last_transaction, pruned_through, without locking (readers).
        package let counter: String
        /// The state a session sees, for a commit token (``Hangar/CommitToken``): the WAL position (what a standby
        /// replayed, or what the primary wrote) as `pg_lsn` text, and the feed's last sequence.
        package let token: String
        /// Notes a transaction's changes as pending, under a new ticket, and numbers them at once when nobody is
        /// numbering (holding the numbering lock to the transaction's end). One array element per change: $1 kind,
        /// $2 time, $3 collection, $4 key, $5 revision, $6 major, $7 minor, $8 class tag ('' where $9, whether it
        /// has one, is false); $10 and $11 as in ``numberChanges``. Returns the ticket when the changes are left
        /// pending (number them after `COMMIT`), NULL when they were numbered.
        package let noteChanges: String
        /// Numbers the pending changes if those of ticket $1 (any, for NULL) are still pending; $2 the most
        /// changes kept (NULL: any number), $3 the oldest time kept (NULL: any age). Returns the last sequence,
        /// or NULL when nothing was numbered.
        package let numberChanges: String
        /// How many changes are committed but not numbered yet.
        package let pendingCount: String
        /// Takes the numbering lock until the transaction ends.
        package let numberingLock: String
        /// The channel `number_changes` notifies: `hangar_changes_` and the schema's name (a hash of it when
        /// the name is long), at most 63 bytes, as `LISTEN` takes it.
        package let channel: String
        /// The columns a change is read from, in order.
        package static let columns =
            "sequence, transaction_id, collection, key, revision, kind, major, minor, class_tag, committed_at"
        /// Changes after $1, oldest first, at most $2 (NULL: all).
        package let changesSince: String
        /// Changes of collection $3 after $1, oldest first, at most $2 (NULL: all).
        package let changesOfCollectionSince: String

        init(_ s: String, schema: String) {
            counter = "SELECT last_sequence, last_transaction, pruned_through FROM \(s).change_counter WHERE id = 1"
            token = "SELECT wal_position, last_sequence FROM \(s).commit_token()"
            noteChanges = """
                SELECT \(s).note_changes($1::text[], $2::double precision[], $3::text[], $4::text[], $5::bigint[],
                    $6::bigint[], $7::bigint[], $8::text[], $9::boolean[], $10::bigint, $11::double precision)
                """
            numberChanges = "SELECT \(s).number_changes($1::bigint, $2::bigint, $3::double precision)"
            pendingCount = "SELECT count(*) FROM \(s).pending_changes"
            numberingLock = "SELECT pg_advisory_xact_lock(\(Self.numberingLockKey(schema: schema)))"
            channel = Self.channel(schema: schema)
            let columns = Self.columns
            changesSince = """
                SELECT \(columns) FROM \(s).changes WHERE sequence > $1 ORDER BY sequence LIMIT $2::bigint
                """
            changesOfCollectionSince = """
                SELECT \(columns) FROM \(s).changes WHERE collection = $3 AND sequence > $1 ORDER BY sequence
                LIMIT $2::bigint
                """
        }

        /// ``channel`` of `schema` (validated: lowercase letters, digits and `_`).
        static func channel(schema: String) -> String {
            let prefix = "hangar_changes_"
            if prefix.utf8.count + schema.utf8.count <= 63 { return prefix + schema }
            var hash: UInt64 = 0xCBF2_9CE4_8422_2325
            for byte in schema.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01B3 }
            return prefix + String(hash, radix: 16)
        }

        /// The numbering lock's key: a 64-bit hash of the schema's name.
        static func numberingLockKey(schema: String) -> String {
            "hashtextextended('hangar changes \(schema)', 0)"
        }
    }
}
