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

/// `hangar db changes (--db PATH | --url URL) [COLLECTION] [--since N] [--limit N] [--follow]`
struct DBChanges: AsyncParsableCommand {
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

    func validate() throws {
        if since < 0 { throw ValidationError("--since must be 0 or more") }
        if let limit, limit < 0 { throw ValidationError("--limit must be 0 or more") }
        if follow && limit != nil { throw ValidationError("--limit cannot be used with --follow") }
    }

    func run() async throws {
        try await withStore(store, readOnly: true) { opened in
            if follow {
                try await followChanges(opened.store)
            } else {
                printChanges(try await opened.store.changes(since: since, in: collection, limit: limit))
            }
        }
    }

    /// Prints every change after `--since`, then each one as it commits (the store's feed), until SIGINT or
    /// SIGTERM ends the process.
    private func followChanges<S: DocumentStore>(_ store: S) async throws {
        // Interrupted: every line printed has been flushed, so end at once, successfully.
        signal(SIGINT) { _ in _exit(0) }
        signal(SIGTERM) { _ in _exit(0) }
        // A parent may have started this process with them blocked (the mask is inherited).
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGINT)
        sigaddset(&signals, SIGTERM)
        pthread_sigmask(SIG_UNBLOCK, &signals, nil)
        for try await change in store.follow(after: since, in: collection) {
            printChanges([change])
        }
    }

    private func printChanges(_ changes: [Change]) {
        for change in changes {
            print("\(change.sequence) \(change.collection) \(change.key) \(change.revision) \(change.kind.rawValue)")
        }
        fflush(nil)
    }
}
