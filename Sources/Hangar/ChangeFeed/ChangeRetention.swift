public import Foundation

/// How much of the change feed a store keeps. Older changes are pruned as transactions commit (possibly
/// later than these limits allow, never earlier); asking for them throws ``HangarError/changesTooOld``.
public struct ChangeRetention: Sendable, Hashable {
    /// The most changes kept (the newest), or `nil` for no limit by count. The feed is pruned once it is 1 %
    /// over (at least one change over): until then a few more may be kept, never fewer.
    public var maximumCount: Int?
    /// The oldest a kept change may be, in seconds, or `nil` for no limit by age.
    public var maximumAge: TimeInterval?

    /// Keeps at most `maximumCount` changes (100,000 by default), none older than `maximumAge` (30 days).
    public init(maximumCount: Int? = 100_000, maximumAge: TimeInterval? = 30 * 24 * 60 * 60) {
        self.maximumCount = maximumCount
        self.maximumAge = maximumAge
    }

    /// Every change is kept.
    public static let keepAll = ChangeRetention(maximumCount: nil, maximumAge: nil)
}
