/// What changed between two pages of a live query, by key bytes.
enum LiveQueryDiff {
    /// The keys added, removed, moved and revised from `old` to `new` (both in page order), `written` naming the keys
    /// written in between.
    static func changes(from old: [String], to new: [String], written: Set<ExactString>) -> LiveQueryChanges {
        var oldPlaces: [ExactString: Int] = [:]
        for (place, key) in old.enumerated() { oldPlaces[ExactString(key)] = place }
        let newKeys = Set(new.map { ExactString($0) })
        let added = new.filter { oldPlaces[ExactString($0)] == nil }
        let removed = old.filter { !newKeys.contains(ExactString($0)) }
        let kept = new.filter { oldPlaces[ExactString($0)] != nil }
        let staying = Set(longestIncreasingRun(kept.compactMap { oldPlaces[ExactString($0)] }))
        let moved = kept.filter { key in oldPlaces[ExactString(key)].map { !staying.contains($0) } ?? false }
        let revised = kept.filter { written.contains(ExactString($0)) }
        return LiveQueryChanges(added: added, removed: removed, moved: moved, revised: revised)
    }

    /// A longest strictly increasing subsequence of `places` (the keys that kept their order); its elements.
    static func longestIncreasingRun(_ places: [Int]) -> [Int] {
        // tails[length - 1]: the index in `places` of the smallest last element of a run of that length.
        var tails: [Int] = []
        var previous = [Int](repeating: -1, count: places.count)
        for (index, place) in places.enumerated() {
            var low = 0
            var high = tails.count
            while low < high {
                let middle = (low + high) / 2
                if places[tails[middle]] < place { low = middle + 1 } else { high = middle }
            }
            if low > 0 { previous[index] = tails[low - 1] }
            if low == tails.count { tails.append(index) } else { tails[low] = index }
        }
        var run: [Int] = []
        var index = tails.last ?? -1
        while index >= 0 {
            run.append(places[index])
            index = previous[index]
        }
        return run.reversed()
    }
}
