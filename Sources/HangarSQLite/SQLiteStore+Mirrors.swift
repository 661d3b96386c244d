public import Foundation
import Hangar
import Logging

/// A collection's mirror folder: a follower of the change feed with a cursor kept in the store
/// (`mirror_cursors`), caught up after every commit that changes the collection, on
/// ``SQLiteStore/retryMirrors()`` and when the store opens.
struct PendingMirror: Sendable, Hashable {
    let collection: String
    let directory: String

    func path(for key: String) -> String { directory + "/" + StoreFileNames.fileName(for: key) }

    /// By bytes: canonically equivalent collection names are two collections.
    static func == (lhs: PendingMirror, rhs: PendingMirror) -> Bool {
        lhs.collection.hasSameBytes(as: rhs.collection) && lhs.directory.hasSameBytes(as: rhs.directory)
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(ExactString(collection))
        hasher.combine(ExactString(directory))
    }
}

/// A mirror file that is out of date: a mirror pass could not write it after its save committed, or no pass
/// has run since (the process that committed ended first, or does not mirror the collection). The store
/// retries it on every later mirror pass of the collection and on ``SQLiteStore/retryMirrors()``.
public struct MirrorFailure: Sendable, Hashable {
    /// The document's collection.
    public let collection: String
    /// The document's key; empty when the whole collection is owed (the changes the mirror had yet to write
    /// were pruned from the feed: its next pass writes every document again).
    public let key: String
    /// The mirror file that is out of date (the mirror folder when ``key`` is empty).
    public let path: String
    /// Why it could not be written, the last time it was tried, or that it is not mirrored yet.
    public let reason: String
    /// When it last failed (when it changed, for a file not mirrored yet).
    public let failedAt: Date
}

/// What one mirror pass did: the files it could not write (reported once the pass has committed).
struct MirrorOutcome: Sendable {
    var failures: [HangarError] = []
}

extension SQLiteWriteTransaction {
    /// Brings `mirror` up to the last change: writes (or removes) the file of every key changed after its
    /// cursor or owed by an earlier pass, from the documents as they are now, records the files it could not
    /// write, and moves the cursor to the last sequence. Run in its own write transaction, so that passes
    /// (of this process and others) never interleave their files; a pass that stops half-way leaves the
    /// cursor where it was, and the next one writes those files again.
    ///
    /// With no cursor yet, or when the changes after it were pruned, it writes every document of the
    /// collection and removes the files of documents that are gone; the cursor moves only once all of that
    /// succeeded.
    func catchUpMirror(_ mirror: PendingMirror) throws(HangarError) -> MirrorOutcome {
        checkValid()
        let arguments: [SQLiteValue] = [.text(mirror.collection), .text(mirror.directory)]
        let cursor = try query(SQLiteSQL.mirrorCursor, arguments) { Int($0.int64(at: 0)) }.first
        let last = try lastChangeSequence()
        let owed = try query(SQLiteSQL.mirrorFailuresToRetry, arguments) { $0.text(at: 0) }
        var keys: [String] = []
        var resync = cursor == nil
        if let cursor, cursor < last {
            do {
                keys = try changes(since: cursor, in: mirror.collection).map(\.key)
            } catch let error where error.code == .changesTooOld {
                resync = true
            }
        }
        if resync { keys = try self.keys(in: mirror.collection) }
        var outcome = MirrorOutcome()
        // By bytes: two keys equal but for Unicode normalization are two documents, two files.
        var seen = Set<ExactString>()
        for key in keys + owed where seen.insert(ExactString(key)).inserted {
            if let failure = try writeMirrorFile(of: key, mirror) {
                try recordMirrorFailure(failure, mirror)
                outcome.failures.append(failure)
            } else {
                try execute(
                    SQLiteSQL.clearMirrorFailure, [.text(mirror.collection), .text(key), .text(mirror.directory)])
            }
        }
        if resync,
            let failure = removeMirrorFiles(
                of: mirror, keeping: Set(keys.map { ExactString(StoreFileNames.fileName(for: $0)) }))
        {
            outcome.failures.append(failure)
        }
        guard !resync || outcome.failures.isEmpty, cursor != last else { return outcome }
        try execute(SQLiteSQL.setMirrorCursor, arguments + [.integer(Int64(last))])
        return outcome
    }

