/// The on-disk formats of a property list.
public enum PropertyListFormat: String, Sendable, Hashable, CaseIterable {
    /// Apple's binary format, `bplist00`. Read and written.
    case binary
    /// Apple's XML format with the PropertyList-1.0 DOCTYPE. Read and written.
    case xml
    /// The old-style ASCII format of NeXTSTEP (`{ key = value; }`). Read only.
    case openStep
    /// JSON, as `plutil -convert json` writes it. Written; read by format detection for `hangar convert`.
    case json
}
