/// Collects a dictionary's entries as a reader meets them; ``build()`` keeps their order and the last value of a
/// repeated key (at its first place), as Apple's readers, CPython and go-plist keep the last value.
struct DictionaryBuilder {
    private var keys: [String] = []
    private var values: [PropertyList] = []

    mutating func append(_ key: String, _ value: PropertyList) {
        keys.append(key)
        values.append(value)
    }

    /// The key of the entry appended last.
    var lastKey: String? { keys.last }

    func build() -> PropertyList.Dictionary {
        PropertyList.Dictionary(keys: keys, values: values, uniquingKeysWith: { _, last in last })
    }
}