    /// Writes the current body of `key` to its mirror file, or removes the file when the document is gone;
    /// returns why the file could not be written, if it could not. Throws only when the store cannot be read.
    private func writeMirrorFile(of key: String, _ mirror: PendingMirror) throws(HangarError) -> HangarError? {
        let path = mirror.path(for: key)
        let stored = try document(in: mirror.collection, key: key)
        do {
            // Mirror files hold the plaintext envelope, as exports do.
            if let body = try stored?.plaintextBody() {
                let configuration = store.configuration
                try AtomicFile.createDirectory(mirror.directory, permissions: configuration.folderPermissions)
                try AtomicFile.save(body, to: path, permissions: configuration.filePermissions)
            } else if FileManager.default.fileExists(atPath: path) {
                try FileManager.default.removeItem(atPath: path)
            } else if FileManager.default.fileExists(atPath: mirror.directory), !Self.isFolder(mirror.directory) {
                // Something else is in the folder's place: whether the file is gone cannot be known until the
                // folder is back.
                throw CocoaError(.fileWriteUnknown)
            }
            return nil
        } catch {
            // A full or read-only disk says so (``HangarError/Code/diskFull``, ``HangarError/Code/readOnly``).
            let code = (error as? AtomicFile.Failure)?.code ?? .io
            var failure = HangarError(
                code, "Saved, but the mirror file could not be updated (it will be retried)",
                collection: mirror.collection, key: key, underlying: error)
            failure.file = path
            return failure
        }
    }

    /// Removes the mirror files (`*.plist`) whose names are not in `names`; returns why it could not. A
    /// folder that does not exist (or is not a folder) holds none.
    private func removeMirrorFiles(of mirror: PendingMirror, keeping names: Set<ExactString>) -> HangarError? {
        guard Self.isFolder(mirror.directory) else { return nil }
        do {
            for name in try FileManager.default.contentsOfDirectory(atPath: mirror.directory)
            where name.hasSuffix(".plist") && !name.hasPrefix(".") && !names.contains(ExactString(name)) {
                try FileManager.default.removeItem(atPath: mirror.directory + "/" + name)
            }
            return nil
        } catch {
            var failure = HangarError(
                .io, "The mirror folder could not be cleared of deleted documents (it will be retried)",
                collection: mirror.collection, underlying: error)
            failure.file = mirror.directory
            return failure
        }
    }

    private static func isFolder(_ path: String) -> Bool {
        var isFolder: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) && isFolder.boolValue
    }

    private func recordMirrorFailure(_ failure: HangarError, _ mirror: PendingMirror) throws(HangarError) {
        try execute(
            SQLiteSQL.recordMirrorFailure,
            [
                .text(mirror.collection), .text(failure.key ?? ""), .text(mirror.directory),
                .text(failure.underlying.map { "\($0)" } ?? failure.message), .real(Date().timeIntervalSince1970),
            ])
    }
}

extension SQLiteStore {
    /// The mirrors this store's configuration declares that are behind the feed or owe files (read without
    /// taking the writer's lock, so that opening a store whose mirrors are level writes nothing).
    var mirrorsBehind: [PendingMirror] {
        let declared = sqliteConfiguration.mirrors.sorted { $0.key < $1.key }.map { collection, directory in
            PendingMirror(collection: collection.string, directory: directory)
        }
        guard !declared.isEmpty else { return [] }
        // When the state cannot be read, every pass runs, and reports what stops it.
        return (try? read { transaction in try declared.filter { try !transaction.isLevel($0) } }) ?? declared
    }

    /// Catches `mirrors` up after a commit. Never throws: the data is committed. A file that cannot be
    /// written is recorded (``mirrorFailures()``), logged as a warning, reported
    /// (``SQLiteStoreConfiguration/mirrorFailureHandler``, or a line on standard error when neither a handler nor a
    /// logger is set) and retried by later passes.
    func writeMirrors(_ mirrors: [PendingMirror]) {
        for mirror in mirrors {
            do {
                let outcome = try writeRethrowingHangarErrors { (transaction) throws(HangarError) in
                    try transaction.catchUpMirror(mirror)
                }
                outcome.failures.forEach(reportMirrorFailure)
            } catch {
                reportMirrorFailure(error)
            }
        }
    }

    /// ``writeMirrors(_:)`` for async writes: waits for the writer's turn without holding a thread.
    func writeMirrors(_ mirrors: [PendingMirror]) async {
        for mirror in mirrors {
            do {
                let outcome = try await write { try $0.catchUpMirror(mirror) }
                outcome.failures.forEach(reportMirrorFailure)
            } catch is CancellationError {
                // The next pass catches up from the cursor, which has not moved.
            } catch {
                reportMirrorFailure(Self.storeError(error))
            }
        }
    }

