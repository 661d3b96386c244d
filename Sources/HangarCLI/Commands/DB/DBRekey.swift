import ArgumentParser
import Foundation
import Hangar

/// `hangar db rekey (--db PATH | --url URL) --key-file NEW --old-key-file OLD...`
struct DBRekey: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rekey",
        abstract: "Re-encrypt every stored body (current and history) with the key of --key-file.",
        discussion: "Bodies sealed with an --old-key-file key, or stored as plaintext, are sealed again with the "
            + "new key, 200 to a transaction; revisions, timestamps and the change feed are unchanged. Progress goes "
            + "to standard error; the last line on standard output is `rekeyed N documents and M revisions`. Safe "
            + "to stop at any point (even kill -9): running it again finishes it. Bodies that cannot be opened "
            + "are listed as `not re-encrypted: COLLECTION/KEY: REASON`, left as they are, and the exit status is 1.")

    @OptionGroup var store: StoreOption
    @Option(name: .long, help: "A file holding an older 32-byte key, raw, to open what it sealed (repeatable).")
    var oldKeyFile: [String] = []
    @Option(help: "Bodies re-encrypted per transaction.") var batchSize = 200

    func validate() throws {
        guard store.keyFilePath != nil else {
            throw ValidationError("Name the new key with --key-file FILE (or HANGAR_KEY_FILE).")
        }
        guard batchSize > 0 else { throw ValidationError("--batch-size must be at least 1.") }
    }

    func run() async throws {
        try await withStore(store, oldKeyFiles: oldKeyFile) { opened in try await rekey(opened.store) }
    }

    private func rekey<S: DocumentStore>(_ store: S) async throws {
        let report = try await store.rekey(batchSize: batchSize) { progress in
            FileHandle.standardError.write(Data("rekeyed \(progress.rekeyed)\n".utf8))
        }
        for failure in report.quarantined {
            print("not re-encrypted: \(failure.collection)/\(failure.key): \(failure.error.reason)")
        }
        print("rekeyed \(report.rekeyed) documents and \(report.rekeyedRevisions) revisions")
        guard report.quarantined.isEmpty else { throw ExitCode(1) }
    }
}
