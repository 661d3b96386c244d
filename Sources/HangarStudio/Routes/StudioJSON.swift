import Foundation
import Hummingbird
import PropertyList

/// JSON answers, built as property-list dictionaries (keys sorted) and written by the PropertyList JSON writer.
enum StudioJSON {
    /// `value` as a JSON answer with `status`.
    static func response(_ value: PropertyList.Dictionary, status: HTTPResponse.Status = .ok) -> Response {
        let bytes: [UInt8]
        do {
            bytes = try PropertyList.dictionary(value).encoded(as: .json)
        } catch {
            let fallback = "{\"error\":\"The answer cannot be written as JSON\"}"
            return Response(
                status: .internalServerError, headers: [.contentType: "application/json"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: fallback)))
        }
        return Response(
            status: status, headers: [.contentType: "application/json; charset=utf-8"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// An integer for JSON.
    static func int(_ value: Int) -> PropertyList { .integer(.init(value)) }

    /// A date as ISO 8601 text with milliseconds (UTC), as the pages show it.
    static func date(_ date: Date) -> PropertyList {
        .string(PropertyList.iso8601Text(forDate: date.timeIntervalSinceReferenceDate, fractionDigits: 3) ?? "")
    }

    /// An optional string, or `false` when absent (JSON has no distinct `nil` here).
    static func optional(_ text: String?) -> PropertyList { text.map { .string($0) } ?? .boolean(false) }

    /// A version as `major.minor`.
    static func version(_ major: Int, _ minor: Int) -> PropertyList { .string("\(major).\(minor)") }
}
