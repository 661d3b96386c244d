import PropertyList

// How an ``IndexQuery`` becomes the conditions of an ``IndexScan``: its values encoded as the index stores them,
// a prefix as the range of the values that begin with it.

extension IndexScan {
    /// The scan of `query`'s first page, or its page after ``IndexQuery/after``, on an index with `components`
    /// components (`nil`: single values).
    static func plan(_ query: IndexQuery, components: Int?) throws(HangarError) -> IndexScan {
        guard query.limit >= 1 else {
            throw HangarError(.invalidQuery, "An index query's limit is at least 1, not \(query.limit)")
        }
        let plan = try Planner(index: query.index, components: components)
        let (range, firstValueOnly) = try plan.conditions(query.match)
        let scan = IndexScan(
            collection: query.collection, index: query.index, range: range, after: nil,
            descending: query.order == .descending, limit: min(query.limit, 1 << 40) + 1,
            firstValueOnly: firstValueOnly,
            owner: try query.owner.map { owner throws(HangarError) in
                try OwnerScope(owner: owner, collection: query.collection)
            })
        guard let cursor = query.after else { return scan }
        let position = try cursor.position(in: scan.scope)
        guard scan.contains(position.value) else {
            throw HangarError(.invalidCursor, "The cursor's position is outside the query's range")
        }
        return scan.with(after: Entry(value: position.value, key: position.key), limit: scan.limit)
    }
}

private struct Planner {
    let index: String
    let components: Int?

    init(index: String, components: Int?) throws(HangarError) {
        self.index = index
        self.components = components
    }

    /// A value encoded as the index holds it, and whether it names every component (always, for single values).
    func encoded(_ value: PropertyList) throws(HangarError) -> (bytes: [UInt8], complete: Bool) {
        guard let components else {
            guard let bytes = IndexValue.encoded(value) else {
                throw HangarError(
                    .invalidQuery,
                    "Index \(index) holds single values: \(Self.kind(of: value)) is not one it can hold")
            }
            return (bytes, true)
        }
        let parts: [PropertyList]
        if case .array(let elements) = value { parts = elements } else { parts = [value] }
        guard (1...components).contains(parts.count) else {
            throw HangarError(
                .invalidQuery,
                "Index \(index) is compound, of \(components) values: a value or prefix of 1 to \(components), not \(parts.count)"
            )
        }
        var encoded: [[UInt8]] = []
        for part in parts {
            guard let bytes = IndexValue.encoded(part) else {
                throw HangarError(.invalidQuery, "Index \(index) cannot hold \(Self.kind(of: part)) as a component")
            }
            encoded.append(bytes)
        }
        return (IndexValue.compound(encoded), parts.count == components)
    }

    func conditions(_ match: IndexQuery.Match) throws(HangarError) -> ([IndexScan.Condition], Bool) {
        switch match {
        case .all: return ([], true)
        case .equal(let value):
            let (bytes, complete) = try encoded(value)
            guard complete else {
                throw HangarError(
                    .invalidQuery,
                    "An equality on compound index \(index) names all \(components ?? 1) values; "
                        + "use a prefix for fewer")
            }
            return ([IndexScan.Condition(comparison: .equal, bound: bytes)], false)
        case .prefix(let parts):
            guard components != nil else {
                throw HangarError(.invalidQuery, "Index \(index) holds single values: a prefix needs a compound index")
            }
            let (bytes, _) = try encoded(.array(parts))
            return (
                [
                    IndexScan.Condition(comparison: .atLeast, bound: bytes),
                    IndexScan.Condition(comparison: .below, bound: IndexValue.successor(ofPrefix: bytes)),
                ], true
            )
        case .range(let lower, let upper):
            return (try rangeConditions(lower, upper), true)
        }
    }

    private func rangeConditions(_ lower: IndexQuery.Bound?, _ upper: IndexQuery.Bound?) throws(HangarError)
        -> [IndexScan.Condition]
    {
        var conditions: [IndexScan.Condition] = []
        if let lower {
            switch lower {
            case .included(let value):
                conditions.append(.init(comparison: .atLeast, bound: try encoded(value).bytes))
            case .excluded(let value):
                let (bytes, complete) = try encoded(value)
                conditions.append(
                    complete
                        ? .init(comparison: .above, bound: bytes)
                        : .init(comparison: .atLeast, bound: IndexValue.successor(ofPrefix: bytes)))
            }
        }
        if let upper {
            switch upper {
            case .included(let value):
                let (bytes, complete) = try encoded(value)
                conditions.append(
                    complete
                        ? .init(comparison: .atMost, bound: bytes)
                        : .init(comparison: .below, bound: IndexValue.successor(ofPrefix: bytes)))
            case .excluded(let value):
                conditions.append(.init(comparison: .below, bound: try encoded(value).bytes))
            }
        }
        // One end open: the range stops at the end of the other bound's type (its first byte is the type tag,
        // of the first component on a compound index).
        if lower == nil, let tag = conditions.first?.bound.first {
            conditions.insert(.init(comparison: .atLeast, bound: [tag]), at: 0)
        } else if upper == nil, let tag = conditions.first?.bound.first {
            conditions.append(.init(comparison: .below, bound: [tag + 1]))
        }
        return conditions
    }

    private static func kind(of value: PropertyList) -> String {
        switch value {
        case .array: "an array"
        case .dictionary: "a dictionary"
        case .real(let real) where real.isNaN: "NaN"
        default: "this value"
        }
    }
}
