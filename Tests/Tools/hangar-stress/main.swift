// hangar-stress: a child process for the durability tests (Tests/HangarSQLiteTests/Durability).
//
// It opens a real store file and writes in a loop until it is killed, writing one line to standard output
// for every operation *after* the store acknowledged it (the `write` or `export` call returned). The
// parent kills it with SIGKILL at random moments and checks that every acknowledged line is in the store.
//
//   hangar-stress save-loop DB RUN-ID SEED full|normal
//       Saves envelopes to collections "ledger" (history keepAll) and "recent" (history keepLast(2)):
//       single saves and 3-document transactions. Every document names its transaction and all of the
//       transaction's members. One line per acknowledged write:
//       ack TX COLLECTION/KEY@REVISION=HEX [COLLECTION/KEY@REVISION=HEX ...]
//   hangar-stress save-loop DB RUN-ID SEED full|normal WRITERS
//       The same with WRITERS threads writing at once (their writes share commits: group commit); each
//       names its transactions RUN-IDwN-SEQUENCE.
//   hangar-stress export-loop DB FILE RUN-ID SEED
//       Saves "exports/doc" with a payload of random size and exports it to FILE atomically; one line per
//       acknowledged export: exported REVISION BYTE-COUNT
//
//   hangar-stress feed-loop DB SEED COUNT
//       Runs COUNT transactions (0: until killed) of 1 to 3 saves or deletes in collection "feed", keys k0-k7;
//       about one in four throws after writing and is rolled back, silently. One line per committed one:
//       ack COLLECTION/KEY@REVISION:KIND [...]  (KIND save or delete); then `done` and exit status 0.
//   hangar-stress mirror-loop DB DIR SEED
//       feed-loop until killed, with collection "feed" mirrored to DIR.
//
//   hangar-stress follow DB CURSOR-FILE
//       Follows the store's feed after the sequence in CURSOR-FILE (0 when there is none yet): prints
//       `ready SEQUENCE`, then for each change `seen SEQUENCE COLLECTION/KEY@REVISION:KIND`, and only after the
//       line is out stores SEQUENCE in CURSOR-FILE (written beside it, then renamed), until killed: every change
//       is printed at least once, and once the cursor is stored never again.
//
//   hangar-stress live-writes DB KEY=HOURS [...]
//       Saves each document of the live queries' collection, one transaction each (LiveWrites.swift).
//
//   hangar-stress save-loop --url URL RUN-ID SEED COUNT
//   hangar-stress feed-loop --url URL SEED COUNT
//       The same loops against a PostgresStore shared with other processes (PostgresLoops.swift).
//
// Before the loop starts it prints `ready`. Any failure goes to standard error with exit status 1.
// Written against Hangar's public API only; not part of any product.

import Foundation
import Hangar
import HangarSQLite
import HangarTestSupport
import PropertyList

/// Writes a whole line to standard output with write(2): no buffer that a SIGKILL could lose or tear
/// beyond the line being written.
func emit(_ line: String) {
    let bytes = Array((line + "\n").utf8)
    var written = 0
    while written < bytes.count {
        let count = bytes[written...].withUnsafeBytes { write(STDOUT_FILENO, $0.baseAddress, $0.count) }
        if count < 0 {
            if errno == EINTR { continue }
            exit(3)
        }
        written += count
    }
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data(("hangar-stress: " + message + "\n").utf8))
    exit(1)
}

func hex(_ bytes: [UInt8]) -> String {
    let digits = Array("0123456789abcdef".utf8)
    var text: [UInt8] = []
    text.reserveCapacity(bytes.count * 2)
    for byte in bytes {
        text.append(digits[Int(byte >> 4)])
        text.append(digits[Int(byte & 0xF)])
    }
    return String(decoding: text, as: UTF8.self)
}

func randomBytes(_ count: Int, using generator: inout SeededGenerator) -> [UInt8] {
    var bytes: [UInt8] = []
    bytes.reserveCapacity(count + 8)
    while bytes.count < count {
        let word = generator.next()
        for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: word >> UInt64(shift))) }
    }
    return Array(bytes.prefix(count))
}

// MARK: save-loop

struct Target: Hashable {
    let collection: String
    let key: String
}

