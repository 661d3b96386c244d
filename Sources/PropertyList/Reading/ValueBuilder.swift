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
    /// The open arrays' elements, each with the room reserved for it.
    private var arrays: [(elements: [PropertyList], reserved: Int)] = []
    private var dictionaries: [DictionaryBuilder] = []
    /// By depth: the key table of the last dictionary finished there, which the next one there likely repeats
    /// (``DictionaryBuilder``), and the element count of the last array, which the next one likely has.
    private var keyTemplates: [PropertyList.Dictionary.KeyTable?] = []
    private var arrayCounts: [Int] = []
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
        return dictionaries[dictionaries.count - 1].pendingKey
    }

    /// The key of the entry the innermost dictionary received last.
    var lastKey: String? { dictionaries.last?.lastKey }

    /// Whether the innermost container is a dictionary that expects a key next.
    var expectsKey: Bool { containers.last == .dictionary && dictionaries[dictionaries.count - 1].pendingKey == nil }

    /// The key the innermost dictionary's template has at the next entry's place, if it still follows one: a reader
    /// whose key text has the same bytes hands it back to ``key(_:isExpected:)`` instead of making a string.
    var expectedKey: String? {
        guard containers.last == .dictionary else { return nil }
        return dictionaries[dictionaries.count - 1].expectedKey
    }

    /// Opens an array that starts at `offset`.
    mutating func beginArray(at offset: Int) throws(PropertyListError) {
        let depth = containers.count
        try open(.array, at: offset)
        var elements: [PropertyList] = []
        // Room for as many elements as the last array at this depth had: records' arrays are alike, and an array
        // grown from empty is copied at 1, 2, 4, 8… elements. (At most the input's values so far, summed over the
        // open arrays; ``endArray()`` gives back room an array did not use.)
        let reserved = depth < arrayCounts.count ? arrayCounts[depth] : 0
        elements.reserveCapacity(reserved)
        arrays.append((elements, reserved))
    }

    /// Opens a dictionary that starts at `offset`.
    mutating func beginDictionary(at offset: Int) throws(PropertyListError) {
        let depth = containers.count
        try open(.dictionary, at: offset)
        dictionaries.append(DictionaryBuilder(template: depth < keyTemplates.count ? keyTemplates[depth] : nil))
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
        dictionaries[dictionaries.count - 1].setKey(key)
    }

    /// The key of the next entry of the innermost dictionary; `isExpected` when it is ``expectedKey`` itself.
    mutating func key(_ key: String, isExpected: Bool) {
        dictionaries[dictionaries.count - 1].setKey(key, isExpected: isExpected)
    }

    /// Hands a scalar read at `offset` to the innermost container; returns it when there is none (the root).
    mutating func scalar(_ value: PropertyList, at offset: Int) throws(PropertyListError) -> PropertyList? {
        try count(at: offset)
        return deliver(value)
    }

    /// Closes the innermost container (an array) and hands it to its parent; returns it when it is the root.
    mutating func endArray() -> PropertyList? {
        containers.removeLast()
        var (elements, reserved) = arrays.removeLast()
        let depth = containers.count
        // Inner containers close first; the depth is below the depth limit, so these tables stay small.
        while arrayCounts.count <= depth { arrayCounts.append(0) }
        arrayCounts[depth] = elements.count
        // Room reserved and not used would stay in the value for its life: copied at its size instead.
        if elements.count < reserved { elements = Self.compacted(elements) }
        return deliver(.array(elements))
    }

    /// A copy of `values` in room for just them.
    static func compacted(_ values: [PropertyList]) -> [PropertyList] {
        var copy: [PropertyList] = []
        copy.reserveCapacity(values.count)
        copy.append(contentsOf: values)
        return copy
    }

    /// Closes the innermost container (a dictionary) and hands it to its parent; returns it when it is the root.
    /// The caller has checked that no key waits for its value. With `readingUIDs` (the XML reader), a
    /// dictionary that is exactly `{CF$UID: n}` becomes ``PropertyList/uid(_:)`` (see ``uid(in:)``).
    mutating func endDictionary(readingUIDs: Bool = false) -> PropertyList? {
        containers.removeLast()
        let (entries, template) = dictionaries.removeLast().build()
        let depth = containers.count
        if let template {
            while keyTemplates.count <= depth { keyTemplates.append(nil) }
            keyTemplates[depth] = template
        }
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
            arrays[arrays.count - 1].elements.append(value)
        case .dictionary:
            dictionaries[dictionaries.count - 1].appendValue(value)
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
