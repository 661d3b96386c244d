import Foundation
import Hangar
import PropertyList

/// A property-list file read, edited and written back as the edit verbs do: in its own format, every
/// dictionary's keys in the order the file had them (new keys last), atomically in place or to `-o OUT`.
enum EditedFile {
    /// Reads `path` (`-` for standard input), applies `edit`, and writes the result to `output` (`-` for
    /// standard output) or, without one, over `path` with its permissions.
    static func edit(
        _ path: String, output: String?, _ edit: (inout PropertyList) throws(PlistKeyPathFailure) -> Void
    ) throws(FileFailure) {
        var (value, format) = try loadPropertyList(at: path)
        guard format != .openStep else {
            throw FileFailure(
                path: path,
                reason: "OpenStep property lists are read only; convert the file first (hangar convert xml1 FILE)")
        }
        do throws(PlistKeyPathFailure) {
            try edit(&value)
        } catch {
            throw FileFailure(path: path, reason: error.description)
        }
        let bytes = try encode(value, as: format, path: path)
        let destination = output ?? path
        try write(bytes, to: destination, permissions: output == nil ? permissions(of: path) : 0o644)
    }

    /// `value` in `format` with its keys in their kept order; a value the format cannot hold (a date in JSON)
    /// fails naming `path`.
    static func encode(_ value: PropertyList, as format: PropertyListFormat, path: String) throws(FileFailure)
        -> [UInt8]
    {
        do throws(PropertyListError) {
            let bytes = try value.encoded(as: format, options: EncodingOptions(keyOrder: .kept))
            if format == .xml, let datePath = value.firstSubsecondDatePath {
                printError(
                    "\(path): warning: XML keeps whole seconds; the fraction of the date at "
                        + "\(datePath.isEmpty ? "the root" : datePath) (and any others) is dropped")
            }
            return bytes
        } catch {
            throw FileFailure(path: path, error)
        }
    }

    /// Writes `bytes` to `destination` (`-` for standard output) atomically: a new file renamed over the old one,
    /// so a read-only file in a writable folder is replaced as `sed -i` replaces it.
    static func write(_ bytes: [UInt8], to destination: String, permissions: UInt16) throws(FileFailure) {
        do throws(AtomicFile.Failure) {
            if destination == "-" {
                try AtomicFile.writeToStandardOutput(bytes)
            } else {
                try AtomicFile.save(bytes, to: destination, permissions: permissions)
            }
        } catch {
            throw FileFailure(error)
        }
    }

    /// The permission bits of the file at `path`, or those of a new file (`0o644`, as `plutil` leaves it).
    private static func permissions(of path: String) -> UInt16 {
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        guard let bits = attributes?[.posixPermissions] as? NSNumber else { return 0o644 }
        return UInt16(truncatingIfNeeded: bits.intValue & 0o7777)
    }
}
