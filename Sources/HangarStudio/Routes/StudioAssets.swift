import Foundation
import HangarHummingbird
import Hummingbird

/// The studio's static files, embedded in the binary (SwiftPM's `embedInCode`): the page shell, the style sheet and
/// the scripts. Served without the token: they hold no data.
enum StudioAssets {
    static func response(_ name: String) throws(HangarHTTPError) -> Response {
        let file: (bytes: [UInt8], type: String)
        switch name {
        case "studio.css": file = (PackageResources.studio_css, "text/css; charset=utf-8")
        case "studio.js": file = (PackageResources.studio_js, "text/javascript; charset=utf-8")
        case "pages.js": file = (PackageResources.pages_js, "text/javascript; charset=utf-8")
        default: throw HangarHTTPError(.notFound, "No such asset")
        }
        return Response(
            status: .ok, headers: [.contentType: file.type, .cacheControl: "no-cache"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: file.bytes)))
    }
}

/// The one HTML shell every page URL answers with; the scripts read the URL and draw the page.
enum StudioPage {
    /// The page URLs after the prefix: the Overview, `collections/C`, `documents/C/K` (`documents/C?key=K` for a
    /// key that is no path segment), `changes`, `sync`, `health`.
    static let paths = [
        "", "collections/:collection", "documents/:collection", "documents/:collection/:key",
        "changes", "sync", "health",
    ]

    static func response(prefix: String, writable: Bool) -> Response {
        let shell = String(decoding: PackageResources.studio_html, as: UTF8.self)
            .replacingOccurrences(of: "{{PREFIX}}", with: escaped(prefix))
            .replacingOccurrences(of: "{{WRITABLE}}", with: writable ? "true" : "false")
        return Response(
            status: .ok, headers: [.contentType: "text/html; charset=utf-8"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: shell)))
    }

    /// `text` safe in an HTML attribute.
    static func escaped(_ text: String) -> String {
        var escaped = ""
        for character in text.unicodeScalars {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.unicodeScalars.append(character)
            }
        }
        return escaped
    }
}
