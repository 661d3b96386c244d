public import Foundation

/// A mirror file to write (or remove, when `bytes` is nil) once its transaction has committed.
struct PendingMirror: Sendable {
    let collection: String
    let key: String
    let directory: String
    let bytes: [UInt8]?
    /// For a retry of an earlier failure: when it failed (identifies its row in `mirror_failures`).
    var failedAt: Double?

    var path: String { directory + "/" + StoreFileNames.fileName(for: key) }
}

/// A mirror file that could not be written after its save committed. The store retries it on every later
/// mirror pass (any write that mirrors a document) and on ``Store/retryMirrors()``.
public struct MirrorFailure: Sendable, Hashable {
    /// The document's collection.
    public let collection: String
    /// The document's key.
    public let key: String
    /// The mirror file that is out of date.
    public let path: String
    /// Why it could not be written, the last time it was tried.
    public let reason: String
    /// When it last failed.
    public let failedAt: Date
}

extension ReadTransaction {
    /// The mirror files earlier passes failed to write, with the documents' current bytes (nil: deleted).
    func queuedMirrorFailures() throws(HangarError) -> [PendingMirror] {
        let rows = try query(StoreSQL.mirrorFailuresToRetry, []) {
            ($0.text(at: 0), $0.text(at: 1), $0.text(at: 2), $0.double(at: 3))
        }
        var mirrors: [PendingMirror] = []
        for (collection, key, directory, failedAt) in rows {
            let body = try document(in: collection, key: key)?.body
            mirrors.append(
                PendingMirror(collection: collection, key: key, directory: directory, bytes: body, failedAt: failedAt))
        }
        return mirrors
    }
}

extension Store {
    /// Writes mirror files after a commit. Never throws: the data is committed. A file that cannot be
    /// written is recorded (``mirrorFailures()``), reported (``StoreConfiguration/mirrorFailureHandler`` or a
    /// line on standard error) and retried by later mirror passes; one written clears its earlier failure.
    func writeMirrors(_ mirrors: [PendingMirror]) {
        guard !mirrors.isEmpty else { return }
        var failed: [(PendingMirror, HangarError)] = []
        var cleared: [PendingMirror] = []
        for mirror in mirrors {
            do {
                if let bytes = mirror.bytes {
                    try FileManager.default.createDirectory(atPath: mirror.directory, withIntermediateDirectories: true)
                    try AtomicFile.save(bytes, to: mirror.path)
                } else if FileManager.default.fileExists(atPath: mirror.path) {
                    try FileManager.default.removeItem(atPath: mirror.path)
                }
                if mirror.failedAt != nil { cleared.append(mirror) }
            } catch {
                var failure = HangarError(
                    .io, "Saved, but the mirror file could not be updated (it will be retried)",
                    collection: mirror.collection, key: mirror.key, underlying: error)
                failure.file = mirror.path
                failed.append((mirror, failure))
            }
        }
        // A key that failed and then succeeded in this pass is cleared; one that failed stays recorded.
        let failedKeys = Set(failed.map { "\($0.0.collection)\u{0}\($0.0.key)" })
        cleared.removeAll { failedKeys.contains("\($0.collection)\u{0}\($0.key)") }
        guard !failed.isEmpty || !cleared.isEmpty else { return }
        do {
            try recordMirrorOutcome(failed: failed, cleared: cleared)
        } catch {
            reportMirrorFailure(error)
        }
        for (_, failure) in failed { reportMirrorFailure(failure) }
    }

    private func recordMirrorOutcome(failed: [(PendingMirror, HangarError)], cleared: [PendingMirror])
        throws(HangarError)
    {
        let now = Date().timeIntervalSince1970
        try writeRethrowingHangarErrors { (transaction) throws(HangarError) in
            for mirror in cleared {
                try transaction.execute(
                    StoreSQL.clearMirrorFailure,
                    [.text(mirror.collection), .text(mirror.key), .real(mirror.failedAt ?? 0)])
            }
            for (mirror, failure) in failed {
                try transaction.execute(
                    StoreSQL.recordMirrorFailure,
                    [
                        .text(mirror.collection), .text(mirror.key), .text(mirror.directory),
                        .text(failure.underlying.map { "\($0)" } ?? failure.message), .real(now),
                    ])
            }
        }
    }

    private func reportMirrorFailure(_ error: HangarError) {
        if let handler = configuration.mirrorFailureHandler {
            handler(error)
        } else {
            let line = "hangar: \(error.file.map { "\($0): " } ?? "")\(error) (store \(path))\n"
            FileHandle.standardError.write(Data(line.utf8))
        }
    }

    /// The mirror files that could not be written after their saves committed, and are not written yet.
    public func mirrorFailures() throws(HangarError) -> [MirrorFailure] {
        do {
            return try read { transaction in
                try transaction.query(
                    StoreSQL.mirrorFailures, []
                ) { statement in
                    let key = statement.text(at: 1)
                    return MirrorFailure(
                        collection: statement.text(at: 0), key: key,
                        path: statement.text(at: 2) + "/" + StoreFileNames.fileName(for: key),
                        reason: statement.text(at: 3), failedAt: Date(timeIntervalSince1970: statement.double(at: 4)))
                }
            }
        } catch {
            throw Self.storeError(error)
        }
    }

    /// Tries again to write every mirror file that failed; returns those that still cannot be written.
    @discardableResult
    public func retryMirrors() throws(HangarError) -> [MirrorFailure] {
        let queued: [PendingMirror]
        do {
            queued = try read { try $0.queuedMirrorFailures() }
        } catch {
            throw Self.storeError(error)
        }
        writeMirrors(queued)
        return try mirrorFailures()
    }
}
