/// Constants of the `bplist00` format (see Documentation/bplist-format.md §1).
enum BinaryFormat {
    /// Every binary plist starts with these six bytes; the next two name the version.
    static let magicPrefix: [UInt8] = Array("bplist".utf8)
    /// The eight header bytes this module writes.
    static let header: [UInt8] = Array("bplist00".utf8)
    /// The trailer is the last 32 bytes of the file.
    static let trailerSize = 32
    /// Header (8) + one marker byte + one offset byte + trailer (32): the smallest possible file.
    static let minimumFileSize = 42
}
