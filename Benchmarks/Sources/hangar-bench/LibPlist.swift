import CLibPlist

// libplist (the C library behind plistutil and libimobiledevice) as an in-process peer: its 2.2 API reads a whole
// buffer into a node tree and writes a whole tree into a malloc'd buffer, as our codecs do with values and bytes.

/// A libplist node tree, freed with `plist_free` when the last reference goes (after the clock, like our values).
final class LibPlistTree {
    let node: plist_t

    private init(node: plist_t) { self.node = node }

    deinit { plist_free(node) }

    /// `plist_from_bin`: bplist00 bytes to a tree.
    static func fromBinary(_ bytes: [UInt8]) throws -> LibPlistTree {
        var node: plist_t?
        bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars in
                plist_from_bin(chars.baseAddress, UInt32(chars.count), &node)
            }
        }
        guard let node else { throw LibPlistError(operation: "plist_from_bin") }
        return LibPlistTree(node: node)
    }

    /// `plist_from_xml`: XML bytes to a tree.
    static func fromXML(_ bytes: [UInt8]) throws -> LibPlistTree {
        var node: plist_t?
        bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars in
                plist_from_xml(chars.baseAddress, UInt32(chars.count), &node)
            }
        }
        guard let node else { throw LibPlistError(operation: "plist_from_xml") }
        return LibPlistTree(node: node)
    }

    /// `plist_to_bin`: the tree as bplist00 bytes, in libplist's own buffer.
    func binary() throws -> LibPlistBuffer {
        var bytes: UnsafeMutablePointer<CChar>?
        var length: UInt32 = 0
        plist_to_bin(node, &bytes, &length)
        guard let bytes else { throw LibPlistError(operation: "plist_to_bin") }
        return LibPlistBuffer(bytes: bytes, count: Int(length), format: .binary)
    }

    /// `plist_to_xml`: the tree as XML bytes, in libplist's own buffer.
    func xml() throws -> LibPlistBuffer {
        var bytes: UnsafeMutablePointer<CChar>?
        var length: UInt32 = 0
        plist_to_xml(node, &bytes, &length)
        guard let bytes else { throw LibPlistError(operation: "plist_to_xml") }
        return LibPlistBuffer(bytes: bytes, count: Int(length), format: .xml)
    }
}

/// A buffer that `plist_to_bin` or `plist_to_xml` allocated, freed by its own function when the last reference goes.
final class LibPlistBuffer {
    enum Format { case binary, xml }

    let bytes: UnsafeMutablePointer<CChar>
    let count: Int
    let format: Format

    init(bytes: UnsafeMutablePointer<CChar>, count: Int, format: Format) {
        self.bytes = bytes
        self.count = count
        self.format = format
    }

    deinit {
        switch format {
        case .binary: plist_to_bin_free(bytes)
        case .xml: plist_to_xml_free(bytes)
        }
    }

    /// A copy of the bytes (for the setup checks, never on the clock).
    var array: [UInt8] {
        UnsafeRawBufferPointer(start: bytes, count: count).map { $0 }
    }
}

struct LibPlistError: Error, CustomStringConvertible {
    var operation: String
    var description: String { "libplist's \(operation) failed (no result)" }
}
