import ArgumentParser
import Foundation
import Hangar

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// `hangar db changes --db PATH [COLLECTION] [--since N] [--limit N] [--follow]`
struct DBChanges: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "changes",
        abstract: "Print the store's change feed, one `SEQUENCE COLLECTION KEY REVISION KIND` line per change.",
        discussion: """
            KIND is save, delete or restore. With --follow, keeps printing changes as they commit until \
            interrupted (SIGINT or SIGTERM end it with status 0).
            """)

    @OptionGroup var store: StoreOption
    @Argument(help: "Only the changes of this collection.") var collection: String?
    @Option(help: "Print the changes after this sequence (0: from the oldest kept).") var since: Int = 0
    @Option(help: "Print at most this many changes (without --follow).") var limit: Int?
    @Flag(help: "Keep printing changes as they commit, until interrupted.") var follow = false

    /// How often `--follow` looks for new commits, in microseconds.
    static let pollInterval: useconds_t = 75_000

    func validate() throws {
        if since < 0 { throw ValidationError("--since must be 0 or more") }
        if let limit, limit < 0 { throw ValidationError("--limit must be 0 or more") }
        if follow && limit != nil { throw ValidationError("--limit cannot be used with --follow") }
    }

    func run() throws {
        try withStore(store) { store in
            guard follow else {
                printChanges(try store.changes(since: since, in: collection, limit: limit))
                return
            }
            // Interrupted: every line printed has been flushed, so end at once, successfully.
            signal(SIGINT) { _ in _exit(0) }
            signal(SIGTERM) { _ in _exit(0) }
            // A parent may have started this process with them blocked (the mask is inherited).
            var signals = sigset_t()
            sigemptyset(&signals)
            sigaddset(&signals, SIGINT)
            sigaddset(&signals, SIGTERM)
            pthread_sigmask(SIG_UNBLOCK, &signals, nil)
            var last = since
            while true {
                let (changes, lastSequence) = try store.read { transaction in
                    (
                        try transaction.changes(since: last, in: collection, limit: 1_000),
                        try transaction.lastChangeSequence()
                    )
                }
                printChanges(changes)
                // Caught up to the last commit, of this collection or not: resume from there.
                last =
                    changes.count < 1_000
                    ? max(lastSequence, changes.last?.sequence ?? last) : changes.last?.sequence ?? last
                if changes.isEmpty { usleep(Self.pollInterval) }
            }
        }
    }

    private func printChanges(_ changes: [Change]) {
        for change in changes {
            print("\(change.sequence) \(change.collection) \(change.key) \(change.revision) \(change.kind.rawValue)")
        }
        fflush(nil)
    }
}
