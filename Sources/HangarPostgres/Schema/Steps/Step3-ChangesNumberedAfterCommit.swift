extension PostgresStoreSQL.ChangeStatements {
    /// Schema step 3 (frozen once released): the pending changes, their tickets and the numbering function.
    /// The function's lock and channel are written into it for the schema `s` (quoted).
    static func step3ChangesNumberedAfterCommit(_ s: String) -> [String] {
        let schema = s.replacingOccurrences(of: "\"", with: "")
        let lockKey = numberingLockKey(schema: schema)
        let pending = """
            ((p_ticket IS NULL AND EXISTS (SELECT 1 FROM \(s).pending_changes))
                OR EXISTS (SELECT 1 FROM \(s).pending_changes WHERE ticket = p_ticket))
            """
        return [
            "CREATE SEQUENCE \(s).change_tickets AS bigint",
            """
            CREATE TABLE \(s).pending_changes (
                ticket bigint NOT NULL,
                ordinal bigint NOT NULL,
                collection text COLLATE "C" NOT NULL,
                key text COLLATE "C" NOT NULL,
                revision bigint NOT NULL,
                kind text NOT NULL,
                major bigint NOT NULL,
                minor bigint NOT NULL,
                class_tag text COLLATE "C",
                committed_at double precision NOT NULL,
                PRIMARY KEY (ticket, ordinal)
            )
            """,
            """
            CREATE FUNCTION \(s).number_pending_changes(p_maximum_count bigint, p_cutoff double precision)
            RETURNS bigint LANGUAGE plpgsql AS $number$
            DECLARE
                v_last bigint;
                v_pruned bigint;
                v_added bigint;
                v_boundary bigint;
            BEGIN
                -- The caller holds the numbering lock until its transaction ends. The counter's row lock also
                -- locks out writers of schema 2, which number at their commit under it.
                SELECT last_sequence, pruned_through INTO v_last, v_pruned
                FROM \(s).change_counter WHERE id = 1 FOR UPDATE;
                IF NOT FOUND THEN RAISE EXCEPTION 'the store''s change counter is missing'; END IF;
                WITH moved AS (
                    DELETE FROM \(s).pending_changes RETURNING *
                ), numbered AS (
                    SELECT m.*, v_last + row_number() OVER (ORDER BY m.ticket, m.ordinal) AS sequence
                    FROM moved AS m
                )
                INSERT INTO \(s).changes (sequence, transaction_id, collection, key, revision, kind, major, minor,
                    class_tag, committed_at)
                SELECT n.sequence, min(n.sequence) OVER (PARTITION BY n.ticket), n.collection, n.key, n.revision,
                    n.kind, n.major, n.minor, n.class_tag, n.committed_at
                FROM numbered AS n;
                GET DIAGNOSTICS v_added = ROW_COUNT;
                IF v_added = 0 THEN RETURN NULL; END IF;
                UPDATE \(s).change_counter SET last_sequence = v_last + v_added,
                    last_transaction = (SELECT c.transaction_id FROM \(s).changes AS c
                                        WHERE c.sequence = v_last + v_added)
                WHERE id = 1;
                v_boundary := v_pruned;
                IF p_maximum_count IS NOT NULL THEN
                    v_boundary := GREATEST(v_boundary, v_last + v_added - GREATEST(p_maximum_count, 0));
                END IF;
                IF p_cutoff IS NOT NULL THEN
                    v_boundary := GREATEST(v_boundary, COALESCE(
                        (SELECT c.sequence FROM \(s).changes AS c
                         WHERE c.sequence > v_boundary AND c.committed_at >= p_cutoff
                         ORDER BY c.sequence LIMIT 1),
                        v_last + v_added + 1) - 1);
                END IF;
                IF v_boundary > v_pruned THEN
                    DELETE FROM \(s).changes WHERE sequence <= v_boundary;
                    UPDATE \(s).change_counter SET pruned_through = v_boundary WHERE id = 1;
                END IF;
                PERFORM pg_notify('\(channel(schema: schema))', (v_last + v_added)::text);
                RETURN v_last + v_added;
            END
            $number$
            """,
            """
            CREATE FUNCTION \(s).note_changes(p_kind text[], p_committed_at double precision[],
                p_collection text[], p_key text[], p_revision bigint[], p_major bigint[], p_minor bigint[],
                p_class_tag text[], p_has_class_tag boolean[], p_maximum_count bigint, p_cutoff double precision)
            RETURNS bigint LANGUAGE plpgsql AS $note$
            DECLARE
                v_ticket bigint := nextval('\(s).change_tickets');
            BEGIN
                INSERT INTO \(s).pending_changes
                    (ticket, ordinal, kind, committed_at, collection, key, revision, major, minor, class_tag)
                SELECT v_ticket, c.ordinal, c.kind, c.committed_at, c.collection, c.key, c.revision, c.major,
                    c.minor, CASE WHEN c.has_class_tag THEN c.class_tag END
                FROM unnest(p_kind, p_committed_at, p_collection, p_key, p_revision, p_major, p_minor, p_class_tag,
                    p_has_class_tag) WITH ORDINALITY
                    AS c(kind, committed_at, collection, key, revision, major, minor, class_tag, has_class_tag,
                         ordinal);
                -- Nobody numbering: number here, holding the lock to this commit (no numbering after it).
                IF pg_try_advisory_xact_lock(\(lockKey)) THEN
                    PERFORM \(s).number_pending_changes(p_maximum_count, p_cutoff);
                    RETURN NULL;
                END IF;
                RETURN v_ticket;
            END
            $note$
            """,
            """
            CREATE FUNCTION \(s).number_changes(p_ticket bigint, p_maximum_count bigint, p_cutoff double precision)
            RETURNS bigint LANGUAGE plpgsql AS $number$
            BEGIN
                -- Numbered already (by another caller): no lock, no write, no flush.
                IF NOT \(pending) THEN RETURN NULL; END IF;
                -- One numbering at a time, each to its commit: each statement below sees every one before it.
                PERFORM pg_advisory_xact_lock(\(lockKey));
                IF NOT \(pending) THEN RETURN NULL; END IF;
                RETURN \(s).number_pending_changes(p_maximum_count, p_cutoff);
            END
            $number$
            """,
        ]
    }
}
