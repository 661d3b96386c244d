import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A small tmpfs mounted for one test, to fill up (a full disk) or remount read-only: the faults happen for
/// real. Mounting needs root on Linux; where it fails, ``mount(megabytes:)`` prints a loud SKIPPED line and
/// returns `nil`. Unmount it in a `defer`.
public final class SmallFileSystem: Sendable {
    /// Where it is mounted.
    public let path: String

    private init(path: String) { self.path = path }

    /// A fresh tmpfs of `megabytes`, or `nil` (after a SKIPPED line on standard error) where none can be mounted.
    public static func mount(megabytes: Int, test: String = #function) -> SmallFileSystem? {
        let path = NSTemporaryDirectory() + "hangar-fs-" + UUID().uuidString
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            let result = try ProcessRunner.run(
                "/bin/mount", ["-t", "tmpfs", "-o", "size=\(megabytes)m", "tmpfs", path])
            guard result.status == 0 else {
                skip(test, "mount -t tmpfs failed (\(result.stderr.trimmingCharacters(in: .whitespacesAndNewlines)))")
                try? FileManager.default.removeItem(atPath: path)
                return nil
            }
        } catch {
            skip(test, "cannot run /bin/mount: \(error)")
            return nil
        }
        return SmallFileSystem(path: path)
    }

    /// Prints the loud line a test prints when it cannot inject its fault here.
    public static func skip(_ test: String, _ reason: String) {
        FileHandle.standardError.write(Data("WARNING: \(test) SKIPPED: \(reason)\n".utf8))
    }

    /// Remounts it read-only (`true`) or read-write: what really makes writes fail for root too.
    public func remount(readOnly: Bool) throws {
        let result = try ProcessRunner.run(
            "/bin/mount", ["-o", readOnly ? "remount,ro" : "remount,rw", path])
        guard result.status == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: result.stderr])
        }
    }

    /// Fills it up with `filler` (one file, as big as the free space allows, less `free` bytes), so the next
    /// write (bigger than `free`) fails with ENOSPC. Returns the filler's path: remove it to free the space.
    @discardableResult
    public func fill(_ filler: String = "filler", leaving free: Int = 0) -> String {
        let file = path + "/" + filler
        let descriptor = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard descriptor >= 0 else { return file }
        defer { close(descriptor) }
        let chunk = [UInt8](repeating: 0x5A, count: 64 << 10)
        // Whole chunks, then smaller ones down to one byte: nothing is left.
        var size = chunk.count
        while size > 0 {
            let written = chunk.withUnsafeBytes { write(descriptor, $0.baseAddress, size) }
            if written <= 0 { size /= 2 }
        }
        if free > 0 {
            var info = stat()
            if fstat(descriptor, &info) == 0 { _ = ftruncate(descriptor, max(0, info.st_size - off_t(free))) }
        }
        return file
    }

    /// Bytes free.
    public var freeBytes: Int {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return 0 }
        return Int(info.f_bavail) * Int(info.f_frsize)
    }

    /// Unmounts it (read-write first, so that nothing is left busy) and removes the mount point.
    public func unmount() {
        _ = try? ProcessRunner.run("/bin/umount", ["-l", path])
        try? FileManager.default.removeItem(atPath: path)
    }
}
