public import PropertyList

/// Decodes any `Decodable` from a `PropertyList` value, over the value model (not Foundation's decoder).
///
/// - An absent key is `nil` for an optional property and a ``HangarError/Code/missingKey`` error otherwise.
/// - `Date` reads `.date`, `Data` `.data`, `URL` and `UUID` `.string`; integers are range-checked
///   (`-1` into `UInt64`, `2^63` into `Int` are ``HangarError/Code/outOfRange`` errors).
/// - A type that is also ``PropertyListRepresentable`` is read by its own mapping (tagged classes through
///   ``ClassRegistry/current``).
///
/// Errors are ``HangarError``s with the same messages and paths as ``DictionaryReader``'s:
/// `airplanes[1].engineHours: expected integer, found string "12"`. A `DecodingError` thrown by a type's
/// own `init(from:)` is mapped to the matching kind, keeping its coding path and the original as
/// ``HangarError/underlying``.
public struct PropertyListValueDecoder: Sendable {
    /// Values handed to every `init(from:)` as `decoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable]

    /// A decoder with no user info.
    public init(userInfo: [CodingUserInfoKey: any Sendable] = [:]) {
        self.userInfo = userInfo
    }

    /// Reads a `T` from `value`.
    public func decode<T: Decodable>(_ type: T.Type, from value: PropertyList) throws(HangarError) -> T {
        do {
            let decoder = ValueDecoder(value: value, path: .root, userInfo: userInfo)
            return try decoder.unbox(T.self, from: value, at: .root, reusing: decoder)
        } catch let error as HangarError {
            throw error
        } catch {
            throw HangarError(bridging: error, at: .root)
        }
    }
}
