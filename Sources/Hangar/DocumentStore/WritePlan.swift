import Foundation

/// A save, delete or restore as the rules decide it before the stored row is known: what to store (the body,
/// version, class tag and index entries), the change kind to record, and the conditions the stored row must
/// meet (the expected revision, no newer major unless forced). Every engine turns a plan into rows the same way:
/// it reads the stored row (``CurrentRow``), lets ``DocumentRules/resolve(_:current:lastRevision:configuration:instruments:)``
/// check the conditions and give the revision, sealed body and history action, then writes what the
/// ``ResolvedWrite`` says, in its own SQL.
///
/// A plan holds everything an engine needs to apply it without asking the rules again, so an engine may apply
/// a plan (or a transaction's plans) in one statement that checks the same conditions.
package struct WritePlan: Sendable {
    /// What is stored for a save: the plaintext envelope encoded as a binary property list, and what it is
    /// found by.
    package struct Content: Sendable {
        /// The envelope as a binary property list (sealed, if the store encrypts, once the revision is known).
        package let body: [UInt8]
        /// The version the envelope declares.
        package let version: DocumentVersion
        /// The content's `"class"` tag.
        package let classTag: String?
        /// The value of each declared index for the content, unique ones flagged.
        package let indexEntries: [IndexEntry]
    }

    /// The collection written.
    package let collection: String
    /// The key written.
    package let key: String
    /// What is stored: the new content, or `nil` for a delete.
    package let content: Content?
    /// The change the feed records (``Change/Kind/save``, ``Change/Kind/restore`` or ``Change/Kind/delete``).
    package let kind: Change.Kind
    /// The revision the stored document must have (0: none), when the caller gave one.
    package let expectedRevision: Int?
    /// The newest major this write may replace or delete; `nil` when the write does not know one.
    package let readableMajor: Int?
    /// Whether a stored document of a newer major than ``readableMajor`` may be replaced or deleted anyway.
    package let overwritingNewerMajor: Bool
    /// What the collection keeps of the revision this write replaces or deletes.
    package let history: HistoryPolicy

    /// Whether the plan deletes the document.
    package var isDelete: Bool { content == nil }
}

/// What a write needs to know of the stored document: its revision, version, class tag and key id, not its
/// bytes.
package struct CurrentRow: Sendable, Hashable {
    /// The stored revision.
    package let revision: Int
    /// The stored version.
    package let version: DocumentVersion
    /// The stored content's class tag.
    package let classTag: String?
    /// The id of the key its body is sealed with (nil: plaintext).
    package let keyID: String?

    /// A stored row as read.
    package init(revision: Int, version: DocumentVersion, classTag: String?, keyID: String?) {
        self.revision = revision
        self.version = version
        self.classTag = classTag
        self.keyID = keyID
    }
}

/// A ``WritePlan`` checked against the stored row: exactly what an engine writes, in this order.
///
/// 1. When ``replacesCurrent``, the current revision goes to history as ``history`` says (copied and pruned,
///    or all history dropped for ``HistoryPolicy/keepNone``).
/// 2. The document row: ``body`` written (inserted, or updated when ``replacesCurrent``) with ``revision``; or,
///    for a delete, the key's last revision kept (revisions are never reused) and the row removed.
/// 3. The key's index entries replaced by ``indexEntries`` (removed for a delete).
/// 4. ``change`` recorded in the feed.
package struct ResolvedWrite: Sendable {
    /// The revision written (a save's new one) or removed (a delete's).
    package let revision: Int
    /// Whether a document is stored now (its revision moves to history, its row is updated or removed).
    package let replacesCurrent: Bool
    /// What the collection keeps of the replaced revision.
    package let history: HistoryPolicy
    /// The bytes to store, sealed when the store encrypts, and the id of their key; `nil` for a delete.
    package let body: (bytes: [UInt8], keyID: String?)?
    /// The index entries the key holds afterwards (checked for unique values before anything is written).
    package let indexEntries: [IndexEntry]
    /// The change the feed records.
    package let change: RecordedChange
}

/// A change as a transaction records it, before the feed gives it a sequence.
package struct RecordedChange: Sendable, Hashable {
    /// A save, delete or restore.
    package let kind: Change.Kind
    /// The collection changed.
    package let collection: String
    /// The key changed.
    package let key: String
    /// The revision saved, or the revision deleted.
    package let revision: Int
    /// The version of the document saved or deleted.
    package let version: DocumentVersion
    /// Its class tag.
    package let classTag: String?

    /// A change to record.
    package init(
        kind: Change.Kind, collection: String, key: String, revision: Int, version: DocumentVersion,
        classTag: String?
    ) {
        self.kind = kind
        self.collection = collection
        self.key = key
        self.revision = revision
        self.version = version
        self.classTag = classTag
    }
}
