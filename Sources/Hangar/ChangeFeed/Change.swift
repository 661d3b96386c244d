public import Foundation
import Synchronization

/// One committed change in a store's feed: a save, a delete or a restore of one document. It says what
/// changed, not the body: read the document for that.
public struct Change: Sendable, Hashable {
    /// What happened to the document.
    public enum Kind: String, Sendable, Hashable {
        /// A save (a new document, or a new revision).
        case save
        /// A delete: ``Change/revision`` is the revision deleted.
        case delete
        /// A kept earlier revision saved again as a new revision.
        case restore
    }

    /// The change's place in the store's feed: store-wide, from 1, without gaps or reuse, in commit order.
    public let sequence: Int
    /// The transaction that committed it (the sequence of its first change; in a store written before
    /// schema 4, a count): a transaction's changes have contiguous sequences and one id, ids grow.
    public let transaction: Int
    /// The document's collection.
    public let collection: String
    /// The document's key.
    public let key: String
    /// The revision saved (for a delete, the revision deleted).
    public let revision: Int
    /// A save, a delete or a restore.
    public let kind: Kind
    /// The document's format version as saved (for a delete, as it was).
    public let version: DocumentVersion
    /// The document's class tag, if it has one.
    public let classTag: String?
    /// When the change was written, inside its transaction.
    public let committedAt: Date

    /// A change as an engine read it.
    package init(
        sequence: Int, transaction: Int, collection: String, key: String, revision: Int, kind: Kind,
        version: DocumentVersion, classTag: String?, committedAt: Date
    ) {
        self.sequence = sequence
        self.transaction = transaction
        self.collection = collection
        self.key = key
        self.revision = revision
        self.kind = kind
        self.version = version
        self.classTag = classTag
        self.committedAt = committedAt
    }
}
