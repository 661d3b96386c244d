import Foundation
import PropertyList

/// Where a client's pull of one collection stands: the server store it follows (id and epoch), the last change
/// sequence it has applied, and the mark of that change (so a server restored from an older copy, whose feed took
/// another path after that sequence, is noticed even when its id and epoch are the same).
public struct SyncCheckpoint: Sendable, Hashable {
    /// The server store's id.
    public var storeID: String
    /// The server store's epoch.
    public var epoch: String
    /// Every change up to this sequence has been applied.
    public var through: Int
    /// The mark of the change at ``through`` (empty for 0).
    public var mark: String
    /// The server's last sequence when it last answered a push of this client (0: none past ``through``): its
    /// own writes are in the server's history up to there, so a server restored from before it is noticed even
    /// when ``through`` is older than the restore point.
    public var acknowledged: Int
    /// The mark of the change at ``acknowledged``.
    public var acknowledgedMark: String

    /// A checkpoint.
    public init(
        storeID: String, epoch: String, through: Int, mark: String, acknowledged: Int = 0,
        acknowledgedMark: String = ""
    ) {
        self.storeID = storeID
        self.epoch = epoch
        self.through = through
        self.mark = mark
        self.acknowledged = acknowledged
        self.acknowledgedMark = acknowledgedMark
    }
}

/// One document of a pull: its key, the server's revision and its stored bytes, or that it is deleted.
public struct SyncItem: Sendable, Hashable {
    /// The document's key.
    public var key: String
    /// The server's revision (for a delete, the revision deleted).
    public var revision: Int
    /// The envelope as the server stores it (a binary property list); `nil`: the document is deleted.
    public var body: [UInt8]?

    /// An item.
    public init(key: String, revision: Int, body: [UInt8]?) {
        self.key = key
        self.revision = revision
        self.body = body
    }
}

/// What a pull answers: the documents changed after the checkpoint (each at its state as of the answer's read,
/// so several saves of one key come once), ending on a transaction boundary, and the checkpoint to store with
/// them. A snapshot answer holds every document of the collection instead, and ``isSnapshot`` says so.
public struct SyncBatch: Sendable, Hashable {
    /// The checkpoint the client stores in the same transaction as the items.
    public var checkpoint: SyncCheckpoint
    /// The documents.
    public var items: [SyncItem]
    /// Whether more changes follow this batch (pull again at once).
    public var hasMore: Bool
    /// Whether this is a snapshot: every live document of the collection, nothing else.
    public var isSnapshot: Bool

    /// A batch.
    public init(checkpoint: SyncCheckpoint, items: [SyncItem], hasMore: Bool, isSnapshot: Bool) {
        self.checkpoint = checkpoint
        self.items = items
        self.hasMore = hasMore
        self.isSnapshot = isSnapshot
    }
}

/// One local change a client pushes: a save or a delete of one key, over the server revision it was made on.
public struct SyncMutation: Sendable, Hashable {
    /// The mutation's id, unique for its client and never reused.
    public var id: Int
    /// The document's key.
    public var key: String
    /// The server revision the change was made on (0: the client saw no document there).
    public var base: Int
    /// Earlier mutations of this key this client sent without receiving an answer, oldest first: if the server
    /// applied one of them, the newest such is the real base (the client's own write, not a conflict).
    public var supersedes: [Int]
    /// The envelope to store (a binary property list); `nil`: delete.
    public var body: [UInt8]?

    /// A mutation.
    public init(id: Int, key: String, base: Int, supersedes: [Int] = [], body: [UInt8]?) {
        self.id = id
        self.key = key
        self.base = base
        self.supersedes = supersedes
        self.body = body
    }
}

/// What the server answers for one mutation.
public enum SyncOutcome: Sendable, Hashable {
    /// Applied: the mutation made `revision` (0 for a delete). With `current`, the server's document now, when
    /// it is not what the client sent: stored migrated (an older major, on the way in), or, for a retried
    /// mutation (which gets the revision it got the first time), moved on since (another client's later write,
    /// made over this one, which the client skipped in its pull while its own was pending). The client takes it.
    case applied(revision: Int, current: SyncItem? = nil)
    /// Not applied: the server's document moved on from the mutation's base. `theirs` is the server's current
    /// document (`nil` body: deleted), `base` the base revision's body when history still keeps it.
    case conflict(theirs: SyncItem, base: [UInt8]?)
    /// Not applied, and retrying will not help: the code (`newerMajor`, `invalidDocument`, …) and why.
    case rejected(code: String, reason: String)
}

/// What a push answers: one outcome per mutation, in order, and the server's last sequence (and its mark) once
/// they were applied, which the client keeps in its checkpoint (``SyncCheckpoint/acknowledged``).
public struct SyncPushAnswer: Sendable, Hashable {
    /// The outcomes.
    public var outcomes: [SyncOutcome]
    /// The server's last change sequence after the push.
    public var through: Int
    /// The mark of the change at ``through``.
    public var mark: String

    /// An answer.
    public init(outcomes: [SyncOutcome], through: Int, mark: String) {
        self.outcomes = outcomes
        self.through = through
        self.mark = mark
    }
}

/// A push: a client's id and its mutations of one collection, applied in order, each at most once.
public struct SyncPush: Sendable, Hashable {
    /// The client's id (any unique text; a client keeps it for its life).
    public var clientID: String
    /// The mutations.
    public var mutations: [SyncMutation]

    /// A push.
    public init(clientID: String, mutations: [SyncMutation]) {
        self.clientID = clientID
        self.mutations = mutations
    }
}

/// A live notice of the event stream: the server committed a transaction that changed the collection (in the
/// follower's scope) at ``sequence``. It carries no data: the client pulls, and the pull's checkpoint rules stay
/// the only way changes are applied, so a lost, repeated or late notice can never skip or repeat a change.
public struct SyncNotice: Sendable, Hashable {
    /// The sequence of the transaction's first change in the collection (the stream's event id).
    public var sequence: Int

    /// A notice.
    public init(sequence: Int) { self.sequence = sequence }
}
