import Hangar

/// The SQLite store is a ``DocumentStore``: code written against the protocol runs on it unchanged, its
/// transactions' synchronous reads and writes standing for the protocol's async ones.
extension SQLiteStore: DocumentStore {}

extension SQLiteReadTransaction: DocumentReader {}

extension SQLiteWriteTransaction: DocumentWriter {}
