/// The key arrays of dictionaries already decoded, found again by their key references, so that dictionaries with
/// the same keys (every record of a kind in a file) share one array of keys instead of each holding a copy.
///
/// Writers share equal strings, so two dictionaries with the same keys have byte-equal runs of key references;
/// a run seen before, whose keys were different strings, gives back the same keys without decoding them
/// again. In a file of records this halves what each dictionary costs (`pilots.bplist`: 19 MB of 68 MB).
/// Direct-mapped by a hash of the run: a colliding run replaces the older one, so the table stays small.
struct KeyLists {
    private struct Entry {
        let refs: Int
        let byteCount: Int
        let hash: UInt64
        let keys: PropertyList.Dictionary.KeyTable
    }

    private static let size = 64
    /// Empty until the first dictionary is remembered, so that a decoder of a few scalars allocates nothing here.
    private var entries: [Entry?] = []

    /// The keys of an earlier dictionary whose `byteCount` bytes of key references at `refs` are these.
    func keys(_ reader: ByteReader, refs: Int, byteCount: Int, hash: UInt64) -> PropertyList.Dictionary.KeyTable? {
        guard !entries.isEmpty, let entry = entries[Int(truncatingIfNeeded: hash) & (Self.size - 1)],
            entry.hash == hash,
            entry.byteCount == byteCount, reader.regionsEqual(entry.refs, refs, count: byteCount)
        else { return nil }
        return entry.keys
    }

    /// Remembers `keys`, different strings decoded from the references at `refs` (with their sorted index).
    mutating func remember(_ keys: PropertyList.Dictionary.KeyTable, refs: Int, byteCount: Int, hash: UInt64) {
        if entries.isEmpty { entries = Array(repeating: nil, count: Self.size) }
        entries[Int(truncatingIfNeeded: hash) & (Self.size - 1)] = Entry(
            refs: refs, byteCount: byteCount, hash: hash, keys: keys)
    }
}
