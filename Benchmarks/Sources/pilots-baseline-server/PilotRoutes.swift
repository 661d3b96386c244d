import Foundation
import Hummingbird
import NIOCore

/// The Pilot document as the app's Codable mirror: the pilot's keys beside `majorVersion` / `minorVersion`.
struct PilotDocument: Codable, Sendable {
    var majorVersion: Int
    var minorVersion: Int
    var name: String
    var licenseNumber: String?
    var dateOfBirth: Date?
    var homeAirfield: String?
    var airplanes: [AirplaneRecord]?
}

/// One airplane, every kind in one struct; `class` tells which fields it has.
struct AirplaneRecord: Codable, Sendable {
    enum CodingKeys: String, CodingKey {
        case kind = "class"
        case model, registrationNumber, airframeHours, engineHorsepower, engineHours, aerotowLaunchCount
        case winchLaunchCount
    }

    var kind: String?
    var model: String
    var registrationNumber: String
    var airframeHours: UInt64
    var engineHorsepower: Int?
    var engineHours: UInt64?
    var aerotowLaunchCount: Int?
    var winchLaunchCount: Int?

    /// The checks the app makes by hand: a known kind, with the fields that kind needs.
    var isValid: Bool {
        switch kind ?? "Airplane" {
        case "Airplane": true
        case "PoweredAirplane": engineHorsepower != nil && engineHours != nil
        case "Glider": aerotowLaunchCount != nil && winchLaunchCount != nil
        default: false
        }
    }
}

/// The wire formats, chosen by `Content-Type` (request) and `Accept` (response).
enum WireFormat {
    case binaryPlist, xmlPlist, json

    init?(mediaType: String) {
        let type = mediaType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        switch type.lowercased() {
        case "application/x-plist", "application/x-bplist": self = .binaryPlist
        case "application/xml", "text/xml", "application/x-plist+xml": self = .xmlPlist
        case "application/json": self = .json
        default: return nil
        }
    }

    /// The first format `accept` names; binary plist when it names none we write (or is absent, or `*/*`).
    init(accept: String?) {
        let first = accept?.split(separator: ",").lazy.compactMap { WireFormat(mediaType: String($0)) }.first
        self = first ?? .binaryPlist
    }

    var contentType: String {
        switch self {
        case .binaryPlist: "application/x-plist"
        case .xmlPlist: "application/xml"
        case .json: "application/json"
        }
    }

    func decode(_ data: Data) throws -> PilotDocument {
        switch self {
        case .binaryPlist, .xmlPlist: try PropertyListDecoder().decode(PilotDocument.self, from: data)
        case .json: try JSONDecoder().decode(PilotDocument.self, from: data)
        }
    }

    func encode(_ document: PilotDocument) throws -> Data {
        switch self {
        case .binaryPlist, .xmlPlist:
            let encoder = PropertyListEncoder()
            encoder.outputFormat = self == .binaryPlist ? .binary : .xml
            return try encoder.encode(document)
        case .json:
            return try JSONEncoder().encode(document)
        }
    }
}

/// `GET /pilots/{key}` and `PUT /pilots/{key}` over a ``PilotTable``, with ETags of the revision.
struct PilotRoutes: Sendable {
    let table: any PilotTable

    func add(to router: Router<BasicRequestContext>) {
        router.get("/pilots/:key") { request, context in try await get(request, context: context) }
        router.put("/pilots/:key") { request, context in try await put(request, context: context) }
    }

    func get(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let key = try context.parameters.require("key")
        guard let row = try await table.read(key: key) else { throw HTTPError(.notFound) }
        // Decode the stored body into the model and write it in the format asked for, as an app does.
        let document = try WireFormat.binaryPlist.decode(Data(row.body))
        let format = WireFormat(accept: request.headers[.accept])
        let body = try format.encode(document)
        return Response(
            status: .ok,
            headers: [.eTag: "\"\(row.revision)\"", .contentType: format.contentType],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }

    func put(_ request: Request, context: BasicRequestContext) async throws -> Response {
        let key = try context.parameters.require("key")
        guard let format = request.headers[.contentType].flatMap(WireFormat.init(mediaType:)) else {
            throw HTTPError(.unsupportedMediaType)
        }
        let buffer = try await request.body.collect(upTo: 16 << 20)
        let document: PilotDocument
        do {
            document = try format.decode(Data(buffer.readableBytesView))
        } catch {
            throw HTTPError(.badRequest, message: "not a pilot document: \(error)")
        }
        guard document.majorVersion == 2, document.airplanes?.allSatisfy(\.isValid) ?? true else {
            throw HTTPError(.unprocessableContent, message: "not a version 2 pilot")
        }
        let stored = [UInt8](try WireFormat.binaryPlist.encode(document))
        if request.headers[.ifNoneMatch] == "*" {
            guard let revision = try await table.create(key: key, body: stored) else {
                throw HTTPError(.preconditionFailed)
            }
            return Response(status: .created, headers: [.eTag: "\"\(revision)\""])
        }
        guard let ifMatch = request.headers[.ifMatch] else {
            throw HTTPError(.preconditionRequired, message: "PUT needs If-Match or If-None-Match: *")
        }
        guard let expected = Int64(ifMatch.trimmingCharacters(in: CharacterSet(charactersIn: "\""))),
            let revision = try await table.update(key: key, expected: expected, body: stored)
        else {
            throw HTTPError(.preconditionFailed)
        }
        return Response(status: .ok, headers: [.eTag: "\"\(revision)\""])
    }
}
