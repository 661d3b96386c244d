import Foundation
import Hangar
import HangarFaultVFS
import HangarSQLite
import HangarTestSupport
import PropertyList
import Testing

/// A disk that fails writes half-way through a save (a SQLite VFS that returns SQLITE_IOERR after N writes):
/// the save throws ``HangarError/io``, nothing of it is kept, and once the fault clears the store opens sound
/// with every acknowledged save and none of the failed one.
@Suite(.serialized) struct SQLiteIOErrorTests {
    @Test(arguments: [0, 1, 2, 3, 5, 8])
    func aWriteThatFailsHalfWayLeavesNothing(allowedWrites: Int) throws {
        #expect(hangar_fault_vfs_register() == 0)
        defer { hangar_fault_vfs_fail_after(-1) }
        let path = try temporaryDirectory() + "/store.sqlite"
        var configuration = SQLiteStoreConfiguration(path: path)
        configuration.vfs = "hangar-fault"
        var acknowledged: [String: [UInt8]] = [:]
        do {
            let store = try SQLiteStore(configuration: configuration)
            try store.write { transaction in
                for key in ["a", "b"] { try transaction.save(secretNote(key, size: 6_000), key: key) }
            }
            hangar_fault_vfs_fail_after(Int32(allowedWrites))
            #expect {
                try store.write { transaction in
                    try transaction.save(secretNote("a2", size: 6_000), key: "a")
                    for index in 0..<4 {
                        try transaction.save(secretNote("new\(index)", size: 6_000), key: "new\(index)")
                    }
                }
            } throws: { error in
                expectFault(error, .io)
                return true
            }
            #expect(hangar_fault_vfs_failures() > 0)
            hangar_fault_vfs_fail_after(-1)
            acknowledged = try bodies(in: store)
        }
        // The fault cleared: opened afresh (by SQLite's default VFS), the store is sound and as acknowledged.
        let reopened = try SQLiteStore(path: path)
        #expect(try reopened.checkIntegrity() == ["ok"])
        #expect(acknowledged.keys.sorted() == ["a", "b"])
        #expect(try bodies(in: reopened) == acknowledged)
        #expect(try historyCount(in: reopened, key: "a") == 1)
        #expect(try note(in: reopened, key: "a")?.title == "a")
        #expect(try reopened.read { try $0.changes(since: 0) }.map(\.key) == ["a", "b"])
        try reopened.write { try $0.save(secretNote("after", size: 10), key: "after") }
    }
}
