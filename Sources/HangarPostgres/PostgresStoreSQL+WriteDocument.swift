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

        /// Schema step 4 (frozen once released): the function. The key's and index values' locks are the same
        /// advisory locks as ``LockStatements``'s, so a statement-by-statement writer and this function exclude
        /// each other.
        static func writeDocumentStep(_ s: String, lockSeed: Int64) -> [String] {
            let keyLock = "hashtextextended('key ' || p_collection || chr(1) || p_key, \(lockSeed))"
            let valueLock = """
                hashtextextended('index ' || p_collection || chr(1) || p_index_names[v_i] || chr(1)
                    || encode(p_index_values[v_i], 'hex'), \(lockSeed))
                """
            let thisKey = "collection = p_collection AND key = p_key"
            return [
                """
                CREATE FUNCTION \(s).write_document(p_collection text, p_key text, p_save boolean, p_class_tag text,
                    p_major bigint, p_minor bigint, p_body bytea, p_time double precision, p_expected bigint,
                    p_readable_major bigint, p_overwriting boolean, p_refuse_newer_minor boolean,
                    p_history_kept bigint, p_index_names text[], p_index_values bytea[], p_index_unique boolean[],
                    p_declared text[],
                    OUT outcome text, OUT revision bigint, OUT current_revision bigint, OUT current_major bigint,
                    OUT current_minor bigint, OUT current_class_tag text, OUT current_key_id text,
                    OUT last_revision bigint, OUT index_name text, OUT other_key text)
                LANGUAGE plpgsql AS $write$
                #variable_conflict use_column
                DECLARE
                    v_found boolean;
                    v_i integer;
                BEGIN
                    PERFORM pg_advisory_xact_lock(\(keyLock));
                    SELECT d.revision, d.major, d.minor, d.class_tag, d.key_id
                    INTO current_revision, current_major, current_minor, current_class_tag, current_key_id
                    FROM \(s).documents AS d WHERE d.\(thisKey);
                    v_found := FOUND;
                    last_revision := COALESCE(GREATEST(
                        (SELECT r.revision FROM \(s).key_revisions AS r WHERE r.\(thisKey)),
                        (SELECT max(h.revision) FROM \(s).history AS h WHERE h.\(thisKey))), 0);
                    -- Anything the rules must decide: hand the row back, write nothing.
                    IF (p_expected IS NOT NULL AND p_expected <> COALESCE(current_revision, 0))
                        OR (v_found AND p_readable_major IS NOT NULL AND current_major > p_readable_major
                            AND NOT p_overwriting)
                        OR (v_found AND current_key_id IS NOT NULL)
                        OR (v_found AND p_refuse_newer_minor AND current_major = p_major AND current_minor > p_minor)
                        OR EXISTS (SELECT 1 FROM \(s).index_catalog AS c
                                   WHERE c.collection = p_collection AND c.name <> ALL (p_declared))
                    THEN
                        outcome := 'refused';
                        RETURN;
                    END IF;
                    IF NOT p_save THEN
                        IF NOT v_found THEN
                            outcome := 'absent';
                            RETURN;
                        END IF;
                        revision := current_revision;
                    ELSE
                        revision := GREATEST(COALESCE(current_revision, 0), last_revision) + 1;
                        -- Unique values, each under its value's lock, before anything is written.
                        FOR v_i IN 1 .. COALESCE(array_length(p_index_names, 1), 0) LOOP
                            CONTINUE WHEN NOT p_index_unique[v_i];
                            PERFORM pg_advisory_xact_lock(\(valueLock));
                            SELECT e.key INTO other_key FROM \(s).index_entries AS e
                            WHERE e.collection = p_collection AND e.name = p_index_names[v_i]
                                AND e.value = p_index_values[v_i] AND e.key <> p_key
                            LIMIT 1;
                            IF other_key IS NOT NULL THEN
                                outcome := 'duplicate';
                                index_name := p_index_names[v_i];
                                RETURN;
                            END IF;
                        END LOOP;
                    END IF;
                    IF v_found THEN
                        IF p_history_kept = 0 THEN
                            DELETE FROM \(s).history WHERE \(thisKey);
                        ELSE
                            INSERT INTO \(s).history
                                (collection, key, revision, class_tag, major, minor, saved_at, body, key_id)
                            SELECT d.collection, d.key, d.revision, d.class_tag, d.major, d.minor, d.updated_at,
                                d.body, d.key_id
                            FROM \(s).documents AS d WHERE d.\(thisKey)
                            ON CONFLICT (collection, key, revision) DO UPDATE SET class_tag = excluded.class_tag,
                                major = excluded.major, minor = excluded.minor, saved_at = excluded.saved_at,
                                body = excluded.body, key_id = excluded.key_id;
                            IF p_history_kept IS NOT NULL THEN
                                DELETE FROM \(s).history AS h WHERE h.\(thisKey) AND h.revision NOT IN
                                    (SELECT k.revision FROM \(s).history AS k WHERE k.\(thisKey)
                                     ORDER BY k.revision DESC LIMIT p_history_kept);
                            END IF;
                        END IF;
                    END IF;
                    IF p_save THEN
                        INSERT INTO \(s).key_revisions (collection, key, revision)
                        VALUES (p_collection, p_key, write_document.revision)
                        ON CONFLICT (collection, key) DO UPDATE SET revision = excluded.revision;
                        IF v_found THEN
                            UPDATE \(s).documents SET class_tag = p_class_tag, major = p_major, minor = p_minor,
                                revision = write_document.revision, updated_at = p_time, body = p_body, key_id = NULL
                            WHERE \(thisKey);
                        ELSE
                            INSERT INTO \(s).documents
                                (collection, key, class_tag, major, minor, revision, created_at, updated_at, body,
                                 key_id)
                            VALUES (p_collection, p_key, p_class_tag, p_major, p_minor, write_document.revision,
                                p_time, p_time, p_body, NULL);
                        END IF;
                        IF EXISTS (SELECT 1 FROM \(s).index_catalog AS c WHERE c.collection = p_collection) THEN
                            DELETE FROM \(s).index_entries WHERE \(thisKey);
                            INSERT INTO \(s).index_entries (collection, name, value, key)
                            SELECT p_collection, u.name, u.value, p_key
                            FROM unnest(p_index_names, p_index_values) AS u(name, value)
                            ON CONFLICT DO NOTHING;
                        END IF;
                    ELSE
                        DELETE FROM \(s).documents WHERE \(thisKey);
                        DELETE FROM \(s).index_entries WHERE \(thisKey);
                    END IF;
                    outcome := 'written';
                END
                $write$
                """
            ]
        }

        /// Schema step 5 (frozen once released): `write_document_alone`, a single save or delete in one statement
        /// in autocommit: `write_document`, and when it wrote, its change noted by `note_changes` (and numbered
        /// there when nobody is numbering), all committed by that one statement.
        static func writeDocumentAloneStep(_ s: String) -> [String] {
            [
                """
                CREATE FUNCTION \(s).write_document_alone(p_collection text, p_key text, p_save boolean,
                    p_class_tag text, p_major bigint, p_minor bigint, p_body bytea, p_time double precision,
                    p_expected bigint, p_readable_major bigint, p_overwriting boolean, p_refuse_newer_minor boolean,
                    p_history_kept bigint, p_index_names text[], p_index_values bytea[], p_index_unique boolean[],
                    p_declared text[], p_maximum_count bigint, p_cutoff double precision,
                    OUT outcome text, OUT revision bigint, OUT current_revision bigint, OUT current_major bigint,
                    OUT current_minor bigint, OUT current_class_tag text, OUT current_key_id text,
                    OUT last_revision bigint, OUT index_name text, OUT other_key text, OUT ticket bigint)
                LANGUAGE plpgsql AS $alone$
                DECLARE
                    v_major bigint;
                    v_minor bigint;
                    v_class_tag text;
                BEGIN
                    SELECT w.outcome, w.revision, w.current_revision, w.current_major, w.current_minor,
                        w.current_class_tag, w.current_key_id, w.last_revision, w.index_name, w.other_key
                    INTO outcome, revision, current_revision, current_major, current_minor, current_class_tag,
                        current_key_id, last_revision, index_name, other_key
                    FROM \(s).write_document(p_collection, p_key, p_save, p_class_tag, p_major, p_minor, p_body,
                        p_time, p_expected, p_readable_major, p_overwriting, p_refuse_newer_minor, p_history_kept,
                        p_index_names, p_index_values, p_index_unique, p_declared) AS w;
                    IF outcome = 'written' THEN
                        -- A delete's change names the revision and version deleted.
                        IF p_save THEN
                            v_major := p_major;
                            v_minor := p_minor;
                            v_class_tag := p_class_tag;
                        ELSE
                            v_major := current_major;
                            v_minor := current_minor;
                            v_class_tag := current_class_tag;
                        END IF;
                        ticket := \(s).note_changes(
                            ARRAY[CASE WHEN p_save THEN 'save' ELSE 'delete' END], ARRAY[p_time],
                            ARRAY[p_collection], ARRAY[p_key], ARRAY[revision], ARRAY[v_major], ARRAY[v_minor],
                            ARRAY[COALESCE(v_class_tag, '')], ARRAY[v_class_tag IS NOT NULL], p_maximum_count,
                            p_cutoff);
                    END IF;
                END
                $alone$
                """
            ]
        }
    }
}
