import Foundation
import HangarTestSupport
import Testing

/// Every hostile file is refused by a `hangar` process whose address space is capped at 256 MiB: a decoder
/// that allocated from a lying count, or expanded a shared-reference bomb, would die there instead of
/// printing its one-line error. (A memory bound per file, checked outside the test process, where parallel
/// tests cannot blur it.)
@Suite struct MemoryBoundTests {
    static let hostileFiles: [String] = {
        // cpython-ascii-invalid-byte.bplist is read (its byte 0xFF as ISO-8859-1, as CF reads it): LintTests.
        let shared = ((try? FileManagerList.names(in: CLI.corpus + "/invalid")) ?? [])
            .filter { $0 != "cpython-ascii-invalid-byte.bplist" }.map { CLI.corpus + "/invalid/" + $0 }
        let fixtures = repositoryRoot + "/Tests/PropertyListTests/Fixtures/invalid"
        let ours = ((try? FileManagerList.names(in: fixtures)) ?? []).filter { $0.hasPrefix("hostile-") }
            .map { fixtures + "/" + $0 }
        return shared + ours
    }()

    @Test func everyHostileFileIsRefusedWithinTheCap() throws {
        #expect(Self.hostileFiles.count >= 28 + 20, "the hostile corpus is missing")
        let quoted = Self.hostileFiles.map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        // One child per file, each capped; the shell prints each exit status after the file's line.
        let script = quoted.map { "ulimit -v 262144; '\(CLI.executable)' lint \($0) 2>&1; echo \"status=$?\"" }
            .joined(separator: "\n")
        let result = try CLI.runShell(script)
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 2 * Self.hostileFiles.count, "\(result.stdout.suffix(2000))")
        for (index, file) in Self.hostileFiles.enumerated() where 2 * index + 1 < lines.count {
            #expect(lines[2 * index].hasPrefix(file + ": "), "\(lines[2 * index])")
            #expect(lines[2 * index + 1] == "status=1", "\(file): \(lines[2 * index + 1])")
        }
    }
}
