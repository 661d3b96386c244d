/// The one walk every writer makes over a value: the depth limit, the node budget, and the path of a failure
/// (collected as the error unwinds) live here; a writer says only what each step writes.
///
/// Pre-order: a container, then (for a dictionary) each key with its value, each element in order. Keys come
/// in the dictionary's kept order, or sorted (``EncodingOptions/KeyOrder``): the order the writer emits.
protocol ValueVisitor {
    /// A string, integer, real, Boolean, date or data value at `depth` (the root is depth 0).
    mutating func visitScalar(_ value: PropertyList, depth: Int) throws(WriteFailure)
    /// An array at `depth`, before its elements.
    mutating func beginArray(_ elements: [PropertyList], depth: Int) throws(WriteFailure)
    /// Before the element at `index` of the array at `depth`.
    mutating func beginElement(_ index: Int, depth: Int)
    /// An array at `depth`, after its elements.
    mutating func endArray(_ elements: [PropertyList], depth: Int)
    /// A dictionary at `depth`, before its entries.
    mutating func beginDictionary(_ entries: PropertyList.Dictionary, depth: Int) throws(WriteFailure)
    /// Before the value under `key`, the entry at `index` of the dictionary at `depth`.
    mutating func beginEntry(_ key: String, index: Int, depth: Int) throws(WriteFailure)
    /// A dictionary at `depth`, after its entries.
    mutating func endDictionary(_ entries: PropertyList.Dictionary, depth: Int)
}

extension ValueVisitor {
    mutating func beginElement(_ index: Int, depth: Int) {}
    mutating func beginEntry(_ key: String, index: Int, depth: Int) throws(WriteFailure) {}
}

enum ValueWalk {
    /// Walks `value` through `visitor`, each dictionary's keys in `keyOrder`; a failure comes out as the public
    /// error with the value's path.
    static func walk<Visitor: ValueVisitor>(
        _ value: PropertyList, keyOrder: EncodingOptions.KeyOrder, with visitor: inout Visitor
    ) throws(PropertyListError) {
        var nodes = 0
        do {
            try step(value, depth: 0, sortingKeys: keyOrder == .sorted, nodes: &nodes, visitor: &visitor)
        } catch {
            throw error.propertyListError
        }
    }

    private static func step<Visitor: ValueVisitor>(
        _ value: PropertyList, depth: Int, sortingKeys: Bool, nodes: inout Int, visitor: inout Visitor
    ) throws(WriteFailure) {
        // A value built in memory can share arrays (`x = [x, x]`, 64 times): bound what expanding it costs.
        nodes += 1
        guard nodes <= WriteLimits.maxNodes else { throw WriteLimits.nodeFailure() }
        switch value {
        case .array(let elements):
            guard depth < WriteLimits.maxDepth else { throw WriteLimits.depthFailure() }
            try visitor.beginArray(elements, depth: depth)
            // Elements are lent from the array's buffer, not copied out of it: no retain and release per element.
            try elements.withUnsafeBufferPointer { (buffer) throws(WriteFailure) in
                for index in buffer.indices {
                    do throws(WriteFailure) {
                        visitor.beginElement(index, depth: depth)
                        try step(
                            buffer[index], depth: depth + 1, sortingKeys: sortingKeys, nodes: &nodes,
                            visitor: &visitor)
                    } catch {
                        throw error.under(.index(index))
                    }
                }
            }
            visitor.endArray(elements, depth: depth)
        case .dictionary(let kept):
            // Sorting copies only a dictionary whose kept order is not key order; most already are.
            let entries = sortingKeys ? kept.sortedByKey() : kept
            guard depth < WriteLimits.maxDepth else { throw WriteLimits.depthFailure() }
            try visitor.beginDictionary(entries, depth: depth)
            let keys = entries.keys
            try keys.withUnsafeBufferPointer { (keys) throws(WriteFailure) in
                try entries.values.withUnsafeBufferPointer { (values) throws(WriteFailure) in
                    for index in values.indices {
                        do throws(WriteFailure) {
                            try visitor.beginEntry(keys[index], index: index, depth: depth)
                            try step(
                                values[index], depth: depth + 1, sortingKeys: sortingKeys, nodes: &nodes,
                                visitor: &visitor)
                        } catch {
                            throw error.under(.key(keys[index]))
                        }
                    }
                }
            }
            visitor.endDictionary(entries, depth: depth)
        default:
            try visitor.visitScalar(value, depth: depth)
        }
    }
}

/// A writer's failure while it walks a value: the path is collected innermost first as the error unwinds,
/// so nothing is spent on paths until something fails.
struct WriteFailure: Error {
    let failure: CodecFailure
    var reversedPath: [PropertyList.PathComponent] = []

    init(_ failure: CodecFailure) {
        self.failure = failure
    }

    /// Adds the step that led to the failing value, on the way out.
    func under(_ component: PropertyList.PathComponent) -> WriteFailure {
        var copy = self
        copy.reversedPath.append(component)
        return copy
    }

    /// The public error, with the rendered path.
    var propertyListError: PropertyListError {
        PropertyListError(failure, at: .path(PropertyList.pathText(reversedPath.reversed())))
    }
}

/// The budgets the walk enforces for every writer.
enum WriteLimits {
    /// Deepest nesting of arrays and dictionaries written (the root container is level 1), as Apple's and
    /// libplist's writers allow.
    static let maxDepth = 512
    /// Most values written: a value decoded from a binary plist can share children, and expanding such a
    /// DAG into text could take forever.
    static let maxNodes = DecodingLimits.default.maxExpandedNodes

    static func depthFailure() -> WriteFailure {
        WriteFailure(.tooDeep(limit: maxDepth, containers: "arrays or dictionaries"))
    }

    static func nodeFailure() -> WriteFailure {
        WriteFailure(.tooManyValues(limit: maxNodes))
    }
}
