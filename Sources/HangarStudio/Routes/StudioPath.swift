import Foundation

/// A request's path inside the studio: its segments after the prefix, each percent-decoded (RFC 3986 §2.1), so a
/// key holding `/` is one segment (`a%2Fb`).
struct StudioPath: Sendable {
    /// The segments after the prefix, decoded; empty for the Overview.
    let segments: [String]

    /// The path of `rawPath` inside `prefix`, or `nil` when it is not the studio's. A segment that is not
    /// percent-encoded UTF-8 without NUL is kept undecoded, so the route that reads it answers 400.
    init?(_ rawPath: String, prefix: String) {
        var rest = Substring(rawPath)
        if !prefix.isEmpty {
            guard rest.utf8.starts(with: prefix.utf8) else { return nil }
            rest = rest.dropFirst(prefix.count)
            guard rest.isEmpty || rest.utf8.first == UInt8(ascii: "/") else { return nil }
        }
        let raw = rest.split(separator: "/", omittingEmptySubsequences: true)
        segments = raw.map { String($0) }
    }

    /// Segment `index` percent-decoded; 400 naming `what` when missing, badly escaped, not UTF-8 or holding NUL.
    func decoded(_ index: Int, what: String) throws(StudioError) -> String {
        guard index < segments.count else { throw StudioError(.badRequest, "The path names no \(what)") }
        return try StudioPath.decode(segments[index], what: what)
    }

    /// `segment` percent-decoded; 400 naming `what` when it has a bad escape, is not UTF-8 or holds NUL.
    static func decode(_ segment: String, what: String) throws(StudioError) -> String {
        guard let decoded = segment.removingPercentEncoding, !decoded.utf8.contains(0) else {
            throw StudioError(.badRequest, "The \(what) in the path is not percent-encoded UTF-8 text without NUL")
        }
        return decoded
    }

    /// `text` with every byte but RFC 3986's unreserved ones percent-encoded: one path segment.
    static func encode(_ text: String) -> String {
        var encoded = ""
        for byte in text.utf8 {
            if unreserved.contains(byte) {
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                encoded += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return encoded
    }

    private static let unreserved: Set<UInt8> = Set(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~".utf8)
}

extension String {
    /// The string with `0`s before it up to `width` characters.
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
