extension PostgresStoreSQL.WriteStatements {
    /// Schema step 4 (frozen once released): the function. The key's and index values' locks are the same
    /// advisory locks as ``LockStatements``'s, so a statement-by-statement writer and this function exclude
    /// each other.
    static func step4WriteDocument(_ s: String, lockSeed: Int64) -> [String] {
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
}
