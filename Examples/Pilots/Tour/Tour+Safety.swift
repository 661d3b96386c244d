import Hangar
import HangarSQLite
import PilotModels

extension Tour {
    // MARK: 9

    /// SQLite's own safety tools: the file's integrity check and an online backup, opened to prove it is a
    /// store. On PostgreSQL the server's tools do that work; the step says which.
    func checkAndBackUp() async throws {
        heading(9, "Check the store and back it up")
        guard let sqlite = store as? SQLiteStore else {
            print(
                "  SQLite only; on PostgreSQL: backups: pg_dump; integrity: the server's checks (pg_amcheck); "
                    + "mirror folders: follow the change feed (step 8)")
            return
        }
        let problems = try sqlite.checkIntegrity()
        print("  Integrity check of the file: \(problems.joined(separator: "; "))")
        let backup = exportsDirectory + "/pilots-backup.sqlite"
        // An online copy: writers could go on meanwhile; the copy is renamed into place when complete.
        try sqlite.backup(to: backup)
        let pilots = try await SQLiteStore(path: backup).read { try $0.count(in: Pilot.collection) }
        print(
            "  Online backup: \(TourFiles.display(backup)) (\(fileSize(backup)) bytes), "
                + "opened as a store: \(pilots) pilots")
    }
}