func saveLoop(
    path: String, runID: String, seed: UInt64, synchronous: SQLiteStoreConfiguration.Synchronous, writers: Int = 1
) {
    let store = openStore(path, synchronous: synchronous)
    guard writers > 1 else {
        emit("ready")
        saveLoop(store: store, runID: runID, seed: seed)
    }
    // Writers on threads of their own, at once: their writes queue for the writer and share commits. `ready`
    // first: it must be the first line, before any writer's.
    emit("ready")
    for writer in 0..<writers {
        let (name, seed) = ("\(runID)w\(writer)", seed &+ UInt64(writer))
        // Every other writer saves one document at a time with the single-write API, in a task: such writes are
        // run by whoever holds the writer's turn (the server's PUT path).
        if writer % 2 == 1 {
            Task { await singleSaveLoop(store: store, runID: name, seed: seed) }
        } else {
            Thread.detachNewThread { saveLoop(store: store, runID: name, seed: seed) }
        }
    }
    while true { sleep(60) }
}

/// ``saveLoop(store:runID:seed:)`` with one document a write, each a single write
/// (`store.save(envelope:key:in:expectedRevision:)`) expecting the revision it read; one that loses to another
/// writer (a conflict) reads again. Each acknowledged write names itself as its transaction's only member.
func singleSaveLoop(store: SQLiteStore, runID: String, seed: UInt64) async -> Never {
    let targets = (0..<12).map { Target(collection: "ledger", key: "k\($0)") }
    var generator = SeededGenerator(seed: seed)
    var sequence = 0
    while true {
        sequence += 1
        let transactionID = "\(runID)-\(sequence)"
        let target = targets[Int.random(in: 0..<targets.count, using: &generator)]
        let payload = randomBytes(Int.random(in: 0...200, using: &generator), using: &generator)
        do {
            while true {
                let read = try await store.read { try $0.document(in: target.collection, key: target.key)?.revision }
                let revision = (read ?? 0) + 1
                let envelope: PropertyList = .dictionary([
                    "majorVersion": 1, "minorVersion": 0, "tx": .string(transactionID), "key": .string(target.key),
                    "revision": .integer(.init(revision)),
                    "members": .array([.string("\(target.collection)/\(target.key)@\(revision)")]),
                    "payload": .data(payload),
                ])
                do {
                    let saved = try await store.save(
                        envelope: envelope, key: target.key, in: target.collection, expectedRevision: revision - 1)
                    guard saved == revision else { fail("save returned revision \(saved), expected \(revision)") }
                } catch let error as HangarError where error.code == .conflict {
                    continue
                }
                let body = hex(try envelope.encoded(as: .binary))
                emit("ack \(transactionID) \(target.collection)/\(target.key)@\(revision)=\(body)")
                break
            }
        } catch {
            fail("write \(transactionID) failed: \(error)")
        }
    }
}

func saveLoop(store: SQLiteStore, runID: String, seed: UInt64) -> Never {
    let targets =
        (0..<12).map { Target(collection: "ledger", key: "k\($0)") }
        + (0..<6).map { Target(collection: "recent", key: "r\($0)") }
    var generator = SeededGenerator(seed: seed)
    var sequence = 0
    while true {
        sequence += 1
        let transactionID = "\(runID)-\(sequence)"
        let count = Bool.random(using: &generator) ? 1 : 3
        var chosen: [Target] = []
        while chosen.count < count {
            let target = targets[Int.random(in: 0..<targets.count, using: &generator)]
            if !chosen.contains(target) { chosen.append(target) }
        }
        let payloads = chosen.map { _ in randomBytes(Int.random(in: 0...200, using: &generator), using: &generator) }
        do {
            let saved = try store.write { transaction -> [(Target, Int, [UInt8])] in
                // Revisions are known up front, so every member can name all the others exactly.
                let revisions = try chosen.map { target in
                    (try transaction.document(in: target.collection, key: target.key)?.revision ?? 0) + 1
                }
                let members: [PropertyList] = zip(chosen, revisions).map { target, revision in
                    .string("\(target.collection)/\(target.key)@\(revision)")
                }
                var saved: [(Target, Int, [UInt8])] = []
                for (index, target) in chosen.enumerated() {
                    let envelope: PropertyList = .dictionary([
                        "majorVersion": 1, "minorVersion": 0,
                        "tx": .string(transactionID),
                        "key": .string(target.key),
                        "revision": .integer(.init(revisions[index])),
                        "members": .array(members),
                        "payload": .data(payloads[index]),
                    ])
                    let revision = try transaction.save(
                        envelope: envelope, key: target.key, in: target.collection,
                        expectedRevision: revisions[index] - 1)
                    guard revision == revisions[index] else {
                        fail("save returned revision \(revision), expected \(revisions[index])")
                    }
                    saved.append((target, revision, try envelope.encoded(as: .binary)))
                }
                return saved
            }
            emit(
                "ack \(transactionID) "
                    + saved.map { "\($0.0.collection)/\($0.0.key)@\($0.1)=\(hex($0.2))" }.joined(separator: " "))
            // Now and then a checkpoint, so that kills also land while the WAL is copied into the database.
            if Int.random(in: 0..<40, using: &generator) == 0 { try store.checkpoint() }
        } catch {
            fail("write \(transactionID) failed: \(error)")
        }
    }
}

