import Foundation

/// A path segment's percent-encoding (RFC 3986 §2.1), for every route of the HTTP layer: the document routes, Hangar
/// Sync's and Hangar Studio's. A segment is decoded once, after routing, so `a%2Fb` is one segment holding `/`;
/// the decoded text keeps its bytes (`caf%C3%A9` and `cafe%CC%81` are two keys).
package enum PathSegment {
    /// `segment` percent-decoded; 400 naming `what` when it has a bad escape, is not UTF-8 or holds NUL.
    package static func decoded(_ segment: String, what: String) throws(HangarHTTPError) -> String {
        guard let decoded = segment.removingPercentEncoding, !decoded.utf8.contains(0) else {
            throw HangarHTTPError(
                .badRequest, "The \(what) in the path is not percent-encoded UTF-8 text without NUL")
        }
        return decoded
    }

    /// `text` with every byte but RFC 3986's unreserved ones percent-encoded.
    package static func encoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }

    private static let unreserved = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
}
