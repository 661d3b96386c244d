import Foundation
import Hangar
import PropertyList
import Testing

@Suite struct MirrorCheckTests {
    @Test func checkReportsAMirrorFileACommittedSaveCouldNotWrite() throws {
        let directory = try CLI.temporaryDirectory()
        let db = directory + "/store.sqlite"
        // A regular file where the mirror folder's parent should be: the folder cannot be created, even as root.
        try Data("blocker".utf8).write(to: URL(fileURLWithPath: directory + "/blocker"))
        var configuration = StoreConfiguration()
        configuration.collections["pilots"] = CollectionOptions(mirrorDirectory: directory + "/blocker/mirror")
        configuration.mirrorFailureHandler = { _ in }
        do {
            let store = try Store(path: db, configuration: configuration)
            let revision = try store.write {
                try $0.save(envelope: ["majorVersion": 1, "minorVersion": 0], key: "amelia", in: "pilots")
            }
            #expect(revision == 1)
        }
        var result = try CLI.run(["db", "check", "--db", db])
        #expect(result.status == 1)
        #expect(
            result.stdout.hasPrefix("mirror not updated: \(directory)/blocker/mirror/amelia.plist (pilots/amelia): "))
        #expect(result.stdout.split(separator: "\n").count == 1)
        // Once the folder can be written, the next mirror pass catches up and check is clean.
        try FileManager.default.removeItem(atPath: directory + "/blocker")
        let store = try Store(path: db, configuration: configuration)
        #expect(try store.retryMirrors() == [])
        #expect(FileManager.default.fileExists(atPath: directory + "/blocker/mirror/amelia.plist"))
        result = try CLI.run(["db", "check", "--db", db])
        #expect(result.status == 0 && result.stdout == "ok\n")
    }
}
