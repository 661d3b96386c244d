/// The budgets every decoder enforces, so that hostile input costs bounded time and memory.
///
/// The defaults accept every file Apple's tools write (their own readers stop at 512 levels) and refuse
/// "bombs": a 200-byte binary plist whose arrays share children can describe 2^64 values.
public struct DecodingLimits: Sendable, Hashable {
    /// The deepest nesting of arrays and dictionaries accepted. The root container is depth 1.
    public var maxDepth: Int
    /// The most objects a binary plist may declare in its offset table.
    public var maxObjects: Int
    /// The most values the decoded tree may hold once shared references are counted as often as they are used.
    ///
    /// Decoding itself shares such values and stays small, but everything that walks the result (writing it
    /// as XML or JSON, comparing, printing) pays for every use, so the budget protects what comes next.
    public var maxExpandedNodes: Int

    /// Budgets with the given values.
    public init(maxDepth: Int = 512, maxObjects: Int = 1 << 26, maxExpandedNodes: Int = 1 << 24) {
        self.maxDepth = maxDepth
        self.maxObjects = maxObjects
        self.maxExpandedNodes = maxExpandedNodes
    }

    /// 512 levels, 64 Mi objects, 16 Mi values after expansion (several hundred megabytes of XML).
    public static let `default` = DecodingLimits()
}