/// The stress store at `path`, or the process ends with the reason.
func openStore(_ path: String, synchronous: SQLiteStoreConfiguration.Synchronous) -> SQLiteStore {
    do {
        return try SQLiteStore(configuration: stressSQLiteConfiguration(path: path, synchronous: synchronous))
    } catch {
        fail("cannot open \(path): \(error)")
    }
}

// MARK: export-loop

func exportLoop(path: String, file: String, runID: String, seed: UInt64) async {
    let store = openStore(path, synchronous: .full)
    var generator = SeededGenerator(seed: seed)
    emit("ready")
    var sequence = 0
    while true {
        sequence += 1
        // Sizes from empty to 256 KiB: a torn file is always detectable, and a large one takes a while to write.
        let size = Int.random(in: 0...(1 << 18), using: &generator)
        let payload = randomBytes(size, using: &generator)
        let run = "\(runID)-\(sequence)"
        do {
            let revision = try await store.write { transaction in
                let current = try transaction.document(in: "exports", key: "doc")?.revision ?? 0
                let envelope: PropertyList = .dictionary([
                    "majorVersion": 1, "minorVersion": 0, "run": .string(run),
                    "revision": .integer(.init(current + 1)), "size": .integer(.init(size)),
                    "payload": .data(payload),
                ])
                return try transaction.save(envelope: envelope, key: "doc", in: "exports", expectedRevision: current)
            }
            let exported = try await store.export(key: "doc", in: "exports", to: file)
            guard exported == revision else { fail("exported revision \(exported), saved \(revision)") }
            emit("exported \(revision) \(size)")
        } catch {
            fail("export \(runID)-\(sequence) failed: \(error)")
        }
    }
}

// MARK: feed-loop

struct RolledBack: Error {}

func feedLoop(path: String, seed: UInt64, count: Int, mirror: String? = nil) {
    var configuration = stressSQLiteConfiguration(path: path, synchronous: .full)
    configuration.mirrors["feed"] = mirror
    configuration.mirrorFailureHandler = { fail("mirror failed: \($0)") }
    let store: SQLiteStore
    do {
        store = try SQLiteStore(configuration: configuration)
    } catch {
        fail("cannot open \(path): \(error)")
    }
    var generator = SeededGenerator(seed: seed)
    emit("ready")
    var done = 0
    while count == 0 || done < count {
        done += 1
        let operations = (0..<Int.random(in: 1...3, using: &generator)).map { _ in
            (key: "k\(Int.random(in: 0..<8, using: &generator))", delete: Int.random(in: 0..<5, using: &generator) == 0)
        }
        let rollBack = Int.random(in: 0..<4, using: &generator) == 0
        do {
            let written = try store.write { transaction in
                var written: [String] = []
                for operation in operations {
                    if operation.delete {
                        let revision = try transaction.document(in: "feed", key: operation.key)?.revision
                        if let revision, try transaction.delete(key: operation.key, in: "feed") {
                            written.append("feed/\(operation.key)@\(revision):delete")
                        }
                    } else {
                        let envelope: PropertyList = .dictionary([
                            "majorVersion": 1, "minorVersion": 0, "n": .integer(.init(done)),
                        ])
                        let revision = try transaction.save(envelope: envelope, key: operation.key, in: "feed")
                        written.append("feed/\(operation.key)@\(revision):save")
                    }
                }
                if rollBack { throw RolledBack() }
                return written
            }
            if !written.isEmpty { emit("ack " + written.joined(separator: " ")) }
        } catch is RolledBack {
            continue
        } catch {
            fail("feed transaction \(done) failed: \(error)")
        }
    }
    emit("done")
    exit(0)
}

