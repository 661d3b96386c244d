import ArgumentParser
import Foundation
import Hangar
import HangarSQLite

/// `hangar db export (--db PATH | --url URL) COLLECTION DIR [--format binary1|xml1]`
struct DBExport: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write every document of a collection into a folder, one .plist file per key; prints the paths.")

    @OptionGroup var store: StoreOption
    @Argument(help: "The collection.") var collection: String
    @Argument(help: "The folder (created if needed).") var directory: String
    @Option(help: "The file format: binary1 or xml1.") var format: StoreFileFormat = .binary1
    @Flag(help: "Keep the bodies sealed with the store's key (importing them needs that key); plaintext otherwise.")
    var encrypted = false

    func run() async throws {
        try await withStore(store, readOnly: true) { opened in try await export(opened.store) }
    }

    private func export<S: DocumentStore>(_ store: S) async throws {
        let collection = collection
        guard try await store.read({ try await $0.count(in: collection) }) > 0 else {
            throw self.store.notFound("No collection \(collection)")
        }
        let paths = try await store.exportCollection(
            collection, to: directory, format: format.format, sealed: encrypted)
        for path in paths {
            print(path)
        }
    }
}

/// `hangar db import (--db PATH | --url URL) COLLECTION FILE...`
struct DBImport: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Store .plist files in a collection, all or none, each under the key it carries or its file name.",
        discussion: "Every file is checked (a property list, a document envelope) before any is written, and "
            + "all are saved in one transaction: one bad file imports nothing, and the error names it. A file "
            + "`db export` wrote goes under the key it carries; another under its file name without .plist. "
            + "Prints `KEY REVISION` per file; with more than 1000 files, progress goes to standard error. "
            + "A store file (--db) is created if it does not exist.")

    @OptionGroup var store: StoreOption
    @Argument(help: "The collection.") var collection: String
    @Argument(help: "The files to import.") var files: [String]

    func validate() throws {
        guard !files.isEmpty else { throw ValidationError("Name at least one file.") }
    }

    func run() async throws {
        try await withStore(store, creating: true) { opened in try await importFiles(into: opened.store) }
    }

    private func importFiles<S: DocumentStore>(into store: S) async throws {
        let total = files.count
        let results: [(key: String, revision: Int)]
        do {
            results = try await store.importFiles(files, into: collection) { progress in
                guard total > 1000, progress.done % 1000 == 0 || progress.done == progress.total else { return }
                let phase = progress.phase == .reading ? "read" : "saved"
                FileHandle.standardError.write(Data("\(phase) \(progress.done)/\(progress.total)\n".utf8))
            }
        } catch let error as HangarError {
            // A file that cannot be imported: the line names it.
            guard let file = error.file else { throw error }
            throw FileFailure(path: file, reason: error.description)
        }
        for result in results { print("\(result.key) \(result.revision)") }
    }
}