    private func reportMirrorFailure(_ error: HangarError) {
        instruments.count("hangar_mirror_failures_total", collection: error.collection ?? "")
        var metadata: Logger.Metadata = ["code": .string(error.code.description), "path": .string(path)]
        if let collection = error.collection { metadata["collection"] = .string(collection) }
        if let key = error.key { metadata["key"] = .string(key) }
        if let file = error.file { metadata["file"] = .string(file) }
        instruments.logger.warning("Mirror file not written", metadata: metadata)
        if let handler = sqliteConfiguration.mirrorFailureHandler {
            handler(error)
        } else if configuration.observability.isLoggerSilent {
            let line = "hangar: \(error.file.map { "\($0): " } ?? "")\(error) (store \(path))\n"
            FileHandle.standardError.write(Data(line.utf8))
        }
    }

    /// The mirror files that are out of date: those a pass could not write, and those changed after a
    /// mirror's cursor (not mirrored yet). Every mirror that ever ran on the store counts, whether or not this
    /// store's configuration declares it (`hangar db check` opens stores without one).
    public func mirrorFailures() throws(HangarError) -> [MirrorFailure] {
        do {
            return try read { transaction in
                var failures = try transaction.query(SQLiteSQL.mirrorFailures, []) { statement in
                    let key = statement.text(at: 1)
                    return MirrorFailure(
                        collection: statement.text(at: 0), key: key,
                        path: PendingMirror(collection: statement.text(at: 0), directory: statement.text(at: 2))
                            .path(for: key),
                        reason: statement.text(at: 3), failedAt: Date(timeIntervalSince1970: statement.double(at: 4)))
                }
                failures += try transaction.mirrorLag(
                    excluding: Set(failures.map { ExactString("\($0.collection)\u{0}\($0.key)") }))
                return failures
            }
        } catch {
            throw Self.storeError(error)
        }
    }

    /// Catches every mirror this store declares up with the feed (as after a commit); returns the mirror
    /// files that are still out of date.
    @discardableResult
    public func retryMirrors() throws(HangarError) -> [MirrorFailure] {
        writeMirrors(mirrorsBehind)
        return try mirrorFailures()
    }
}

extension SQLiteReadTransaction {
    /// Whether `mirror` has a cursor at the last change and owes no file.
    func isLevel(_ mirror: PendingMirror) throws(HangarError) -> Bool {
        let arguments: [SQLiteValue] = [.text(mirror.collection), .text(mirror.directory)]
        let cursor = try query(SQLiteSQL.mirrorCursor, arguments) { Int($0.int64(at: 0)) }.first
        guard cursor == (try lastChangeSequence()) else { return false }
        return try query(SQLiteSQL.mirrorFailuresToRetry, arguments) { $0.text(at: 0) }.isEmpty
    }

    /// The files of the keys changed after each mirror's cursor (a key at most once), but those in `owed`
    /// (`collection NUL key`); a mirror whose changes were pruned owes its whole collection.
    func mirrorLag(excluding owed: Set<ExactString>) throws(HangarError) -> [MirrorFailure] {
        let cursors = try query(SQLiteSQL.mirrorCursors, []) {
            (PendingMirror(collection: $0.text(at: 0), directory: $0.text(at: 1)), Int($0.int64(at: 2)))
        }
        let last = try lastChangeSequence()
        var lagging: [MirrorFailure] = []
        for (mirror, cursor) in cursors where cursor < last {
            let reason = "not mirrored yet: the mirror is at sequence \(cursor), the feed at \(last)"
            let changes: [Change]
            do {
                changes = try self.changes(since: cursor, in: mirror.collection)
            } catch let error where error.code == .changesTooOld {
                lagging.append(
                    MirrorFailure(
                        collection: mirror.collection, key: "", path: mirror.directory,
                        reason: reason + " (its changes were pruned: the whole collection is written again)",
                        failedAt: Date()))
                continue
            }
            var seen = owed
            for change in changes.reversed()
            where seen.insert(ExactString("\(change.collection)\u{0}\(change.key)")).inserted {
                lagging.append(
                    MirrorFailure(
                        collection: change.collection, key: change.key, path: mirror.path(for: change.key),
                        reason: reason, failedAt: change.committedAt))
            }
        }
        return lagging.sorted { ($0.collection, $0.key) < ($1.collection, $1.key) }
    }
}
