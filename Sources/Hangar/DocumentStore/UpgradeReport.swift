import Foundation

/// How far a bulk upgrade has got.
public struct UpgradeProgress: Sendable {
    /// Stale documents rewritten so far.
    public let upgraded: Int
    /// Stale documents found when the upgrade started.
    public let total: Int
}

/// What a bulk upgrade did.
public struct UpgradeReport: Sendable {
    /// Documents rewritten at the current version.
    public var upgraded: [String] = []
    /// Documents whose major is newer than this code reads: left alone.
    public var newer: [String] = []
    /// Documents that could not be read or written, with why: left alone.
    public var quarantined: [QuarantinedDocument] = []
}
