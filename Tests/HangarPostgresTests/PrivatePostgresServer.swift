import Foundation
import HangarTestSupport

/// A PostgreSQL server of one test's own, for what must not happen to the shared one (a crash and restart):
/// a fresh cluster in a folder under `directory`, on a free loopback port, started as `Scripts/with-postgres.sh`
/// starts its server (as the `postgres` user when run as root: initdb refuses root). ``stop()`` stops it and
/// removes the folder; call it whatever happens.
final class PrivatePostgresServer: Sendable {
    /// Why the server could not be used.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The folder of the server's programs (`initdb`, `pg_ctl`): on PATH, else the newest of Debian's; nil when
    /// PostgreSQL is not installed.
    static let binaries: String? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        for folder in path.split(separator: ":") where FileManager.default.isExecutableFile(atPath: "\(folder)/initdb")
        {
            return String(folder)
        }
        let root = "/usr/lib/postgresql"
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        return versions.compactMap { Int($0) }.sorted(by: >).map { "\(root)/\($0)/bin" }.first {
            FileManager.default.isExecutableFile(atPath: "\($0)/initdb")
        }
    }()

    let folder: String
    let port: Int
    /// `postgres://hangar:hangar@127.0.0.1:PORT/postgres`.
    let url: String
    private let binaries: String
    private var data: String { folder + "/data" }

    /// Creates and starts a cluster in a new folder under `directory`.
    init(in directory: String) throws {
        guard let binaries = Self.binaries else { throw Failure(description: "PostgreSQL is not installed") }
        self.binaries = binaries
        // Short: the server's socket (FOLDER/.s.PGSQL.PORT) must fit in 107 bytes.
        let folder = directory + "/pg"
        self.folder = folder
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder)
        try Data("hangar\n".utf8).write(to: URL(fileURLWithPath: folder + "/password"))
        if Self.asOwner.isEmpty == false {
            try Self.check(ProcessRunner.run("/bin/chown", ["-R", "postgres:", folder]), "chown")
        }
        try Self.check(
            Self.run(
                binaries + "/initdb",
                [
                    "-D", folder + "/data", "--username=hangar", "--pwfile=\(folder)/password", "--auth-local=trust",
                    "--auth-host=scram-sha-256", "--encoding=UTF8", "--locale=C.UTF-8",
                ]), "initdb")
        var started: Int?
        for _ in 0..<5 where started == nil {
            let candidate = Self.freePort()
            let status = try Self.spawn(
                binaries + "/pg_ctl",
                [
                    "-D", folder + "/data", "-l", folder + "/server.log", "-w", "-t", "60", "-o",
                    "-k \(folder) -p \(candidate) -c listen_addresses=127.0.0.1", "start",
                ], errors: folder + "/pg_ctl.txt")
            if status == 0 { started = candidate }
        }
        guard let started else {
            let log = (try? String(contentsOfFile: folder + "/server.log", encoding: .utf8)) ?? ""
            throw Failure(description: "the server did not start: \(log)")
        }
        port = started
        url = "postgres://hangar:hangar@127.0.0.1:\(started)/postgres"
    }

    /// Crashes the server (`pg_ctl restart -m immediate`: no shutdown checkpoint, recovery from the WAL on
    /// start) and waits until it accepts connections again.
    func restartImmediately() throws {
        let status = try Self.spawn(
            binaries + "/pg_ctl",
            [
                "-D", data, "-l", folder + "/server.log", "-w", "-t", "60", "-m", "immediate", "-o",
                "-k \(folder) -p \(port) -c listen_addresses=127.0.0.1", "restart",
            ], errors: folder + "/pg_ctl.txt")
        guard status == 0 else { throw Failure(description: "pg_ctl restart failed (status \(status))") }
    }

    /// Stops the server at once and removes its folder.
    func stop() {
        _ = try? Self.run(binaries + "/pg_ctl", ["-D", data, "-m", "immediate", "-w", "stop"])
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// `runuser -u postgres --` when root (the cluster belongs to `postgres`), nothing otherwise.
    private static let asOwner: [String] = getuid() == 0 ? ["/usr/sbin/runuser", "-u", "postgres", "--"] : []

    private static func run(_ executable: String, _ arguments: [String]) throws -> ProcessOutput {
        let command = asOwner + [executable] + arguments
        return try ProcessRunner.run(command[0], Array(command.dropFirst()))
    }

    /// Runs a command that starts the server and returns its exit status. Not through Foundation's `Process`:
    /// it learns that a child ended when a socket the child inherited closes, and the server (started by the
    /// child, living on) would keep that socket open.
    private static func spawn(_ executable: String, _ arguments: [String], errors: String) throws -> Int32 {
        let command = asOwner + [executable] + arguments
        let child = try ChildProcess(Array(command.dropFirst()), stderrPath: errors, executable: command[0])
        let status = child.waitForExit()
        // WIFEXITED and WEXITSTATUS, which Swift does not import as functions.
        return status & 0x7F == 0 ? (status >> 8) & 0xFF : -1
    }

    private static func check(_ output: ProcessOutput, _ what: String) throws {
        guard output.status == 0 else { throw Failure(description: "\(what) failed: \(output.stderr)") }
    }

    /// A port the kernel says is free on loopback (another process may take it before the server: retried).
    private static func freePort() -> Int {
        #if canImport(Glibc)
            let socket = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let socket = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(socket, address, length) == 0 && getsockname(socket, address, &length) == 0
            }
        }
        return bound ? Int(UInt16(bigEndian: address.sin_port)) : Int.random(in: 20_000..<60_000)
    }
}
