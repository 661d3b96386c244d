import Foundation
import Hangar
import HangarHummingbird
import Hummingbird
import PropertyList

extension HangarStudio {
    /// `POST api/health/check`: the host's check (``StudioOptions/check``), else the studio's own: the engine's
    /// check of what it stored (SQLite's integrity check) as `damaged: …` lines, then every document of every
    /// collection read back (``Hangar/DocumentStore/unreadableDocuments()``). `ok` is whether none failed.
    func check(_ request: Request) async throws -> Response {
        try StudioAccess.requireSameOrigin(request)
        let started = ContinuousClock.now
        let problems: [String]
        if let check = options.check {
            problems = try await check()
        } else {
            let damaged = try await store.storageProblems() ?? []
            let unreadable = try await store.unreadableDocuments()
            problems = damaged.map { "damaged: \($0)" } + unreadable.map { "document not readable: \($0)" }
        }
        let elapsed = ContinuousClock.now - started
        return StudioJSON.response([
            "ok": .boolean(problems.isEmpty), "problems": .array(problems.map { .string($0) }),
            "milliseconds": StudioJSON.int(Int(elapsed / .milliseconds(1))),
        ])
    }

    /// `POST api/health/backup`: a consistent copy of a store kept in a file (``Hangar/StorageFacts/file``), in
    /// ``StudioOptions/backupFolder`` or beside the store, named for the time; 409 for a store on a server (its
    /// server has its own backups).
    func backup(_ request: Request) async throws -> Response {
        try StudioAccess.requireSameOrigin(request)
        let facts = await store.storageFacts()
        guard let file = facts.file else {
            throw HangarHTTPError(
                .conflict, "Backups are made of stores kept in a file; back this database up with its server's tools")
        }
        let folder = options.backupFolder ?? (file as NSString).deletingLastPathComponent
        let stem = ((file as NSString).lastPathComponent as NSString).deletingPathExtension
        let stamp = PropertyList.iso8601Text(forDate: Date().timeIntervalSinceReferenceDate, fractionDigits: 3) ?? "now"
        let name = stem + "-backup-" + stamp.filter { $0.isNumber } + ".sqlite"
        let destination = (folder as NSString).appendingPathComponent(name)
        try store.backup(to: destination)
        return StudioJSON.response([
            "path": .string(destination), "size": StudioJSON.int(Self.fileSize(destination) ?? 0),
        ])
    }
}
