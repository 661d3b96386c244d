import ArgumentParser
import Foundation
import Hangar
import HangarTesting
import PropertyList

/// `hangar formats …`: the Migration Kit's checks on kit folders, where no app code is at hand.
struct Formats: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "formats",
        abstract: "Check format histories (kit folders), count a store's documents against them, capture fixtures.",
        subcommands: [FormatsCheck.self, FormatsCensus.self, FormatsCapture.self]
    )
}

/// `hangar formats check DIR...`
struct FormatsCheck: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check each folder's manifest, checksums and the shape rules between its frozen versions.",
        discussion: """
            Prints `DIR: OK`, or one line per problem, `DIR: RULE VERSION FILE-OR-PATH: message`, and exits 1.
            """)

    @Argument(help: "Kit folders (each holding format.plist).") var folders: [String]

    func validate() throws {
        if folders.isEmpty { throw ValidationError("Name at least one folder.") }
    }

    func run() throws {
        var failed = false
        for folder in folders {
            let problems = FormatsTool.check(folder: folder)
            if problems.isEmpty {
                print("\(folder): OK")
            } else {
                failed = true
                for problem in problems { print(oneLine("\(folder): \(problem)")) }
            }
        }
        if failed { throw ExitCode.failure }
    }
}

/// `hangar formats census (--db PATH | --url URL) [--formats DIR]...`
struct FormatsCensus: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "census",
        abstract: "Count a store's documents per collection and stored version, against the frozen histories.",
        discussion: """
            One line per collection and version, `COLLECTION VERSION COUNT STATUS`, sorted; STATUS is current, \
            frozen (older, migrated when read), unknown (never frozen), newer, too-old (older than the oldest \
            readable major), or - when no --formats folder names the collection; `(N do not match the frozen \
            shape)` follows when some documents of a frozen version do not.
            """)

    @OptionGroup var store: StoreOption
    @Option(name: .customLong("formats"), help: "A kit folder to count against (repeatable).") var folders: [String] =
        []

    func run() async throws {
        let census: FormatsTool.Census
        do {
            census = try FormatsTool.Census(folders: folders)
        } catch {
            throw FileFailure(path: error.path, reason: error.reason)
        }
        try await withStore(store, readOnly: true) { opened in
            for line in try await Self.lines(opened.store, census: census) { print(line) }
        }
    }

    /// Counts every document of every collection, a page of keys at a time.
    private static func lines<S: DocumentStore>(_ store: S, census: FormatsTool.Census) async throws -> [String] {
        var lines: [String] = []
        let collections = try await store.read { try await $0.collections() }
        for collection in collections.sorted(by: { ExactString($0) < ExactString($1) }) {
            var counts: [DocumentVersion: (all: Int, mismatched: Int)] = [:]
            var offset = 0
            while true {
                let page = try await store.read { transaction in
                    let keys = try await transaction.keys(in: collection, order: .ascending, limit: 500, offset: offset)
                    var found: [StoredDocument] = []
                    for key in keys {
                        if let document = try await transaction.document(in: collection, key: key) {
                            found.append(document)
                        }
                    }
                    return (keys.count, found)
                }
                for document in page.1 {
                    var count = counts[document.version] ?? (0, 0)
                    count.all += 1
                    let envelope = try? document.envelope()
                    let matches = envelope.flatMap {
                        census.matchesFrozenShape($0, version: document.version, in: collection)
                    }
                    if matches == false { count.mismatched += 1 }
                    counts[document.version] = count
                }
                guard page.0 == 500 else { break }
                offset += 500
            }
            for version in counts.keys.sorted() {
                guard let count = counts[version] else { continue }
                var line = "\(collection) \(version) \(count.all) \(census.status(of: version, in: collection))"
                if count.mismatched > 0 { line += " (\(count.mismatched) do not match the frozen shape)" }
                lines.append(line)
            }
        }
        return lines
    }
}

/// `hangar formats capture (--db PATH | --url URL) COLLECTION KEY DIR [--redact KEYPATH]... [--name NAME]`
struct FormatsCapture: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "capture",
        abstract: "Freeze a stored document as a fixture of the version it is stored at (DIR/M.m/NAME.plist).",
        discussion: """
            Strings under each --redact key path (`name`, `airplanes[].registrationNumber`) are replaced by \
            placeholders of the same length. An existing file name in the version's folder is refused. Prints the \
            file written.
            """)

    @OptionGroup var store: StoreOption
    @OptionGroup var document: DocumentArguments
    @Argument(help: "The kit folder.") var folder: String
    @Option(help: "A key path whose strings are replaced (repeatable).") var redact: [String] = []
    @Option(help: "The fixture's file name (default: the key).") var name: String?

    func run() async throws {
        let (collection, key) = (document.collection, document.key)
        try await withStore(store, readOnly: true) { opened in
            guard let stored = try await opened.store.document(in: collection, key: key) else {
                throw self.store.notFound("No document \(collection)/\(key)")
            }
            do {
                let written = try FormatsTool.capture(
                    envelope: stored.envelope(), storedBody: try? stored.plaintextBody(), collection: collection,
                    name: name ?? key, folder: folder, redact: redact)
                print(written)
            } catch let failure as FormatsTool.Failure {
                throw FileFailure(path: failure.path, reason: failure.reason)
            }
        }
    }
}
