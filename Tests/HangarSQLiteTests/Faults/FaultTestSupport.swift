import Foundation
import Hangar
import HangarSQLite
import HangarTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A string no error description or log line may ever show: the fault tests put it in every document.
let secretMarker = "ZEBRA-SECRET-7731"

/// A note whose body is `size` bytes of ``secretMarker`` over and over, so one save fills a file system fast.
func secretNote(_ title: String, size: Int = 48 << 10) -> Note {
    let repeated = String(repeating: secretMarker + " ", count: size / (secretMarker.count + 1) + 1)
    return Note(title: title, body: title + " " + String(repeated.prefix(size)))
}

/// Expects `error` to be a ``HangarError`` with `code` whose description is one line and never quotes a
/// document (``secretMarker``).
func expectFault(_ error: any Error, _ code: HangarError.Code, sourceLocation: SourceLocation = #_sourceLocation) {
    let hangarError = error as? HangarError
    #expect(hangarError?.code == code, "\(error)", sourceLocation: sourceLocation)
    let text = String(describing: error)
    #expect(!text.contains(secretMarker), "\(text)", sourceLocation: sourceLocation)
    #expect(!text.contains("\n"), "\(text)", sourceLocation: sourceLocation)
}

/// The permission bits of `path` (`0o600`), or `nil` when it does not exist.
func permissions(of path: String) -> UInt16? {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    return UInt16(info.st_mode & 0o7777)
}

/// The names in `directory`, sorted.
func names(in directory: String) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
}

/// The stored bytes of every document of `collection`, by key.
func bodies(in store: SQLiteStore, collection: String = "notes") throws -> [String: [UInt8]] {
    try store.read { transaction in
        var bodies: [String: [UInt8]] = [:]
        for key in try transaction.keys(in: collection) {
            bodies[key] = try transaction.document(in: collection, key: key)?.body
        }
        return bodies
    }
}

/// How many earlier revisions of `key` the store keeps.
func historyCount(in store: SQLiteStore, key: String, collection: String = "notes") throws -> Int {
    try store.read { try $0.history(in: collection, key: key).count }
}

/// The note at `key`, or `nil`.
func note(in store: SQLiteStore, key: String) throws -> Note? {
    try store.read { try $0.load(Note.self, key: key)?.value }
}
