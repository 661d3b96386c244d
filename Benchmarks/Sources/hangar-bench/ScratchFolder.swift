import Foundation

/// A section's folder of its own, `hangar-bench-SECTION-PID` under `HANGAR_BENCH_DIR` or else the temporary folder
/// (point `HANGAR_BENCH_DIR` at a disk-backed folder: the single-save rows mean something only when fsync reaches a
/// disk), made when created and removed by ``remove()``.
struct ScratchFolder {
    let path: String

    init(_ section: String) throws {
        let base = ProcessInfo.processInfo.environment["HANGAR_BENCH_DIR"] ?? NSTemporaryDirectory()
        path = (base as NSString).appendingPathComponent("hangar-bench-\(section)-\(getpid())")
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}
