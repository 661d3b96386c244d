import Foundation
import Hangar
import HangarSQLite
import Hummingbird
import PropertyList

extension HangarStudio {
    /// `POST api/health/check`: the host's check (``StudioOptions/check``), else the studio's own: on SQLite the
    /// file's integrity check, then every document of every collection read back. `ok` is whether none failed.
    func check(_ request: Request) async throws -> Response {
        try StudioAccess.requireSameOrigin(request)
        let started = ContinuousClock.now
        let problems: [String]
        if let check = options.check {
            problems = try await check()
        } else {
            var lines: [String] = []
            if let sqlite = store as? SQLiteStore {
                lines += try sqlite.checkIntegrity().filter { !$0.hasSameBytes(as: "ok") }.map { "damaged: \($0)" }
            }
            problems = lines + (try await unreadableDocuments())
        }
        let elapsed = ContinuousClock.now - started
        return StudioJSON.response([
            "ok": .boolean(problems.isEmpty), "problems": .array(problems.map { .string($0) }),
            "milliseconds": StudioJSON.int(Int(elapsed / .milliseconds(1))),
        ])
    }

    /// A `document not readable: …` line for each document whose stored envelope does not decode.
    func unreadableDocuments() async throws -> [String] {
        let collections = try await store.read { try await $0.collections() }
        var lines: [String] = []
        for collection in collections {
            lines += try await store.read { reader in
                var lines: [String] = []
                for key in try await reader.keys(in: collection) {
                    do {
                        guard let stored = try await reader.document(in: collection, key: key) else { continue }
                        _ = try DocumentRules.envelopeVersion(try stored.envelope(), collection: collection, key: key)
                    } catch {
                        lines.append("document not readable: \(error)")
                    }
                }
                return lines
            }
        }
        return lines
    }

    /// `POST api/health/backup`: a consistent copy of a SQLite store, in ``StudioOptions/backupFolder`` or
    /// beside the store, named for the time; 409 on other engines (their server has its own backups).
    func backup(_ request: Request) async throws -> Response {
        try StudioAccess.requireSameOrigin(request)
        guard let sqlite = store as? SQLiteStore else {
            throw StudioError(
                .conflict, "Backups are made for SQLite stores; back this database up with its server's tools")
        }
        let folder = options.backupFolder ?? (sqlite.path as NSString).deletingLastPathComponent
        let stem = ((sqlite.path as NSString).lastPathComponent as NSString).deletingPathExtension
        let stamp = PropertyList.iso8601Text(forDate: Date().timeIntervalSinceReferenceDate, fractionDigits: 3) ?? "now"
        let name = stem + "-backup-" + stamp.filter { $0.isNumber } + ".sqlite"
        let destination = (folder as NSString).appendingPathComponent(name)
        try sqlite.backup(to: destination)
        return StudioJSON.response([
            "path": .string(destination), "size": StudioJSON.int(Self.fileSize(destination) ?? 0),
        ])
    }
}
