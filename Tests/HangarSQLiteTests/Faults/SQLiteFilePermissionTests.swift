import Foundation
import Hangar
import HangarSQLite
import HangarTestSupport
import PropertyList
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Files Hangar creates are its owner's only (0600, folders 0700) whatever the umask, unless configured.
@Suite(.serialized) struct SQLiteFilePermissionTests {
    /// Every file and folder a store makes: the database, its -wal and -shm, backups, exports, mirrors; each file's
    /// permissions, read while the store is open (its -wal and -shm go when it closes).
    private static func createEverything(in root: String, configuration: StoreConfiguration) async throws
        -> [(file: String, permissions: UInt16?)]
    {
        let store = try SQLiteStore(
            configuration: sqliteConfiguration(
                root + "/data/store.sqlite", configuration, mirroring: root + "/mirror/notes"))
        try await store.write { try $0.save(secretNote("a", size: 10), key: "a") }
        try await store.export(key: "a", in: "notes", to: root + "/a.plist")
        try await store.exportCollection("notes", to: root + "/export/notes")
        try store.backup(to: root + "/backup.sqlite")
        let files = [
            "data/store.sqlite", "data/store.sqlite-wal", "data/store.sqlite-shm", "a.plist",
            "export/notes/a.plist", "backup.sqlite", "mirror/notes/a.plist",
        ]
        for file in files { #expect(FileManager.default.fileExists(atPath: root + "/" + file), "\(file)") }
        let measured = files.map { (file: $0, permissions: permissions(of: root + "/" + $0)) }
        await store.close()
        return measured
    }

    @Test func filesAre0600AndFolders0700WhateverTheUmask() async throws {
        let root = try temporaryDirectory()
        let previous = umask(0)
        defer { umask(previous) }
        let files = try await Self.createEverything(in: root, configuration: StoreConfiguration())
        for (file, permissions) in files { #expect(permissions == 0o600, "\(file)") }
        for folder in ["data", "export", "export/notes", "mirror", "mirror/notes"] {
            #expect(permissions(of: root + "/" + folder) == 0o700, "\(folder)")
        }
    }

    @Test func configuredPermissionsAreUsed() async throws {
        let root = try temporaryDirectory()
        let previous = umask(0o077)
        defer { umask(previous) }
        var configuration = StoreConfiguration()
        configuration.filePermissions = 0o640
        configuration.folderPermissions = 0o750
        let files = try await Self.createEverything(in: root, configuration: configuration)
        for (file, permissions) in files { #expect(permissions == 0o640, "\(file)") }
        for folder in ["data", "export/notes", "mirror/notes"] {
            #expect(permissions(of: root + "/" + folder) == 0o750, "\(folder)")
        }
    }
}
