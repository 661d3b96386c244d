/// Builds a value from the events a text scanner emits (begin and end of containers, keys, scalars). It owns
/// what every text format shares: the open containers, the depth limit, the value budget, and the policy for a
/// repeated dictionary key (the last one wins, as in Apple's readers, CPython and go-plist; see
/// ``DictionaryBuilder``). Scanners own only their grammar. Failures are located by line and column in the
/// scanner's text.
struct ValueBuilder {
    enum Container { case array, dictionary }

    private let reader: ByteReader
    private let limits: DecodingLimits
    /// How the format names its containers in the depth-limit message ("arrays or dictionaries").
    private let containerNoun: String
    private var containers: [Container] = []
    private var arrays: [[PropertyList]] = []
    private var dictionaries: [DictionaryBuilder] = []
    /// For each open dictionary, the key read and waiting for its value.
    private var pendingKeys: [String?] = []
    private var values = 0

    init(reader: ByteReader, limits: DecodingLimits, containerNoun: String = "arrays or dictionaries") {
        self.reader = reader
        self.limits = limits
        self.containerNoun = containerNoun
    }

    /// The innermost open container, `nil` at the root.
    var current: Container? { containers.last }
    /// How many containers are open.
    var depth: Int { containers.count }

    /// The key of the innermost dictionary that waits for its value, if there is one.
    var pendingKey: String? {
        guard containers.last == .dictionary else { return nil }
        return pendingKeys[pendingKeys.count - 1]
    }

    /// The key of the entry the innermost dictionary received last.
    var lastKey: String? { dictionaries.last?.lastKey }

    /// Whether the innermost container is a dictionary that expects a key next.
    var expectsKey: Bool { containers.last == .dictionary && pendingKeys[pendingKeys.count - 1] == nil }

    /// Opens an array that starts at `offset`.
    mutating func beginArray(at offset: Int) throws(PropertyListError) {
        try open(.array, at: offset)
        arrays.append([])
    }

    /// Opens a dictionary that starts at `offset`.
    mutating func beginDictionary(at offset: Int) throws(PropertyListError) {
        try open(.dictionary, at: offset)
        dictionaries.append(DictionaryBuilder())
        pendingKeys.append(nil)
    }

    private mutating func open(_ container: Container, at offset: Int) throws(PropertyListError) {
        // Each level costs heap here, but consumers recurse; the limit keeps them safe. An empty container
        // counts as a level too, as it does for the writers.
        guard containers.count < limits.maxDepth else {
            throw failure(.tooDeep(limit: limits.maxDepth, containers: containerNoun), at: offset)
        }
        try count(at: offset)
        containers.append(container)
    }

    /// The key of the next entry of the innermost dictionary.
    mutating func key(_ key: String) {
        pendingKeys[pendingKeys.count - 1] = key
    }

    /// Hands a scalar read at `offset` to the innermost container; returns it when there is none (the root).
    mutating func scalar(_ value: PropertyList, at offset: Int) throws(PropertyListError) -> PropertyList? {
        try count(at: offset)
        return deliver(value)
    }

    /// Closes the innermost container (an array) and hands it to its parent; returns it when it is the root.
    mutating func endArray() -> PropertyList? {
        containers.removeLast()
        return deliver(.array(arrays.removeLast()))
    }

    /// Closes the innermost container (a dictionary) and hands it to its parent; returns it when it is the root.
    /// The caller has checked that no key waits for its value. With `readingUIDs` (the XML reader), a
    /// dictionary that is exactly `{CF$UID: n}` becomes ``PropertyList/uid(_:)`` (see ``uid(in:)``).
    mutating func endDictionary(readingUIDs: Bool = false) -> PropertyList? {
        containers.removeLast()
        pendingKeys.removeLast()
        let entries = dictionaries.removeLast().build()
        if readingUIDs, let uid = Self.uid(in: entries) { return deliver(.uid(uid)) }
        return deliver(.dictionary(entries))
    }

    /// The UID a dictionary stands for in XML, CF's rule (`CFPropertyList.c`, `parseDictTag`): one entry (a
    /// repeated key counts once, the last value winning), the key `CF$UID` exactly, a number value. CF takes
    /// any number and keeps its low 32 bits (`-1` reads as 4294967295, `<real>1.9</real>` as 1); here only an
    /// integer in 0 … 2^32−1 is a UID, and any other value leaves the dictionary as it is, so nothing read
    /// changes its value.
    static func uid(in entries: PropertyList.Dictionary) -> UInt32? {
        guard entries.count == 1, case .integer(let integer) = entries.values[0],
            entries.keys[0].unicodeScalarsEqual("CF$UID"), !integer.isNegative, integer.bits <= UInt64(UInt32.max)
        else { return nil }
        return UInt32(truncatingIfNeeded: integer.bits)
    }

    private mutating func deliver(_ value: PropertyList) -> PropertyList? {
        switch containers.last {
        case nil:
            return value
        case .array:
            arrays[arrays.count - 1].append(value)
        case .dictionary:
            if let key = pendingKeys[pendingKeys.count - 1] {
                dictionaries[dictionaries.count - 1].append(key, value)
                pendingKeys[pendingKeys.count - 1] = nil
            }
        }
        return nil
    }

    /// Counts one more value against ``DecodingLimits/maxExpandedNodes``, the budget the binary reader applies.
    @inline(__always)
    private mutating func count(at offset: Int) throws(PropertyListError) {
        values += 1
        guard values <= limits.maxExpandedNodes else {
            throw failure(
                .tooManyObjects("The property list holds more than \(limits.maxExpandedNodes) values", overLimit: true),
                at: offset)
        }
    }

    private func failure(_ failure: CodecFailure, at offset: Int) -> PropertyListError {
        PropertyListError(failure, at: TextLocation.location(of: offset, in: reader))
    }
}
