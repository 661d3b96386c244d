import Foundation
import HangarTestSupport

/// The few file operations the tests need (Foundation is fine here; the module under test does not use it).
enum FileSystem {
    static func list(_ directory: String) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
    }

    static func read(_ path: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path).map { [UInt8]($0) }
    }

    static func write(_ bytes: [UInt8], to path: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    static func temporaryDirectory() throws -> String {
        try ScratchFolders.make("hangar-tests")
    }
}
