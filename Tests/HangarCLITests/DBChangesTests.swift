import Foundation
import HangarTestSupport
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// `hangar db changes`: the feed as `SEQUENCE COLLECTION KEY REVISION KIND` lines, from the real binary; with
/// `--follow`, a long-running process that prints other processes' commits and ends with status 0 on SIGINT
/// or SIGTERM.
@Suite struct DBChangesTests {
    private func put(_ db: String, _ collection: String, _ key: String, _ file: String) throws {
        let result = try CLI.run(["db", "put", "--db", db, collection, key, file])
        #expect(result.status == 0, "\(result.stderr)")
    }

    private func store(in directory: String) throws -> (db: String, file: String) {
        let file = directory + "/doc.plist"
        try Data(DBTests.envelope(major: 1, name: "Amelia")).write(to: URL(fileURLWithPath: file))
        return (directory + "/store.sqlite", file)
    }

    @Test func printsTheFeedSinceLimitAndByCollection() throws {
        let directory = try CLI.temporaryDirectory()
        defer { CLI.remove(directory) }
        let (db, file) = try store(in: directory)
        try put(db, "pilots", "amelia", file)
        try put(db, "pilots", "amelia", file)
        try put(db, "planes", "electra", file)
        #expect(try CLI.run(["db", "rm", "--db", db, "pilots", "amelia"]).status == 0)

        var result = try CLI.run(["db", "changes", "--db", db])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            result.stdout
                == "1 pilots amelia 1 save\n2 pilots amelia 2 save\n3 planes electra 1 save\n4 pilots amelia 2 delete\n"
        )
        result = try CLI.run(["db", "changes", "--db", db, "--since", "1", "--limit", "2"])
        #expect(result.stdout == "2 pilots amelia 2 save\n3 planes electra 1 save\n")
        result = try CLI.run(["db", "changes", "--db", db, "pilots", "--since", "2"])
        #expect(result.stdout == "4 pilots amelia 2 delete\n")
        result = try CLI.run(["db", "changes", "--db", db, "--since", "4"])
        #expect(result.status == 0 && result.stdout.isEmpty)
        result = try CLI.run(["db", "changes", "--db", db, "--since", "-1"])
        #expect(result.status != 0 && result.stdout.isEmpty)
        result = try CLI.run(["db", "changes", "--db", db + ".missing"])
        #expect(result.status == 1 && result.stderr == "\(db).missing: No such store\n")
    }

    @Test(arguments: [SIGINT, SIGTERM]) func followPrintsOtherProcessesCommitsUntilInterrupted(signal: Int32) throws {
        let directory = try CLI.temporaryDirectory()
        defer { CLI.remove(directory) }
        let (db, file) = try store(in: directory)
        try put(db, "pilots", "amelia", file)
        let follower = try ChildProcess(
            ["db", "changes", "--db", db, "pilots", "--follow"], stderrPath: directory + "/stderr.txt",
            executable: CLI.executable)
        #expect(
            follower.waitForOutput(containing: "1 pilots amelia 1 save\n", timeout: 30), "\(follower.standardError)")
        // Another process commits: printed within the poll, other collections not at all.
        try put(db, "planes", "electra", file)
        try put(db, "pilots", "amelia", file)
        #expect(
            follower.waitForOutput(containing: "3 pilots amelia 2 save\n", timeout: 10), "\(follower.standardError)")
        kill(follower.pid, signal)
        // Not ended within 10 s: killed, and the status says so (no hang).
        let pid = follower.pid
        let exited = Atomic(false)
        DispatchQueue.global().asyncAfter(deadline: .now() + 10) {
            if !exited.load(ordering: .sequentiallyConsistent) { kill(pid, SIGKILL) }
        }
        let status = follower.waitForExit()
        exited.store(true, ordering: .sequentiallyConsistent)
        #expect(status == 0)
        #expect(follower.completeLines() == ["1 pilots amelia 1 save", "3 pilots amelia 2 save"])
    }
}
