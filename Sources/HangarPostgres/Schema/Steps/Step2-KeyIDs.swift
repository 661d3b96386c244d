extension PostgresStoreSQL {
    /// Schema step 2 (frozen once released): encryption at rest. Each body's key id (NULL: plaintext, as every body
    /// stored before this step).
    static func step2KeyIDs(_ s: String) -> [String] {
        [
            "ALTER TABLE \(s).documents ADD COLUMN key_id text",
            "ALTER TABLE \(s).history ADD COLUMN key_id text",
        ]
    }
}
