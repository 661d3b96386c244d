/// A document format version: `majorVersion.minorVersion`.
///
/// A new major changes the meaning of existing keys and needs a migration; a new minor only adds keys an
/// older reader can ignore (and keeps, see ``DocumentFormat``).
public struct DocumentVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Incremented when existing data changes shape.
    public var major: Int
    /// Incremented when keys are added in a way older readers can ignore.
    public var minor: Int

    /// The version `major.minor`.
    public init(major: Int, minor: Int) {
        self.major = major
        self.minor = minor
    }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.major, lhs.minor) < (rhs.major, rhs.minor)
    }

    /// `2.1`.
    public var description: String { "\(major).\(minor)" }
}
