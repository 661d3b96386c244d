/// Collects a dictionary's entries as a reader meets them; ``build()`` keeps their order and the last value of a
/// repeated key (at its first place), as Apple's readers, CPython and go-plist keep the last value.
///
/// A file of records repeats one set of keys in one order (every airplane of a pilots file has the same eight), so
/// a builder starts from a template, the key table of the last dictionary finished at the same depth. While the
/// entries follow it, a reader can hand over the template's own key instead of making a string from its bytes
/// (``expectedKey``), no key array is built, and a dictionary that follows it to the end shares its key table: no
/// allocation, no order check. The first key that differs ends that, and the entries go on as if there had been no
/// template.
struct DictionaryBuilder {
    /// The keys the entries are expected to repeat, in order.
    private let template: PropertyList.Dictionary.KeyTable?
    /// How many of the template's keys there are (0 without one).
    private let templateCount: Int
    /// Whether every key so far was the template's key at its place.
    private var followsTemplate: Bool
    /// The keys of the entries, once they no longer follow the template.
    private var keys: [String] = []
    private var values: [PropertyList] = []
    /// The key read and waiting for its value.
    private(set) var pendingKey: String?

    init(template: PropertyList.Dictionary.KeyTable?) {
        self.template = template
        templateCount = template?.count ?? 0
        followsTemplate = template != nil
        // (At most the input's keys so far, summed over the open dictionaries; ``build()`` gives back room the
        // entries did not use.)
        values.reserveCapacity(templateCount)
    }

    /// The key the template has at the next entry's place, while the entries follow it.
    var expectedKey: String? {
        guard followsTemplate, values.count < templateCount, let template else { return nil }
        return template[values.count]
    }

    /// The key of the next entry; `isExpected` when it is ``expectedKey`` itself (the reader compared the bytes).
    mutating func setKey(_ key: String, isExpected: Bool) {
        if followsTemplate && !isExpected { leaveTemplate() }
        pendingKey = key
    }

    /// The key of the next entry, compared with the template's here.
    mutating func setKey(_ key: String) {
        setKey(key, isExpected: expectedKey.map { UTF8Bytes.equal($0, key) } ?? false)
    }

    /// The entries so far no longer follow the template: their keys become the template's first ones.
    private mutating func leaveTemplate() {
        followsTemplate = false
        guard let template else { return }
        keys.reserveCapacity(Swift.max(values.count + 1, templateCount))
        for position in 0..<values.count { keys.append(template[position]) }
    }

    /// Adds `value` under the pending key, if there is one (the caller has checked that there is).
    mutating func appendValue(_ value: PropertyList) {
        guard let key = pendingKey else { return }
        if !followsTemplate { keys.append(key) }
        values.append(value)
        pendingKey = nil
    }

    /// The key of the entry appended last.
    var lastKey: String? {
        guard !values.isEmpty else { return nil }
        if followsTemplate, let template { return template[values.count - 1] }
        return keys.last
    }

    /// The dictionary, and the key table the next dictionary at this depth should expect (`nil`: keep the template;
    /// a dictionary that followed it to the end, or ended before its end, teaches nothing new).
    func build() -> (dictionary: PropertyList.Dictionary, template: PropertyList.Dictionary.KeyTable?) {
        // Room reserved for the template's entries and not used would stay in the value for its life.
        let values = values.count < templateCount ? ValueBuilder.compacted(self.values) : self.values
        if followsTemplate, let template {
            if values.count == templateCount {
                // The same distinct keys in the same order: the same table.
                return (PropertyList.Dictionary(keyTable: template, values: values), nil)
            }
            let prefix = (0..<values.count).map { template[$0] }
            return (PropertyList.Dictionary(keyTable: .init(distinctKeys: prefix), values: values), nil)
        }
        let dictionary = PropertyList.Dictionary(keys: keys, values: values, uniquingKeysWith: { _, last in last })
        return (dictionary, dictionary.isEmpty ? nil : dictionary.keyTable)
    }
}
