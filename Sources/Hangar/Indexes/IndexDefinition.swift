public import PropertyList

/// A secondary index: the values a document is found by, extracted from its content.
///
/// The store remembers which indexes it built and from which definition (``fingerprint``): opening it with
/// an index it has not built, or with a changed definition, builds it over the documents already stored;
/// an index no longer declared is dropped. Change `version` whenever a custom `extract` changes.
public struct IndexDefinition: Sendable {
    /// The index's name, used in queries.
    public let name: String
    /// Whether two documents may not share a value. A save that would share one throws
    /// ``HangarError/duplicate`` (naming the index and the other key) before it writes anything: the rest of
    /// the transaction is untouched, and rolls back only if the error leaves the `write` closure. Building a
    /// unique index over stored duplicates fails the same way and builds nothing.
    public let unique: Bool
    /// Identifies the definition: when it changes, the index is rebuilt on open.
    public let fingerprint: String
    /// The values to index for a document (which are indexed, and their order: see
    /// ``DocumentReader/keys(in:index:equalTo:)``).
    public let extract: @Sendable (PropertyList.Dictionary) -> [PropertyList]
    /// How many values each entry of a compound index holds (``compound(name:_:unique:)``); `nil` for an index
    /// of single values.
    public let components: Int?

    /// An index whose values `extract` computes from a document's content; `version` names the extraction
    /// (change it when `extract` changes, so stored entries are rebuilt).
    public init(
        name: String, version: String = "1", unique: Bool = false,
        extract: @escaping @Sendable (PropertyList.Dictionary) -> [PropertyList]
    ) {
        self.init(name: name, unique: unique, fingerprint: "custom " + Self.lengthPrefixed([version]), extract: extract)
    }

    private init(
        name: String, unique: Bool, fingerprint: String, components: Int? = nil,
        extract: @escaping @Sendable (PropertyList.Dictionary) -> [PropertyList]
    ) {
        self.name = name
        self.unique = unique
        // The value encoding's version is part of every fingerprint: a new encoding rebuilds every index.
        self.fingerprint = "encoding 1; unique \(unique); " + fingerprint
        self.components = components
        self.extract = extract
    }

    /// A compound index: each entry holds one value of every component, in order (`homeAirfield`, then `name`),
    /// and entries compare component by component, each in the order of single values
    /// (``DocumentReader/keys(in:index:equalTo:)``). A component that finds several values (every airplane's
    /// hours) gives an entry for each combination; a document for which a component finds none (a missing key,
    /// an empty array) has no entry. Only each component's values are used: their names and `unique` are not.
    /// Queries name a compound value as an array (`["ESSB", "Ada"]`), or a prefix of one (`["ESSB"]`).
    public static func compound(name: String, _ components: [IndexDefinition], unique: Bool = false)
        -> IndexDefinition
    {
        let parts = components.map(\.extract)
        return IndexDefinition(
            name: name, unique: unique,
            fingerprint: "compound \(components.count) " + lengthPrefixed(components.map(\.fingerprint)),
            components: components.count
        ) { content in
            var tuples: [[PropertyList]] = [[]]
            for part in parts {
                let values = part(content)
                tuples = tuples.flatMap { tuple in values.map { tuple + [$0] } }
            }
            return parts.isEmpty ? [] : tuples.map(PropertyList.array)
        }
    }

    /// The stored forms of the values this index holds for `content` (values that are not indexed left out).
    package func encodedValues(_ content: PropertyList.Dictionary) -> [[UInt8]] {
        extract(content).compactMap { value in
            guard components != nil else { return IndexValue.encoded(value) }
            guard case .array(let parts) = value else { return nil }
            var encoded: [[UInt8]] = []
            for part in parts {
                guard let bytes = IndexValue.encoded(part) else { return nil }
                encoded.append(bytes)
            }
            return IndexValue.compound(encoded)
        }
    }

    /// How many components the index a `fingerprint` describes has: `nil` for an index of single values. What a
    /// store that has built an index knows of it without the app's definition.
    package static func components(fingerprint: String) -> Int? {
        for unique in ["true", "false"] {
            let start = "encoding 1; unique \(unique); compound "
            guard fingerprint.hasPrefix(start) else { continue }
            return Int(fingerprint.dropFirst(start.count).prefix { $0 != " " })
        }
        return nil
    }

    private static func lengthPrefixed(_ parts: [String]) -> String {
        parts.map { "\($0.utf8.count):\($0)" }.joined(separator: ",")
    }

    /// An index on the values found by following `path` from the content: dictionaries by key, every element
    /// of an array at each step. `.path("airplanes", "registrationNumber")` indexes every airplane's number.
    public static func path(_ path: String..., name: String? = nil, unique: Bool = false) -> IndexDefinition {
        IndexDefinition(
            name: name ?? path.joined(separator: "."), unique: unique, fingerprint: "path " + lengthPrefixed(path)
        ) { content in
            var current: [PropertyList] = [.dictionary(content)]
            for key in path {
                var next: [PropertyList] = []
                for value in current {
                    switch value {
                    case .dictionary(let entries): if let found = entries[key] { next.append(found) }
                    case .array(let elements):
                        for case .dictionary(let entries) in elements {
                            if let found = entries[key] { next.append(found) }
                        }
                    default: break
                    }
                }
                current = next
            }
            return current.flatMap { value -> [PropertyList] in
                if case .array(let elements) = value { return elements }
                return [value]
            }
        }
    }
}

/// How far building indexes over stored documents has got (when a store opens with new index definitions,
/// or on `SQLiteStore.reindex(_:progress:)`).
public struct IndexBuildProgress: Sendable {
    /// The collection whose indexes are built.
    public let collection: String
    /// The indexes being built.
    public let indexes: [String]
    /// Documents indexed so far.
    public let indexed: Int
    /// Documents in the collection.
    public let total: Int

    /// Progress of building `indexes` of `collection`: `indexed` of `total` documents.
    package init(collection: String, indexes: [String], indexed: Int, total: Int) {
        self.collection = collection
        self.indexes = indexes
        self.indexed = indexed
        self.total = total
    }
}
