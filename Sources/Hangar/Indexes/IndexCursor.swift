import Foundation

/// Where the next page of an ``IndexQuery`` starts: opaque text (base64url) to hand back as ``IndexQuery/after``.
///
/// A cursor is versioned and names what it pages through: the collection, the index, the order and the range
/// (by a digest of its bounds), then the value and key of the last result it follows, and a checksum. It is
/// refused (``HangarError/Code/invalidCursor``) when it does not read as one (edited, cut short, of another
/// version) or belongs to another query: another collection, index, order or range. The limit is not part of
/// it. The checksum catches changed text, not a forged cursor; a forged one can only start a page elsewhere
/// in the same range (its position is checked against the range).
public struct IndexCursor: Sendable, Hashable, CustomStringConvertible {
    /// The cursor's text.
    public let text: String

    /// A cursor from its text, as a client hands it back; it is checked when a query uses it.
    public init(_ text: String) { self.text = text }

    public var description: String { text }

    static let version: UInt8 = 1

    /// The cursor after `value` and `key` in the query identified by `scope`.
    init(scope: IndexCursorScope, value: [UInt8], key: String) {
        var bytes: [UInt8] = [Self.version]
        Self.append(Array(scope.collection.utf8), to: &bytes)
        Self.append(Array(scope.index.utf8), to: &bytes)
        bytes.append(scope.descending ? 1 : 0)
        Self.append(scope.rangeDigest, to: &bytes)
        Self.append(value, to: &bytes)
        Self.append(Array(key.utf8), to: &bytes)
        bytes += Self.bigEndian(Self.checksum(bytes))
        text = Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The value and key the cursor follows, when it reads as a cursor of the query identified by `scope`.
    func position(in scope: IndexCursorScope) throws(HangarError) -> (value: [UInt8], key: String) {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.utf8.count % 4) % 4)
        guard let data = Data(base64Encoded: base64), data.count > 9 else { throw Self.unreadable }
        let bytes = [UInt8](data)
        let body = Array(bytes.dropLast(8))
        guard Self.bigEndian(Self.checksum(body)) == Array(bytes.suffix(8)) else { throw Self.unreadable }
        guard body[0] == Self.version else {
            throw HangarError(.invalidCursor, "The cursor is of version \(body[0]); this Hangar reads version 1")
        }
        var reader = FieldReader(bytes: body, offset: 1)
        guard let collection = reader.field(), let index = reader.field(), let order = reader.byte(),
            let digest = reader.field(), let value = reader.field(), let key = reader.field(), reader.atEnd,
            let keyText = String(validating: key, as: UTF8.self)
        else { throw Self.unreadable }
        guard collection.elementsEqual(scope.collection.utf8), index.elementsEqual(scope.index.utf8) else {
            let named = String(decoding: collection, as: UTF8.self) + "/" + String(decoding: index, as: UTF8.self)
            throw HangarError(
                .invalidCursor, "The cursor pages through index \(named), not \(scope.collection)/\(scope.index)")
        }
        guard order == (scope.descending ? 1 : 0) else {
            throw HangarError(
                .invalidCursor,
                "The cursor pages in \(order == 1 ? "descending" : "ascending") order, not in this query's order")
        }
        guard digest == scope.rangeDigest else {
            throw HangarError(.invalidCursor, "The cursor pages through another range of index \(scope.index)")
        }
        return (value, keyText)
    }

    private static var unreadable: HangarError {
        HangarError(.invalidCursor, "The cursor is not one this store gave (changed, cut short, or not a cursor)")
    }

    private static func append(_ field: [UInt8], to bytes: inout [UInt8]) {
        bytes += bigEndian(UInt32(field.count))
        bytes += field
    }

    private static func bigEndian<Value: FixedWidthInteger>(_ value: Value) -> [UInt8] {
        (0..<(Value.bitWidth / 8)).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
    }

    /// FNV-1a, 64 bits.
    static func checksum(_ bytes: [UInt8]) -> UInt64 {
        bytes.reduce(0xcbf2_9ce4_8422_2325 as UInt64) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
    }

    private struct FieldReader {
        let bytes: [UInt8]
        var offset: Int
        var atEnd: Bool { offset == bytes.count }

        mutating func byte() -> UInt8? {
            guard offset < bytes.count else { return nil }
            defer { offset += 1 }
            return bytes[offset]
        }

        mutating func field() -> [UInt8]? {
            guard bytes.count - offset >= 4 else { return nil }
            let length = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            offset += 4
            guard bytes.count - offset >= length else { return nil }
            defer { offset += length }
            return Array(bytes[offset..<offset + length])
        }
    }
}

/// What a cursor belongs to: a collection, an index, an order and a range (its bounds' digest).
struct IndexCursorScope {
    let collection: String
    let index: String
    let descending: Bool
    let rangeDigest: [UInt8]
}
