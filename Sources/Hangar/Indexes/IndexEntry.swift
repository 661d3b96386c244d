import Foundation
import PropertyList

/// One value of one index for one document, encoded (``IndexValue``).
package struct IndexEntry: Sendable {
    /// The index's name.
    package let name: String
    /// The value, encoded.
    package let value: [UInt8]
    /// Whether the index allows one key a value.
    package let unique: Bool
}
