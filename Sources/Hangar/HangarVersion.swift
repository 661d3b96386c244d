/// The version of the Hangar library.
enum HangarVersion {
    /// The semantic version of this release.
    static let current = "0.1.0"
}
