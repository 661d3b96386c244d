public import PropertyList

/// The formats a document travels in over HTTP, chosen by `Accept` on the way out and `Content-Type` on the way in.
///
/// | Format | Media types read (`Content-Type`) and accepted (`Accept`) | Written as |
/// |--------|-------------------------------------------------------------|------------|
/// | JSON   | `application/json`                                          | `application/json` |
/// | XML    | `application/x-plist+xml`, `text/xml`, `application/xml`    | `application/x-plist+xml` |
/// | Binary | `application/x-plist`                                       | `application/x-plist` |
///
/// No `Accept` (or `*/*`, `application/*`) means JSON; `text/*` means XML.
public enum BodyFormat: String, Sendable, CaseIterable {
    /// JSON as `plutil -convert json` writes it, dates as ISO-8601 strings and data as base64 (see ``JSONConvention``).
    case json
    /// The XML property list.
    case xml
    /// The binary property list (`bplist00`).
    case binary

    /// The format used when the client states no preference.
    public static let preferred = BodyFormat.json

    /// The `Content-Type` this format is written with.
    public var mediaType: String {
        switch self {
        case .json: "application/json"
        case .xml: "application/x-plist+xml"
        case .binary: "application/x-plist"
        }
    }

    /// The property-list format behind it.
    var propertyListFormat: PropertyListFormat {
        switch self {
        case .json: .json
        case .xml: .xml
        case .binary: .binary
        }
    }

    /// The format a media type (without parameters, lowercased) names; `nil` for one this server does not speak.
    static func named(_ mediaType: String) -> BodyFormat? {
        switch mediaType {
        case "application/json": .json
        case "application/x-plist+xml", "text/xml", "application/xml": .xml
        case "application/x-plist": .binary
        default: nil
        }
    }

    /// The format a `Content-Type` header names (parameters such as `charset` ignored); `nil` when absent or unknown.
    public static func forContentType(_ header: String?) -> BodyFormat? {
        guard let header else { return nil }
        return named(MediaRange.parse(header).first?.type ?? "")
    }

    /// The format to answer in for an `Accept` header: the acceptable one with the highest quality, the first
    /// listed among equals; `nil` when nothing acceptable is offered (406).
    public static func negotiate(accept header: String?) -> BodyFormat? {
        acceptable(accept: header).first
    }

    /// Every format an `Accept` header admits, best first: by quality, the first listed among equals, a wildcard
    /// admitting the formats it covers (``preferred`` first); every format, ``preferred`` first, without a header.
    public static func acceptable(accept header: String?) -> [BodyFormat] {
        let everything = [preferred] + allCases.filter { $0 != preferred }
        guard let header, !header.allSatisfy({ $0 == " " }) else { return everything }
        var ranked: [(format: BodyFormat, quality: Double, order: Int)] = []
        for range in MediaRange.parse(header) where range.quality > 0 {
            let covered: [BodyFormat] =
                switch range.type {
                case "*/*", "application/*": everything
                case "text/*": [.xml]
                default: named(range.type).map { [$0] } ?? []
                }
            for format in covered where !ranked.contains(where: { $0.format == format }) {
                ranked.append((format, range.quality, ranked.count))
            }
        }
        return ranked.sorted { ($0.quality, -$0.order) > ($1.quality, -$1.order) }.map(\.format)
    }

    /// Parses `bytes` in this format; throws the codec's one-line error.
    public func decode(_ bytes: [UInt8]) throws(PropertyListError) -> PropertyList {
        switch self {
        case .json: try PropertyList(json: bytes)
        case .xml: try PropertyList(xml: bytes)
        case .binary: try PropertyList(binary: bytes)
        }
    }

    /// `value` in this format; JSON writes dates and data as strings (``JSONConvention``).
    public func encode(_ value: PropertyList) throws(PropertyListError) -> [UInt8] {
        try value.encoded(
            as: propertyListFormat, options: EncodingOptions(json: JSONEncodingOptions(lossyDatesAndData: true)))
    }
}

/// One media range of an `Accept` header (`type/subtype;q=0.5`), lowercased, with its quality.
struct MediaRange: Equatable {
    /// `type/subtype`, lowercased, without parameters.
    let type: String
    /// The `q` parameter, 1 when absent.
    let quality: Double

    /// Every range in a header, in order.
    static func parse(_ header: String) -> [MediaRange] {
        header.split(separator: ",").compactMap { item in
            let parts = item.split(separator: ";").map { $0.trimmingSpaces().lowercased() }
            guard let type = parts.first, !type.isEmpty else { return nil }
            var quality = 1.0
            for parameter in parts.dropFirst() where parameter.hasPrefix("q=") {
                quality = Double(parameter.dropFirst(2)) ?? 0
            }
            return MediaRange(type: type, quality: quality)
        }
    }

    /// What `choose` maps the best acceptable range of `header` to: the highest quality above 0, the first
    /// listed among equals.
    static func best<Choice>(in header: String, _ choose: (String) -> Choice?) -> Choice? {
        var best: (choice: Choice, quality: Double)?
        for range in parse(header) where range.quality > 0 {
            guard let choice = choose(range.type) else { continue }
            if best == nil || range.quality > (best?.quality ?? 0) { best = (choice, range.quality) }
        }
        return best?.choice
    }
}

extension Substring {
    /// Without leading and trailing spaces and tabs.
    func trimmingSpaces() -> Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let start = firstIndex(where: { !isSpace($0) }), let end = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return self[start...end]
    }
}