// MARK: follow

func follow(path: String, cursorFile: String) async {
    let store = openStore(path, synchronous: .full)
    var cursor = 0
    if let text = try? String(contentsOfFile: cursorFile, encoding: .utf8) {
        guard let stored = Int(text) else { fail("bad cursor file: \(text)") }
        cursor = stored
    }
    emit("ready \(cursor)")
    do {
        for try await change in store.follow(after: cursor) {
            emit(
                "seen \(change.sequence) \(change.collection)/\(change.key)@\(change.revision):\(change.kind.rawValue)")
            try Data("\(change.sequence)".utf8).write(to: URL(fileURLWithPath: cursorFile), options: .atomic)
        }
    } catch {
        fail("following failed: \(error)")
    }
}

// MARK: main

let arguments = CommandLine.arguments
switch arguments.dropFirst().first {
case "save-loop" where arguments.count == 7 && arguments[2] == "--url":
    guard let seed = UInt64(arguments[5]), let count = Int(arguments[6]) else { fail("bad arguments \(arguments)") }
    await postgresSaveLoop(url: arguments[3], runID: arguments[4], seed: seed, count: count)
case "feed-loop" where arguments.count == 6 && arguments[2] == "--url":
    guard let seed = UInt64(arguments[4]), let count = Int(arguments[5]) else { fail("bad arguments \(arguments)") }
    await postgresFeedLoop(url: arguments[3], seed: seed, count: count)
case "save-loop" where arguments.count == 6:
    guard let seed = UInt64(arguments[4]),
        let synchronous = SQLiteStoreConfiguration.Synchronous(rawValue: arguments[5].uppercased())
    else { fail("bad arguments \(arguments)") }
    saveLoop(path: arguments[2], runID: arguments[3], seed: seed, synchronous: synchronous)
case "save-loop" where arguments.count == 7:
    guard let seed = UInt64(arguments[4]),
        let synchronous = SQLiteStoreConfiguration.Synchronous(rawValue: arguments[5].uppercased()),
        let writers = Int(arguments[6]), writers > 0
    else { fail("bad arguments \(arguments)") }
    saveLoop(path: arguments[2], runID: arguments[3], seed: seed, synchronous: synchronous, writers: writers)
case "export-loop" where arguments.count == 6:
    guard let seed = UInt64(arguments[5]) else { fail("bad seed \(arguments[5])") }
    await exportLoop(path: arguments[2], file: arguments[3], runID: arguments[4], seed: seed)
case "feed-loop" where arguments.count == 5:
    guard let seed = UInt64(arguments[3]), let count = Int(arguments[4]) else { fail("bad arguments \(arguments)") }
    feedLoop(path: arguments[2], seed: seed, count: count)
case "mirror-loop" where arguments.count == 5:
    guard let seed = UInt64(arguments[4]) else { fail("bad seed \(arguments[4])") }
    feedLoop(path: arguments[2], seed: seed, count: 0, mirror: arguments[3])
case "live-writes" where arguments.count >= 4:
    liveWrites(path: arguments[2], saves: Array(arguments.dropFirst(3)))
case "follow" where arguments.count == 4:
    await follow(path: arguments[2], cursorFile: arguments[3])
default:
    fail(
        "usage: hangar-stress save-loop DB RUN-ID SEED full|normal [WRITERS] | export-loop DB FILE RUN-ID SEED"
            + " | feed-loop DB SEED COUNT | mirror-loop DB DIR SEED | follow DB CURSOR-FILE | live-writes DB KEY=HOURS..."
            + " | save-loop --url URL RUN-ID SEED COUNT | feed-loop --url URL SEED COUNT")
}
