import Foundation
import Hangar
import HangarTestSupport
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

    /// A writer of many files into one folder (a collection's export) sweeps the folder once, for every name:
    /// abandoned temporary files go, a live writer's stays, and files that only look alike are left alone.
    @Test func oneSweepOfAFolderRemovesEveryAbandonedTemporaryFile() throws {
        let directory = try temporaryDirectory()
        let abandoned = [".a.plist.hangar-AbCd12", ".b%2Fc.plist.hangar-000000"]
        let kept = [".a.plist.hangar-XyZ789", ".hangar-AbCd12", "a.plist.hangar-AbCd12", ".a.plist.hangar-AbCd1"]
        for name in abandoned + kept {
            #expect(FileManager.default.createFile(atPath: directory + "/" + name, contents: Data("partial".utf8)))
        }
        let writer = open(directory + "/" + kept[0], O_RDWR)
        #expect(writer >= 0)
        defer { close(writer) }
        #expect(flock(writer, LOCK_EX) == 0)

        try AtomicFile.save(Array("a".utf8), to: directory + "/a.plist", sweeping: false)
        #expect(abandoned.allSatisfy { FileManager.default.fileExists(atPath: directory + "/" + $0) })
        AtomicFile.removeAbandonedTemporaryFiles(in: directory)
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: directory).sorted() == (kept + ["a.plist"]).sorted())
    }

    /// A folder of thousands of entries with names of every length is swept whole, and only abandoned files go.
    /// (The sweep reads each name in place: copying a `dirent`'s whole `d_name` field read past readdir's buffer,
    /// which crashed `hangar db export` of 1,260 files; where the buffer ends is not up to a test.)
    @Test func aSweepOfAFolderOfThousandsOfNamesReadsEachNameInPlace() throws {
        let directory = try temporaryDirectory()
        var expected: [String] = []
        for index in 0..<4_000 {
            let name = String(repeating: "n", count: 1 + index % 240) + "\(index)"
            let isAbandoned = index % 97 == 0
            let file = isAbandoned ? ".\(name).hangar-\(String(100_000 + index))" : name
            #expect(FileManager.default.createFile(atPath: directory + "/" + file, contents: nil))
            if !isAbandoned { expected.append(file) }
        }
        AtomicFile.removeAbandonedTemporaryFiles(in: directory)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory).sorted() == expected.sorted())
    }
}
