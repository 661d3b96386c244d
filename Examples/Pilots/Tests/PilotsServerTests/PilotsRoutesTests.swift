import Foundation
import Hangar
import HangarTestSupport
import PropertyList
import Testing

/// The routes in process: `buildApplication` over a fresh store of each engine, requests handed to its router
/// (HummingbirdTesting `.router`): the statuses, headers and bodies scripts depend on.
@Suite struct PilotsRoutesTests {
    /// A JSON body read back the way the server writes it: dates at the model's date keys restored.
    static func parseJSON(_ bytes: [UInt8]) throws -> PropertyList {
        guard case .dictionary(var entries) = try PropertyList(json: bytes) else { return .array([]) }
        if case .string(let text)? = entries["dateOfBirth"], let seconds = PropertyList.date(fromISO8601Text: text) {
            entries["dateOfBirth"] = .date(seconds)
        }
        return .dictionary(entries)
    }

    @Test(arguments: Engine.available) func createThenReadInEveryFormat(_ engine: Engine) async throws {
        try await InProcessServer(engine).test { client in
            let document = Pilots.document(name: "Ada")
            let created = try await client.put(document, key: "ada")
            #expect(created.status == 201)
            #expect(created.etag == "\"1\"")
            #expect(created.headers["location"] == "/pilots/ada")
            let again = try await client.put(document, key: "ada")
            #expect(again.status == 200)
            #expect(again.etag == "\"2\"")

            let json = try await client.send(.get, "/pilots/ada")
            #expect(json.status == 200)
            #expect(json.headers["content-type"] == "application/json")
            #expect(json.etag == "\"2\"")
            #expect(try Self.parseJSON(json.body) == document)
            let birth = PropertyList.iso8601Text(forDate: -534_384_000.5, fractionDigits: 6) ?? "?"
            #expect(birth.hasSuffix(":59.5Z"))
            #expect(json.text.contains("\"dateOfBirth\":\"\(birth)\""))

            let xml = try await client.send(.get, "/pilots/ada", headers: ["Accept": "text/xml"])
            #expect(xml.headers["content-type"] == "application/x-plist+xml")
            // XML plists carry whole seconds (as Apple's XML writer does): the half second is the only difference.
            guard case .dictionary(var wholeSeconds) = document else { return }
            wholeSeconds["dateOfBirth"] = .date(-534_384_001)
            #expect(try PropertyList(xml: xml.body) == .dictionary(wholeSeconds))

            let binary = try await client.send(.get, "/pilots/ada", headers: ["Accept": "application/x-plist"])
            #expect(binary.headers["content-type"] == "application/x-plist")
            #expect(Array(binary.body.prefix(6)) == Array("bplist".utf8))
            #expect(try PropertyList(binary: binary.body) == document)

            let preferred = try await client.send(
                .get, "/pilots/ada", headers: ["Accept": "application/json;q=0.5, application/x-plist"])
            #expect(preferred.headers["content-type"] == "application/x-plist")

            let missing = try await client.send(.get, "/pilots/nobody")
            #expect(missing.status == 404)
            #expect(missing.text == "{\"error\":\"pilots/nobody: no such document\"}\n")
            // An Accept the API does not write: the error itself is one line of text.
            let plain = try await client.send(.get, "/pilots/nobody", headers: ["Accept": "text/plain"])
            #expect(plain.status == 406)
            #expect(plain.headers["content-type"] == "text/plain; charset=utf-8")
            #expect(plain.text.hasPrefix("None of the types in Accept is served: use application/json"))
            #expect(plain.text.split(separator: "\n").count == 1)
        }
    }

