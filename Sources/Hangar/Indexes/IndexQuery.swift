public import PropertyList

/// A query over one index of one collection: which values (``Match``), in which order, how many per page, and
/// from where (``after``). Read a page with ``DocumentReader/page(_:)``, count with ``DocumentReader/count(_:)``,
/// the smallest and largest values with ``DocumentReader/bounds(_:)``.
///
/// Results are ordered by the index value, then by key (UTF-8 bytes); ``Order/descending`` is the exact reverse.
/// A document with several values in the query's range (every airplane's hours) is listed once, at its first
/// value in the query's order. On a compound index (``IndexDefinition/compound(name:_:unique:)``) values are
/// arrays of components, and a bound with fewer components than the index stands for every value that begins
/// with it: `to: .included(["ESSB"])` reaches the last value whose first component is `"ESSB"`.
public struct IndexQuery: Sendable {
    /// The order of a query's results.
    public enum Order: String, Sendable, Hashable {
        /// Smallest value first, then keys in byte order.
        case ascending = "asc"
        /// The exact reverse of ``ascending``.
        case descending = "desc"
    }

    /// One end of a range.
    public enum Bound: Sendable {
        /// The range includes this value.
        case included(PropertyList)
        /// The range stops short of this value.
        case excluded(PropertyList)
    }

    /// Which values a query matches.
    public enum Match: Sendable {
        /// Every value of the index.
        case all
        /// Exactly this value (on a compound index, all of its components).
        case equal(PropertyList)
        /// The values of a compound index that begin with these components.
        case prefix([PropertyList])
        /// The values from `lower` to `upper`. With one end `nil` the range stops at the end of the other
        /// bound's type (of its first component, on a compound index): `from: .included(2)` is every number from
        /// 2 up, not the dates and strings after them. Both `nil` is ``all``.
        case range(from: Bound?, to: Bound?)

        /// The prefix `value` stands for: the components of an array, or the one value otherwise, as a query
        /// written as text (HTTP's `prefix=V`, the CLI's `--prefix V`) names it.
        public static func prefix(of value: PropertyList) -> Match {
            if case .array(let parts) = value { return .prefix(parts) }
            return .prefix([value])
        }
    }

    /// A value written as text (HTTP's `value=V`, the CLI's `--value V`, and every other bound): JSON (`5`,
    /// `"ESSB"`, `["ESSB", 5]`), or the text itself as a string when it is not JSON, so `ESSB` is `"ESSB"`.
    public static func value(parsing text: String) -> PropertyList {
        (try? PropertyList(json: Array(text.utf8))) ?? .string(text)
    }

    /// The collection queried.
    public var collection: String
    /// The index queried, by its name's bytes.
    public var index: String
    /// Which values match.
    public var match: Match
    /// The results' order; ascending by default.
    public var order: Order
    /// The most results a page holds (at least 1). It may change from one page to the next.
    public var limit: Int
    /// Where the page starts: the ``IndexPage/next`` cursor of the page before (of the same query), or `nil` for
    /// the first page.
    public var after: IndexCursor?
    /// When set, only the documents this user owns (``DocumentOwners``, told apart by the bytes of their ids): the
    /// page is still one scan of the index, each entry checked against the owners index in the same statement. A
    /// cursor of one owner's query is refused for another's.
    public var owner: String?

    /// A query of `index` in `collection`.
    public init(
        collection: String, index: String, match: Match = .all, order: Order = .ascending, limit: Int = 100,
        after: IndexCursor? = nil, owner: String? = nil
    ) {
        self.collection = collection
        self.index = index
        self.match = match
        self.order = order
        self.limit = limit
        self.after = after
        self.owner = owner
    }
}

/// One page of an ``IndexQuery``: its keys in order, their documents when asked for, and the cursor of the next
/// page when more follow.
public struct IndexPage: Sendable {
    /// The keys of the page, in the query's order.
    public let keys: [String]
    /// The documents of ``keys``, in the same order and with their revisions, when the page was read with
    /// documents (``DocumentReader/page(_:documents:)``); empty otherwise. A document deleted between the index
    /// read and the document read cannot happen: both are one transaction's reads.
    public let documents: [StoredDocument]
    /// Where the next page starts; `nil` when no result follows this page.
    public let next: IndexCursor?

    package init(keys: [String], documents: [StoredDocument], next: IndexCursor?) {
        self.keys = keys
        self.documents = documents
        self.next = next
    }
}

/// The smallest and largest values of an index in a query's range (compound values as arrays).
public struct IndexBounds: Sendable {
    /// The smallest value in the range.
    public let smallest: PropertyList
    /// The largest value in the range.
    public let largest: PropertyList
}
