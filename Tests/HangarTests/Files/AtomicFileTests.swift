import Foundation
import Hangar
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite struct AtomicFileTests {
    /// A writer killed half-way leaves `.NAME.hangar-XXXXXX`; the next save of NAME removes it, but never the
    /// temporary file of a writer still at work (it holds a lock on it).
    @Test func abandonedTemporaryFilesAreRemovedLiveOnesKept() throws {
        let directory = try temporaryDirectory()
        let target = directory + "/doc.plist"
        let abandoned = directory + "/.doc.plist.hangar-AbCd12"
        let live = directory + "/.doc.plist.hangar-XyZ789"
        let unrelated = directory + "/.other.plist.hangar-AbCd12"
        for path in [abandoned, live, unrelated] {
            #expect(FileManager.default.createFile(atPath: path, contents: Data("partial".utf8)))
        }
        // A writer in this process that holds its temporary file (a different open file, so the lock counts).
        let writer = open(live, O_RDWR)
        #expect(writer >= 0)
        defer { close(writer) }
        #expect(flock(writer, LOCK_EX) == 0)

        try AtomicFile.save(Array("new".utf8), to: target)
        #expect(try AtomicFile.contents(of: target) == Array("new".utf8))
        #expect(!FileManager.default.fileExists(atPath: abandoned))
        #expect(FileManager.default.fileExists(atPath: live))
        #expect(FileManager.default.fileExists(atPath: unrelated))
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: directory).sorted()
                == [".doc.plist.hangar-XyZ789", ".other.plist.hangar-AbCd12", "doc.plist"])
    }
}
