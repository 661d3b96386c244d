import ArgumentParser
import Foundation
import Hangar
import PropertyList

/// `hangar db find (--db PATH | --url URL) COLLECTION --index NAME [--value V | --prefix V | --from V --to V]
/// [--order asc|desc] [--limit N] [--after CURSOR] [--count]`
struct DBFind: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "find",
        abstract:
            "Page through an index the store has built: one `KEY REVISION` line per document, then `next: CURSOR`.",
        discussion: """
            A value V is JSON (5, '"ESSB"', '["ESSB", 5]'); text that is not JSON is a string (ESSB). --prefix \
            names the first components of a compound index's values; --from and --to are inclusive, either may be \
            left out. Results come in index value order, then key order (--order desc: the exact reverse). \
            `next: CURSOR` is printed last when more follow: pass it as --after to the same query for the next \
            page. --count prints the number of documents in the range alone. Keys are printed as `hangar db ls` \
            prints them (quoted with escapes when odd). The store's own record of its indexes is used: no \
            app code is needed.
            """)

    @OptionGroup var store: StoreOption
    @Argument(help: "The collection.") var collection: String
    @Option(help: "The index to query.") var index: String
    @Option(help: "Documents with exactly this value.") var value: String?
    @Option(help: "Documents whose compound value begins with these components.") var prefix: String?
    @Option(help: "Documents with a value from this one (inclusive).") var from: String?
    @Option(help: "Documents with a value up to this one (inclusive).") var to: String?
    @Option(help: "asc or desc.") var order: Order = .asc
    @Option(help: "At most this many documents (default 100).") var limit: Int = 100
    @Option(help: "Start after this cursor (the `next:` of the page before).") var after: String?
    @Flag(help: "Print the number of documents in the range instead.") var count = false

    enum Order: String, ExpressibleByArgument, CaseIterable {
        case asc, desc
    }

    func validate() throws {
        let ranged = from != nil || to != nil
        if [value != nil, prefix != nil, ranged].filter({ $0 }).count > 1 {
            throw ValidationError("Give at most one of --value, --prefix, or --from/--to.")
        }
        if limit < 1 { throw ValidationError("--limit must be 1 or more") }
    }

    /// The query the options ask for.
    var query: IndexQuery {
        let parse = IndexQuery.value(parsing:)
        let match: IndexQuery.Match
        if let value {
            match = .equal(parse(value))
        } else if let prefix {
            match = .prefix(of: parse(prefix))
        } else if from != nil || to != nil {
            match = .range(from: from.map { .included(parse($0)) }, to: to.map { .included(parse($0)) })
        } else {
            match = .all
        }
        return IndexQuery(
            collection: collection, index: index, match: match, order: order == .asc ? .ascending : .descending,
            limit: limit, after: after.map(IndexCursor.init))
    }

    func run() async throws {
        try await withStore(store, readOnly: true) { opened in try await find(opened.store) }
    }

    private func find<S: DocumentStore>(_ store: S) async throws {
        let query = query
        if count {
            print(try await store.read { try await $0.count(query) })
            return
        }
        let page = try await store.read { try await $0.page(query, documents: true) }
        var lines = ""
        for document in page.documents {
            lines += "\(PrintedKey.text(document.key)) \(document.revision)\n"
        }
        if let next = page.next { lines += "next: \(next.text)\n" }
        print(lines, terminator: "")
    }
}
