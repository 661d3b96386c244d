/// The version of the Hangar library.
public enum HangarVersion {
    /// The semantic version of this release.
    public static let current = "0.1.0"
}
