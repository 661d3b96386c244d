import ArgumentParser
import Foundation
import Hangar
import HangarSQLite
import PropertyList

/// `hangar db ls (--db PATH | --url URL) [COLLECTION]`
struct DBList: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ls",
        abstract:
            "List the collections, or the keys of one collection, one per line (an odd key quoted, with escapes).")

    @OptionGroup var store: StoreOption
    @Argument(help: "The collection whose keys to list.") var collection: String?

    func run() async throws {
        try await withStore(store, readOnly: true) { opened in try await list(opened.store) }
    }

    private func list<S: DocumentStore>(_ store: S) async throws {
        let lines = try await store.read { transaction in
            guard let collection else { return try await transaction.collections() }
            let keys = try await transaction.keys(in: collection)
            guard !keys.isEmpty else {
                throw self.store.notFound("No collection \(collection)")
            }
            return keys.map(PrintedKey.text)
        }
        for line in lines { print(line) }
    }
}

/// `hangar db get (--db PATH | --url URL) COLLECTION KEY [-o FILE] [--format binary1|xml1] [--revision N]`
struct DBGet: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "get",
        abstract: "Print a document as `hangar print` does, or write it to a file with -o (binary by default).")

    @OptionGroup var store: StoreOption
    @OptionGroup var document: DocumentArguments
    @Option(name: .shortAndLong, help: "Write the document to this file (`-` for standard output).") var output: String?
    @Option(help: "The file format with -o: binary1 or xml1.") var format: StoreFileFormat = .binary1
    @Option(help: "Read this earlier revision instead of the current one.") var revision: Int?

    func run() async throws {
        try await withStore(store, readOnly: true) { opened in try await get(opened.store) }
    }

    private func get<S: DocumentStore>(_ store: S) async throws {
        let (collection, key, revision) = (document.collection, document.key, revision)
        let stored = try await store.read { transaction in
            if let revision { return try await transaction.document(in: collection, key: key, revision: revision) }
            return try await transaction.document(in: collection, key: key)
        }
        guard let stored else {
            throw self.store.notFound(
                revision.map { "No revision \($0) of \(collection)/\(key)" } ?? "No document \(collection)/\(key)")
        }
        let envelope = try stored.envelope()
        guard let output else {
            print(TreePrinter.render(envelope), terminator: "")
            return
        }
        let bytes = format == .binary1 ? try stored.plaintextBody() : try envelope.encoded(as: .xml)
        if output == "-" {
            try AtomicFile.writeToStandardOutput(bytes)
        } else {
            do throws(AtomicFile.Failure) {
                try AtomicFile.save(bytes, to: output)
            } catch {
                throw FileFailure(error)
            }
        }
    }
}

/// `hangar db put (--db PATH | --url URL) COLLECTION KEY FILE`
struct DBPut: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "put",
        abstract: "Store a property-list file (any readable format; it must be a document envelope) under a key.",
        discussion: "Prints the new revision number. A store file (--db) is created if it does not exist.")

    @OptionGroup var store: StoreOption
    @OptionGroup var document: DocumentArguments
    @Argument(help: "The file to store (`-` reads standard input).") var file: String
    @Option(help: "Save only if the stored revision is this one (0: only if there is none).") var expectedRevision: Int?
    @Flag(help: "Replace a stored document even if its major version is newer than the file's.") var force = false

    func run() async throws {
        let envelope = try readEnvelope()
        try await withStore(store, creating: true) { opened in try await put(envelope, in: opened.store) }
    }

    /// The file's envelope, checked; without the key a file `db export` wrote may carry, as `put` stores it
    /// under the key given instead.
    private func readEnvelope() throws(FileFailure) -> PropertyList {
        var (envelope, _) = try loadPropertyList(at: file)
        if case .dictionary(var content) = envelope, content[StoreFileNames.keyMetadataKey] != nil {
            content[StoreFileNames.keyMetadataKey] = nil
            envelope = .dictionary(content)
        }
        do {
            _ = try DocumentFormat.envelopeVersion(of: envelope)
        } catch {
            throw FileFailure(path: file, reason: "Not a document envelope: \(error)")
        }
        return envelope
    }

    private func put<S: DocumentStore>(_ envelope: PropertyList, in store: S) async throws {
        let (collection, key, expectedRevision, force) = (document.collection, document.key, expectedRevision, force)
        // A single save: the engine's cheapest way (one statement on PostgreSQL), unless it must overwrite a newer
        // major, which only a transaction's save does.
        let revision =
            force
            ? try await store.write { transaction in
                try await transaction.save(
                    envelope: envelope, key: key, in: collection, expectedRevision: expectedRevision,
                    overwritingNewerMajor: true)
            }
            : try await store.save(envelope: envelope, key: key, in: collection, expectedRevision: expectedRevision)
        print(revision)
    }
}

/// `hangar db rm (--db PATH | --url URL) COLLECTION KEY`
struct DBRemove: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rm", abstract: "Delete a document (its revisions stay in the history).")

    @OptionGroup var store: StoreOption
    @OptionGroup var document: DocumentArguments

    func run() async throws {
        try await withStore(store) { opened in try await remove(opened.store) }
    }

    private func remove<S: DocumentStore>(_ store: S) async throws {
        let (collection, key) = (document.collection, document.key)
        let existed = try await store.delete(key: key, in: collection, expectedRevision: nil)
        guard existed else { throw self.store.notFound("No document \(collection)/\(key)") }
    }
}

/// `hangar db history (--db PATH | --url URL) COLLECTION KEY`
struct DBHistory: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "List the kept revisions of a document, one per line: revision, version, saved at (UTC), current.")

    @OptionGroup var store: StoreOption
    @OptionGroup var document: DocumentArguments

    func run() async throws {
        try await withStore(store, readOnly: true) { opened in try await history(opened.store) }
    }

    private func history<S: DocumentStore>(_ store: S) async throws {
        let (collection, key) = (document.collection, document.key)
        let revisions = try await store.read { try await $0.history(in: collection, key: key) }
        guard !revisions.isEmpty else {
            throw self.store.notFound("No document \(collection)/\(key)")
        }
        let formatter = ISO8601DateFormatter()
        for revision in revisions {
            var line = "\(revision.revision) \(revision.version) \(formatter.string(from: revision.savedAt))"
            if revision.isCurrent { line += " current" }
            print(line)
        }
    }
}
