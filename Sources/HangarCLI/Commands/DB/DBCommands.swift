import ArgumentParser
import Foundation
import Hangar
import PropertyList

/// `hangar db ls --db PATH [COLLECTION]`
struct DBList: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ls", abstract: "List the collections, or the keys of one collection, one per line.")

    @OptionGroup var store: StoreOption
    @Argument(help: "The collection whose keys to list.") var collection: String?

    func run() throws {
        try withStore(store) { store in
            let lines = try store.read { transaction in
                guard let collection else { return try transaction.collections() }
                let keys = try transaction.keys(in: collection)
                guard !keys.isEmpty else {
                    throw self.store.notFound("No collection \(collection)")
                }
                return keys
            }
            for line in lines { print(line) }
        }
    }
}

/// `hangar db get --db PATH COLLECTION KEY [-o FILE] [--format binary1|xml1] [--revision N]`
struct DBGet: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "get",
        abstract: "Print a document as `hangar print` does, or write it to a file with -o (binary by default).")

    @OptionGroup var store: StoreOption
    @OptionGroup var document: DocumentArguments
    @Option(name: .shortAndLong, help: "Write the document to this file (`-` for standard output).") var output: String?
    @Option(help: "The file format with -o: binary1 or xml1.") var format: StoreFileFormat = .binary1
    @Option(help: "Read this earlier revision instead of the current one.") var revision: Int?

    func run() throws {
        let (collection, key) = (document.collection, document.key)
        try withStore(store) { store in
            let stored = try store.read { transaction in
                if let revision { return try transaction.document(in: collection, key: key, revision: revision) }
                return try transaction.document(in: collection, key: key)
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
            let bytes = format == .binary1 ? stored.body : try envelope.encoded(as: .xml)
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
}

/// `hangar db put --db PATH COLLECTION KEY FILE`
struct DBPut: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "put",
        abstract: "Store a property-list file (any readable format; it must be a document envelope) under a key.",
        discussion: "Prints the new revision number. The store is created if it does not exist.")

    @OptionGroup var store: StoreOption
    @OptionGroup var document: DocumentArguments
    @Argument(help: "The file to store (`-` reads standard input).") var file: String
    @Option(help: "Save only if the stored revision is this one (0: only if there is none).") var expectedRevision: Int?
    @Flag(help: "Replace a stored document even if its major version is newer than the file's.") var force = false

    func run() throws {
        let (collection, key) = (document.collection, document.key)
        try reportingFailures {
            var (envelope, _) = try loadPropertyList(at: file)
            // A file `db export` wrote may carry its key; `put` stores it under the key given instead.
            if case .dictionary(var content) = envelope, content[StoreFileNames.keyMetadataKey] != nil {
                content[StoreFileNames.keyMetadataKey] = nil
                envelope = .dictionary(content)
            }
            do {
                _ = try DocumentFormat.envelopeVersion(of: envelope)
            } catch {
                throw FileFailure(path: file, reason: "Not a document envelope: \(error)")
            }
            try withStore(store, creating: true) { store in
                let revision = try store.write { transaction in
                    try transaction.save(
                        envelope: envelope, key: key, in: collection, expectedRevision: expectedRevision,
                        overwritingNewerMajor: force)
                }
                print(revision)
            }
        }
    }
}

/// `hangar db rm --db PATH COLLECTION KEY`
struct DBRemove: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rm", abstract: "Delete a document (its revisions stay in the history).")

    @OptionGroup var store: StoreOption
    @OptionGroup var document: DocumentArguments

    func run() throws {
        let (collection, key) = (document.collection, document.key)
        try withStore(store) { store in
            let existed = try store.write { try $0.delete(key: key, in: collection) }
            guard existed else { throw self.store.notFound("No document \(collection)/\(key)") }
        }
    }
}

/// `hangar db history --db PATH COLLECTION KEY`
struct DBHistory: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "List the kept revisions of a document, one per line: revision, version, saved at (UTC), current.")

    @OptionGroup var store: StoreOption
    @OptionGroup var document: DocumentArguments

    func run() throws {
        let (collection, key) = (document.collection, document.key)
        try withStore(store) { store in
            let revisions = try store.read { try $0.history(in: collection, key: key) }
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
}

/// `hangar db export --db PATH COLLECTION DIR [--format binary1|xml1]`
struct DBExport: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write every document of a collection into a folder, one .plist file per key; prints the paths.")

    @OptionGroup var store: StoreOption
    @Argument(help: "The collection.") var collection: String
    @Argument(help: "The folder (created if needed).") var directory: String
    @Option(help: "The file format: binary1 or xml1.") var format: StoreFileFormat = .binary1

    func run() throws {
        try withStore(store) { store in
            guard try store.read({ try $0.count(in: collection) }) > 0 else {
                throw self.store.notFound("No collection \(collection)")
            }
            for path in try store.exportCollection(collection, to: directory, format: format.format) { print(path) }
        }
    }
}

/// `hangar db import --db PATH COLLECTION FILE...`
struct DBImport: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Store .plist files in a collection, all or none, each under the key it carries or its file name.",
        discussion: "Every file is checked (a property list, a document envelope) before any is written, and "
            + "all are saved in one transaction: one bad file imports nothing, and the error names it. A file "
            + "`db export` wrote goes under the key it carries; another under its file name without .plist. "
            + "Prints `KEY REVISION` per file; with more than 1000 files, progress goes to standard error. "
            + "The store is created if it does not exist.")

    @OptionGroup var store: StoreOption
    @Argument(help: "The collection.") var collection: String
    @Argument(help: "The files to import.") var files: [String]

    func validate() throws {
        guard !files.isEmpty else { throw ValidationError("Name at least one file.") }
    }

    func run() throws {
        let total = files.count
        try withStore(store, creating: true) { store in
            let results: [(key: String, revision: Int)]
            do throws(HangarError) {
                results = try store.importFiles(files, into: collection) { progress in
                    guard total > 1000, progress.done % 1000 == 0 || progress.done == progress.total else { return }
                    let phase = progress.phase == .reading ? "read" : "saved"
                    FileHandle.standardError.write(Data("\(phase) \(progress.done)/\(progress.total)\n".utf8))
                }
            } catch {
                guard let file = error.file else { throw error }
                throw FileFailure(path: file, reason: error.description)
            }
            for result in results { print("\(result.key) \(result.revision)") }
        }
    }
}

/// `hangar db check --db PATH`
struct DBCheck: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check the store's integrity and its mirror files: prints `ok`, or the problems and exits 1.",
        discussion: "A mirror file a committed save could not write, or that its mirror has not caught up with "
            + "yet, is listed as `mirror not updated: FILE (COLLECTION/KEY): REASON`; the store writes it on its "
            + "next mirror pass.")

    @OptionGroup var store: StoreOption

    func run() throws {
        try withStore(store) { store in
            var lines = try store.checkIntegrity()
            let mirrors = try store.mirrorFailures()
            if !mirrors.isEmpty && lines == ["ok"] { lines = [] }
            for mirror in mirrors {
                lines.append(
                    "mirror not updated: \(mirror.path) (\(mirror.collection)/\(mirror.key)): \(mirror.reason)")
            }
            for line in lines { print(line) }
            guard lines == ["ok"] else { throw ExitCode(1) }
        }
    }
}

/// `hangar db backup --db PATH DEST`
struct DBBackup: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup", abstract: "Copy the store, consistently, to a new file (safe while it is in use).")

    @OptionGroup var store: StoreOption
    @Argument(help: "The file to write.") var destination: String

    func run() throws {
        try withStore(store) { store in try store.backup(to: destination) }
    }
}
