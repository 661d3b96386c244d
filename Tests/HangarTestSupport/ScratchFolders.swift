import Foundation
import Synchronization

/// Folders a test process works in, all under one folder of its own (`hangar-test-run-PID` in the temporary
/// folder), removed when the process exits; a run that was killed leaves its folder to the next run, which removes
/// the folders of every test process no longer alive. So `swift test` leaves nothing behind in the temporary
/// folder, however many stores and files its tests make.
public enum ScratchFolders {
    private static let prefix = "hangar-test-run-"
    private static let root = Mutex<String?>(nil)

    /// A new, empty folder named `label-UUID` under this process's folder.
    public static func make(_ label: String) throws -> String {
        let path = try runFolder() + "/" + label + "-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// This process's folder, made (and the folders of dead runs removed) on first use.
    private static func runFolder() throws -> String {
        try root.withLock { root in
            if let root { return root }
            let temporary = NSTemporaryDirectory()
            removeFoldersOfDeadRuns(in: temporary)
            let path = temporary + (temporary.hasSuffix("/") ? "" : "/") + prefix + String(getpid())
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            root = path
            atexit { ScratchFolders.removeOwnFolder() }
            return path
        }
    }

    /// Removes this process's folder (at exit).
    private static func removeOwnFolder() {
        guard let path = root.withLock({ $0 }) else { return }
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Removes `hangar-test-run-PID` folders whose process is gone.
    private static func removeFoldersOfDeadRuns(in temporary: String) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: temporary)) ?? []
        for name in names where name.hasPrefix(prefix) {
            guard let pid = Int32(name.dropFirst(prefix.count)), pid != getpid() else { continue }
            if kill(pid, 0) == -1 && errno == ESRCH {
                try? FileManager.default.removeItem(atPath: temporary + "/" + name)
            }
        }
    }
}
