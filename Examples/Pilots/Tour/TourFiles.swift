import Foundation
import Hangar
import HangarSQLite

/// Where the tour finds its frozen documents and writes its files, how `--fresh` clears a store, and how paths
/// and URLs are shown.
enum TourFiles {
    /// The repository root, from this file's place in it: Examples/Pilots/Tour/TourFiles.swift.
    static let repositoryRoot: String = {
        var parts = String(#filePath).split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(4)
        return parts.joined(separator: "/")
    }()

    /// The first folder holding `1.0/ada.plist`: `override`, else Migrations/Pilots of the repository
    /// this was built from (`swift run pilots` from a clone), else of the current directory.
    static func migrationsDirectory(override: String?) -> String? {
        let candidates =
            override.map { [$0] }
            ?? [
                repositoryRoot + "/Migrations/Pilots",
                FileManager.default.currentDirectoryPath + "/Migrations/Pilots",
            ]
        return candidates.first { FileManager.default.fileExists(atPath: $0 + "/1.0/ada.plist") }
    }

    /// Removes a store file and its SQLite companions (`-wal`, `-shm`), if they exist.
    static func removeStore(at path: String) throws {
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: path + suffix) {
            try FileManager.default.removeItem(atPath: path + suffix)
        }
    }

    /// The folder exports go to: `exports` beside the store file.
    static func exportsDirectory(forStoreAt path: String) -> String {
        let folder = (path as NSString).deletingLastPathComponent
        return (folder.isEmpty ? "." : folder) + "/exports"
    }

    /// The folder exports go to on PostgreSQL: `exports-SCHEMA` in the platform's data folder for the tour.
    static func exportsDirectory(forSchema schema: String) -> String {
        SQLiteStore.defaultDirectory(application: TourDefaults.application) + "/exports-" + schema
    }

    /// A store URL as the tour prints it: `USER@HOST:PORT/DATABASE`, never with the password or the query.
    static func displayName(ofURL url: String) -> String {
        guard let components = URLComponents(string: url), let host = components.percentEncodedHost else {
            return "(the --url given)"
        }
        var name = components.percentEncodedUser.map { $0 + "@" } ?? ""
        name += host
        if let port = components.port { name += ":\(port)" }
        return name + components.percentEncodedPath
    }

    /// `path` relative to the current directory when it is inside it, for shorter output.
    static func display(_ path: String) -> String {
        let here = FileManager.default.currentDirectoryPath + "/"
        return path.hasPrefix(here) ? String(path.dropFirst(here.count)) : path
    }
}
