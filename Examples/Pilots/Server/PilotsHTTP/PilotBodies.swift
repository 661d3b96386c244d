import Hangar
import PilotModels
import PropertyList

/// A pilot a client sent, checked and brought to the current format: what a PUT saves.
struct IncomingPilot {
    /// The pilot, as the model reads it.
    let pilot: Pilot
    /// The envelope to save as it is, for a body of a newer minor (its keys this server does not know are
    /// kept); `nil` to save ``pilot`` through the model (which keeps a stored newer minor's keys).
    let newerMinorEnvelope: PropertyList?
}

/// Reading pilot documents from request bodies and writing them into responses, with the store's own envelope
/// and migration machinery (``DocumentFormat/open(_:name:observer:)``, the class registry).
struct PilotBodies: Sendable {
    /// The store's configuration: the registry and the migration observer.
    let configuration: StoreConfiguration
    /// How JSON carries dates and data.
    let jsonConvention: JSONConvention

    private var format: DocumentFormat { Pilot.format }

    /// A request body as a pilot: parsed in `bodyFormat`, its version checked (a newer major is 422), an older
    /// major migrated, and decoded as a `Pilot` (a value it rejects is 400 naming the path).
    func read(_ bytes: [UInt8], as bodyFormat: BodyFormat, key: String) throws(APIError) -> IncomingPilot {
        var value: PropertyList
        do {
            value = try bodyFormat.decode(bytes)
        } catch {
            throw APIError(.badRequest, "The body is not valid \(bodyFormat.rawValue.uppercased()): \(error)")
        }
        if bodyFormat == .json { value = try jsonConvention.restoringTypes(in: value) }
        let version: DocumentVersion
        do {
            version = try format.version(of: value)
        } catch {
            throw APIError(.badRequest, "The body is not a pilot document: \(error)")
        }
        if version.major > format.current.major {
            throw APIError(
                .unprocessableContent,
                "The body's major version \(version.major) is newer than this server reads (\(format.current.major))")
        }
        let opened: OpenedDocument
        let pilot: Pilot
        do {
            opened = try format.open(value, observer: configuration.migrationObserver)
            pilot = try configuration.registry.decode(Pilot.self, from: .dictionary(opened.content))
        } catch {
            throw APIError(.badRequest, error.description)
        }
        let isNewerMinor = version.major == format.current.major && version.minor > format.current.minor
        return IncomingPilot(
            pilot: pilot, newerMinorEnvelope: isNewerMinor ? format.seal(opened.content, version: version) : nil)
    }

    /// A stored pilot as a client reads it: migrated to the current major when older (a newer minor keeps its
    /// version and keys). A stored newer major is 409 and left as it is; a document the model cannot read is 500.
    func envelope(of stored: StoredDocument) throws(APIError) -> PropertyList {
        let opened: OpenedDocument
        do {
            opened = try format.open(
                try stored.envelope(), name: "\(stored.collection)/\(stored.key)",
                observer: configuration.migrationObserver)
            _ = try configuration.registry.decode(Pilot.self, from: .dictionary(opened.content))
        } catch let error where error.code == .newerMajor {
            throw APIError(.conflict, "\(stored.collection)/\(stored.key): \(error.reason)")
        } catch {
            throw APIError(.internalServerError, "\(stored.collection)/\(stored.key): \(error.description)")
        }
        let version = opened.storedVersion.major == format.current.major ? opened.storedVersion : format.current
        return format.seal(opened.content, version: version)
    }

    /// Refuses (409) to write over or delete a stored document of a newer major than this server reads.
    func checkWritable(_ stored: StoredDocument?) throws(APIError) {
        guard let stored, stored.version.major > format.current.major else { return }
        throw APIError(
            .conflict,
            "\(stored.collection)/\(stored.key): stored at major version \(stored.version.major), newer than this "
                + "server writes (\(format.current.major)); it is left as it is")
    }
}
