public import PropertyList

/// Encodes any `Encodable` into a `PropertyList` value, over the value model (not Foundation's encoder).
///
/// - Optionals that are `nil` become absent keys; a `nil` in an array or at the top is an
///   ``HangarError/Code/unrepresentable`` error, since property lists have no null.
/// - `Date` becomes `.date`, `Data` `.data`, `URL` and `UUID` `.string`; every integer type up to 64 bits
///   becomes `.integer`, `UInt64` values above `Int64.max` included.
/// - A value that is also ``PropertyListRepresentable`` is written by its own mapping (registered classes
///   get their `"class"` tags from ``ClassRegistry/current``).
///
/// Errors are ``HangarError``s whose path is the coding path, `pilots[0].name`; an error thrown by a type's
/// own `encode(to:)` is wrapped as ``HangarError/Code/invalidValue`` with that error as ``HangarError/underlying``.
public struct PropertyListValueEncoder: Sendable {
    /// Values handed to every `encode(to:)` as `encoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable]

    /// An encoder with no user info.
    public init(userInfo: [CodingUserInfoKey: any Sendable] = [:]) {
        self.userInfo = userInfo
    }

    /// The property-list value of `value`.
    public func encode(_ value: some Encodable) throws(HangarError) -> PropertyList {
        do {
            return try ValueEncoder(path: .root, userInfo: userInfo).box(value, at: .root).finalized()
        } catch let error as HangarError {
            throw error
        } catch {
            throw HangarError(bridging: error, at: .root)
        }
    }
}
