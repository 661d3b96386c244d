import Foundation
import Synchronization

/// A turn at writing a file.
struct WriteTurn: Sendable {}

/// One writer lock per database file in this process, shared by every store open on it.
///
/// Two stores of one process on one file would otherwise meet only at SQLite's file lock, whose busy handler
/// polls with sleeps growing to 100 ms: a store whose writers queue on their own lock takes the file lock
/// back at once after each commit, and the other store's writer can starve until its busy timeout fails it
/// with "database is locked" (seen in the concurrency stress test under load). Waiting on one lock instead,
/// the writers take turns, in the order they came. Processes still meet only at SQLite's lock.
enum WriterLocks {
    private struct FileID: Hashable {
        let device: UInt64
        let inode: UInt64
    }

    private static let locks = Mutex<[FileID: Lender<WriteTurn>]>([:])

    /// The lock for the file at `path` (which exists: the store has opened it); a private lock if it cannot
    /// be identified.
    static func lock(for path: String) -> Lender<WriteTurn> {
        var info = stat()
        guard stat(path, &info) == 0 else { return privateLock() }
        let id = FileID(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
        return locks.withLock { locks in
            if let lock = locks[id] { return lock }
            let lock = privateLock()
            locks[id] = lock
            return lock
        }
    }

    /// A lock of its own (in-memory stores).
    static func privateLock() -> Lender<WriteTurn> { Lender([WriteTurn()]) }
}
