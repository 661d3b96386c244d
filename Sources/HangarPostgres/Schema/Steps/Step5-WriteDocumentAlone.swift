extension PostgresStoreSQL.WriteStatements {
    /// Schema step 5 (frozen once released): `write_document_alone`, a single save or delete in one statement
    /// in autocommit: `write_document`, and when it wrote, its change noted by `note_changes` (and numbered
    /// there when nobody is numbering), all committed by that one statement.
    static func step5WriteDocumentAlone(_ s: String) -> [String] {
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