    @Test(arguments: Engine.available) func revisionsAreETagsForConditionalRequests(_ engine: Engine) async throws {
        try await InProcessServer(engine).test { client in
            #expect(try await client.put(Pilots.document(name: "Ada"), key: "ada").etag == "\"1\"")
            let updated = try await client.put(
                Pilots.document(name: "Ada", hours: 2), key: "ada", headers: ["If-Match": "\"1\""])
            #expect(updated.status == 200)
            #expect(updated.etag == "\"2\"")
            let stale = try await client.put(
                Pilots.document(name: "Ada", hours: 3), key: "ada", headers: ["If-Match": "\"1\""])
            #expect(stale.status == 412)
            #expect(stale.etag == "\"2\"")
            #expect(
                try await client.put(Pilots.document(name: "X"), key: "ada", headers: ["If-None-Match": "*"]).status
                    == 412)
            #expect(
                try await client.put(Pilots.document(name: "X"), key: "bo", headers: ["If-Match": "*"]).status == 412)
            // One revision named (the write's own check decides): a missing document is 412 with no ETag, and
            // revision 0 matches nothing either (it never creates).
            for tag in ["\"1\"", "\"0\""] {
                let missing = try await client.put(Pilots.document(name: "X"), key: "bo", headers: ["If-Match": tag])
                #expect(missing.status == 412)
                #expect(missing.etag == nil)
            }
            #expect(
                try await client.put(Pilots.document(name: "Bo"), key: "bo", headers: ["If-None-Match": "*"]).status
                    == 201)

            let notModified = try await client.send(.get, "/pilots/ada", headers: ["If-None-Match": "\"2\""])
            #expect(notModified.status == 304)
            #expect(notModified.etag == "\"2\"")
            #expect(notModified.body.isEmpty)
            #expect(try await client.send(.get, "/pilots/ada", headers: ["If-None-Match": "\"1\""]).status == 200)
            let read = try await client.send(.get, "/pilots/ada")
            #expect(try Self.parseJSON(read.body) == Pilots.document(name: "Ada", hours: 2))

            #expect(try await client.send(.delete, "/pilots/ada", headers: ["If-Match": "\"1\""]).status == 412)
            #expect(try await client.send(.delete, "/pilots/ada", headers: ["If-Match": "\"2\""]).status == 204)
            #expect(try await client.send(.get, "/pilots/ada").status == 404)
            #expect(try await client.send(.delete, "/pilots/ada").status == 404)
        }
    }

    @Test(arguments: Engine.available) func historyAndKeptRevisions(_ engine: Engine) async throws {
        try await InProcessServer(engine).test { client in
            for hours in 1...3 { _ = try await client.put(Pilots.document(name: "Ada", hours: hours), key: "ada") }
            let history = try await client.send(.get, "/pilots/ada/history")
            #expect(history.status == 200)
            #expect(history.etag == "\"3\"")
            let revisions = try PropertyList(json: history.body).dictionaryValue?["revisions"]?.arrayValue ?? []
            #expect(revisions.compactMap { $0.dictionaryValue?["revision"] } == [1, 2, 3])
            #expect(revisions.last?.dictionaryValue?["current"] == true)
            let first = try await client.send(
                .get, "/pilots/ada/revisions/1", headers: ["Accept": "application/x-plist"])
            #expect(first.status == 200)
            #expect(first.etag == "\"1\"")
            #expect(try PropertyList(binary: first.body) == Pilots.document(name: "Ada", hours: 1))
            #expect(try await client.send(.get, "/pilots/ada/revisions/9").status == 404)
            let notANumber = try await client.send(.get, "/pilots/ada/revisions/x")
            #expect(notANumber.status == 400)
            #expect(try PropertyList(json: notANumber.body).dictionaryValue?["error"] != nil)
            #expect(try await client.send(.get, "/pilots/bo/history").status == 404)
            // A path no route has is the router's own 404, not an answer of the API.
            #expect(try await client.send(.get, "/airfields").status == 404)
        }
    }

    @Test(arguments: Engine.available) func listingIsPagedAndFiltered(_ engine: Engine) async throws {
        try await InProcessServer(engine).test { client in
            for (key, field) in [("a", "ESSB"), ("b", "ESSA"), ("c", "ESSB")] {
                _ = try await client.put(Pilots.document(name: key, airfield: field), key: key)
            }
            let page = try PropertyList(json: try await client.send(.get, "/pilots?limit=2").body)
            #expect(page.dictionaryValue?["keys"] == ["a", "b"])
            #expect(page.dictionaryValue?["nextOffset"] == 2)
            let rest = try PropertyList(json: try await client.send(.get, "/pilots?limit=2&offset=2").body)
            #expect(rest.dictionaryValue?["keys"] == ["c"])
            #expect(rest.dictionaryValue?["nextOffset"] == nil)
            let indexed = try await client.send(.get, "/pilots?index=homeAirfield&value=ESSB")
            #expect(try PropertyList(json: indexed.body).dictionaryValue?["keys"] == ["a", "c"])
            let registration = try await client.send(.get, "/pilots?index=airplanes.registrationNumber&value=SE-KMP")
            #expect(try PropertyList(json: registration.body).dictionaryValue?["keys"] == ["a", "b", "c"])
            let tagged = try await client.send(.get, "/pilots?class=Nothing")
            #expect(try PropertyList(json: tagged.body).dictionaryValue?["keys"] == [])
            #expect(try await client.send(.get, "/pilots?index=nope&value=1").status == 400)
            #expect(try await client.send(.get, "/pilots?limit=0").status == 400)
        }
    }

    /// The server's compound index (home airfield, then name) and its index of every airplane's hours, paged
    /// with the cursors the server gives.
    @Test(arguments: Engine.available) func theDeclaredIndexesPageWithCursors(_ engine: Engine) async throws {
        try await InProcessServer(engine).test { client in
            let pilots =
                [("p1", "Cy", "ESSB", 300), ("p2", "Ann", "ESSB", 100), ("p3", "Bo", "ESSA", 200)]
                + [("p4", "Di", "ESSB", 400)]
            for (key, name, field, hours) in pilots {
                _ = try await client.put(Pilots.document(name: name, hours: hours, airfield: field), key: key)
            }
            func answer(_ path: String) async throws -> PropertyList.Dictionary {
                let response = try await client.send(.get, path)
                #expect(response.status == 200, "\(path): \(response.text)")
                return try PropertyList(json: response.body).dictionaryValue ?? [:]
            }
            let first = try await answer("/pilots?index=homeAirfieldName&prefix=ESSB&limit=2")
            #expect(first["keys"] == ["p2", "p1"])
            guard case .string(let next)? = first["next"] else {
                Issue.record("no next cursor: \(first)")
                return
            }
            let second = try await answer("/pilots?index=homeAirfieldName&prefix=ESSB&limit=2&after=\(next)")
            #expect(second["keys"] == ["p4"] && second["next"] == nil)
            let byName = try await answer("/pilots?index=homeAirfieldName&value=%5B%22ESSB%22,%22Cy%22%5D")
            #expect(byName["keys"] == ["p1"])
            let hours = try await answer("/pilots?index=airframeHours&from=150&order=desc&limit=3")
            #expect(hours["keys"] == ["p4", "p1", "p3"] && hours["next"] == nil)
            #expect(try await answer("/pilots?index=airframeHours&to=250&count=true")["count"] == 2)
            let elsewhere = try await client.send(.get, "/pilots?index=airframeHours&from=150&after=\(next)")
            #expect(elsewhere.status == 400)
        }
    }

    @Test(arguments: Engine.available) func badBodiesAreRefusedWithTheirReason(_ engine: Engine) async throws {
        var document = Pilots.document(name: "Ada")
        guard case .dictionary(var entries) = document, case .array(var planes)? = entries["airplanes"],
            case .dictionary(var plane) = planes[0]
        else { throw HarnessFailure("fixture shape") }
        plane["airframeHours"] = "12"
        planes[0] = .dictionary(plane)
        entries["airplanes"] = .array(planes)
        document = .dictionary(entries)
        try await InProcessServer(engine).test { [document] client in
            let wrongType = try await client.put(document, key: "ada", headers: ["Accept": "text/plain"])
            #expect(wrongType.status == 400)
            #expect(wrongType.text.contains("airplanes[0].airframeHours: expected integer, found string \"12\""))
            #expect(wrongType.text.split(separator: "\n").count == 1)

            let json = ["Content-Type": "application/json"]
            let broken = try await client.send(.put, "/pilots/ada", headers: json, body: Array("{\"name\": ".utf8))
            #expect(broken.status == 400)
            let noVersion = try await client.send(
                .put, "/pilots/ada", headers: json, body: Array("{\"name\":\"A\"}".utf8))
            #expect(noVersion.status == 400)
            #expect(noVersion.text.contains("majorVersion"))
            let badDate = try await client.send(
                .put, "/pilots/ada", headers: json,
                body: Array(#"{"majorVersion":2,"minorVersion":0,"name":"A","dateOfBirth":"yesterday"}"#.utf8))
            #expect(badDate.status == 400)
            #expect(badDate.text.contains("dateOfBirth"))

            let unknownType = try await client.send(
                .put, "/pilots/ada", headers: ["Content-Type": "text/plain"],
                body: try Pilots.json(Pilots.document(name: "A")))
            #expect(unknownType.status == 415)
            #expect(try await client.send(.get, "/pilots", headers: ["Accept": "image/png"]).status == 406)
            let large = try await client.send(
                .put, "/pilots/ada", headers: json, body: Array(repeating: UInt8(ascii: " "), count: 5000))
            #expect(large.status == 413)
            #expect(try await client.send(.get, "/pilots/ada").status == 404)
        }
    }

    @Test(arguments: Engine.available) func anOldBodyIsMigratedOnTheWayIn(_ engine: Engine) async throws {
        let old = try [UInt8](
            Data(contentsOf: URL(fileURLWithPath: repositoryRoot + "/Migrations/Pilots/1.0/ada.xml")))
        try await InProcessServer(engine).test { client in
            let put = try await client.send(.put, "/pilots/ada", headers: ["Content-Type": "text/xml"], body: old)
            #expect(put.status == 201)
            let read = try Self.parseJSON(try await client.send(.get, "/pilots/ada").body)
            #expect(read.dictionaryValue?["majorVersion"] == 2)
            let planes = read.dictionaryValue?["airplanes"]?.arrayValue ?? []
            #expect(planes.map { $0.dictionaryValue?["class"] } == ["Airplane", "PoweredAirplane", "Glider"])
            #expect(planes.first?.dictionaryValue?["registrationNumber"] == "SE-GHK")
            #expect(planes.first?.dictionaryValue?["airframeHours"] == 7350)
        }
    }

    @Test(arguments: Engine.available) func newerMajorsAreRefusedAndNeverOverwritten(_ engine: Engine) async throws {
        var future = Pilots.document(name: "Future")
        if case .dictionary(var entries) = future {
            entries["majorVersion"] = 3
            future = .dictionary(entries)
        }
        let server = try InProcessServer(engine)
        let before = try await server.withStore { try await Self.saveOverwriting(future, key: "future", in: $0) }
        try await server.test { [future] client in
            let newer = try await client.put(future, key: "other")
            #expect(newer.status == 422)
            #expect(try await client.send(.get, "/pilots/future").status == 409)
            #expect(try await client.put(Pilots.document(name: "Now"), key: "future").status == 409)
            #expect(try await client.send(.delete, "/pilots/future").status == 409)
        }
        let after = try await server.withStore { try await Self.stored(["future", "other"], in: $0) }
        #expect(after.first??.body == before)
        #expect(after.first??.revision == 1)
        #expect(after.count == 2 && after[1] == nil)
    }

    /// Saves `envelope` at `key` whatever major it has; returns the stored body.
    static func saveOverwriting(_ envelope: PropertyList, key: String, in store: some DocumentStore) async throws
        -> [UInt8]?
    {
        try await store.write {
            try await $0.save(
                envelope: envelope, key: key, in: "pilots", expectedRevision: nil, overwritingNewerMajor: true)
        }
        return try await store.document(in: "pilots", key: key)?.body
    }

    /// The stored pilots at `keys` (nil: none).
    static func stored(_ keys: [String], in store: some DocumentStore) async throws -> [StoredDocument?] {
        var documents: [StoredDocument?] = []
        for key in keys { documents.append(try await store.document(in: "pilots", key: key)) }
        return documents
    }

    @Test(arguments: Engine.available) func changesAsJSONLines(_ engine: Engine) async throws {
        try await InProcessServer(engine).test { client in
            _ = try await client.put(Pilots.document(name: "Ada"), key: "ada")
            _ = try await client.put(Pilots.document(name: "Bo"), key: "bo")
            _ = try await client.send(.delete, "/pilots/ada")
            let all = try await client.send(.get, "/changes?since=0")
            #expect(all.headers["content-type"] == "application/x-ndjson")
            let lines = try all.text.split(separator: "\n").map { try PropertyList(json: Array($0.utf8)) }
            #expect(lines.map { $0.dictionaryValue?["sequence"] } == [1, 2, 3])
            #expect(lines.map { $0.dictionaryValue?["kind"] } == ["save", "save", "delete"])
            #expect(lines.map { $0.dictionaryValue?["key"] } == ["ada", "bo", "ada"])
            let one = try await client.send(.get, "/changes?since=1&limit=1")
            #expect(one.text.split(separator: "\n").count == 1)
            #expect(one.text.contains("\"sequence\":2"))
            #expect(try await client.send(.get, "/changes", headers: ["Accept": "image/png"]).status == 406)
        }
    }

    @Test(arguments: Engine.available) func prunedChangesAreGone(_ engine: Engine) async throws {
        let server = try InProcessServer(engine)
        var configuration = StoreConfiguration.pilotsServer()
        configuration.changeRetention = ChangeRetention(maximumCount: 1, maximumAge: nil)
        try await server.withStore(configuration) { try await Self.saveFive(in: $0) }
        try await server.test { client in
            let gone = try await client.send(.get, "/changes?since=0")
            #expect(gone.status == 410)
            let stream = try await client.send(.get, "/changes?since=0", headers: ["Accept": "text/event-stream"])
            #expect(stream.status == 410)
            #expect(try await client.send(.get, "/changes?since=4").status == 200)
        }
    }

    /// Saves pilots `p0` … `p4`, one transaction each.
    static func saveFive(in store: some DocumentStore) async throws {
        for index in 0..<5 {
            try await store.write {
                try await $0.save(envelope: Pilots.document(name: "P"), key: "p\(index)", in: "pilots")
            }
        }
    }

    @Test(arguments: Engine.available) func healthNamesTheEngine(_ engine: Engine) async throws {
        try await InProcessServer(engine).test { client in
            _ = try await client.put(Pilots.document(name: "Ada"), key: "ada")
            let health = try await client.send(.get, "/health")
            #expect(health.status == 200)
            let report = try PropertyList(json: health.body).dictionaryValue
            #expect(report?["engine"] == .string(engine.rawValue))
            #expect(report?["status"] == "ok")
            #expect((report?["schemaVersion"]?.integerValue?.exactly(Int.self) ?? 0) > 0)
            #expect(report?["lastChangeSequence"] == 1)
            // No metrics text was given to this application.
            #expect(try await client.send(.get, "/metrics").status == 404)
        }
    }
}
