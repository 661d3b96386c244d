import Foundation
import Hangar
import HangarSQLite
import PropertyList

/// The checks that load and save documents with today's code.
extension FormatHistory {
    /// A store as an app on this format opens it: the registry, the collection's format.
    func makeStore(path: String? = nil) throws(HangarError) -> SQLiteStore {
        var configuration = StoreConfiguration()
        configuration.registry = registry
        configuration.collections[Model.collection] = CollectionOptions(format: Model.format)
        if let path { return try SQLiteStore(path: path, store: configuration) }
        return try SQLiteStore.inMemory(store: configuration)
    }

    /// What each frozen document loads as today, through a real store: the envelope today's code writes for it.
    func loadedToday(_ files: FrozenFiles) -> [(
        document: FrozenFiles.Document, result: Result<PropertyList, HangarError>
    )] {
        let store: SQLiteStore
        do {
            store = try makeStore()
        } catch {
            return files.documents.map { ($0, .failure(error)) }
        }
        return files.documents.map { document in
            let key = "\(document.version)/\(document.name)"
            do {
                try store.write { try $0.save(envelope: document.value, key: key, in: Model.collection) }
                guard let loaded = try store.read({ try $0.load(Model.self, key: key) }) else {
                    return (document, .failure(HangarError(.notFound, "the saved document is not there")))
                }
                let content = registry.encode(loaded.value).dictionaryValue ?? [:]
                return (document, .success(Model.format.seal(content)))
            } catch let error as HangarError {
                return (document, .failure(error))
            } catch {
                return (document, .failure(HangarError(.io, "\(error)")))
            }
        }
    }

    /// Every frozen document loads and equals its expectation (`EXPECTATION_CHANGED`, `EXPECTATION_MISSING`).
    func checkExpectations(_ files: FrozenFiles, in location: FormatFolder) -> [FormatProblem] {
        var problems: [FormatProblem] = []
        for (document, result) in loadedToday(files) {
            let version = "\(document.version)"
            let path = FormatFolder.expectationPath(document.version, document.name)
            let source = FormatFolder.plistPath(document.version, document.name)
            let today: PropertyList
            switch result {
            case .failure(let error):
                problems.append(
                    FormatProblem(
                        .expectationChanged, version: version, path: source,
                        "no longer loads with today's code: \(error.description)"))
                continue
            case .success(let value): today = value
            }
            let expected: PropertyList
            switch location.read(path) {
            case .missing:
                problems.append(
                    FormatProblem(
                        .expectationMissing, version: version, path: path,
                        "no expectation: run `HANGAR_FREEZE=expectations swift test` and review the diff"))
                continue
            case .unreadable(let reason):
                problems.append(FormatProblem(.expectationMissing, version: version, path: path, reason))
                continue
            case .bytes(let bytes):
                guard let value = try? PropertyList(xml: bytes) else {
                    problems.append(
                        FormatProblem(.expectationChanged, version: version, path: path, "is not an XML property list"))
                    continue
                }
                expected = value
            }
            for difference in ValueDifference.all(from: expected, to: today).prefix(20) {
                problems.append(
                    FormatProblem(
                        .expectationChanged, version: version, path: path,
                        "\(difference); if intended, run `HANGAR_FREEZE=expectations swift test` and review the diff"))
            }
        }
        return problems
    }

    /// Rewrites `expected/` from what today's code loads; the problems are documents that no longer load.
    func writeExpectations(_ files: FrozenFiles, in location: FormatFolder) -> [FormatProblem] {
        var problems: [FormatProblem] = []
        for (document, result) in loadedToday(files) {
            guard case .success(let today) = result else { continue }  // checkExpectations reports it.
            let path = FormatFolder.expectationPath(document.version, document.name)
            do {
                try location.write(today.encoded(as: .xml), to: path)
            } catch {
                problems.append(
                    FormatProblem(.expectationMissing, version: "\(document.version)", path: path, "\(error)"))
            }
        }
        return problems
    }

    /// The samples against the current version's frozen files (`WRITER_CHANGED`) and today's shape against its
    /// frozen shape (`SHAPE_CHANGED_WITHOUT_VERSION`); `reportAs` names another rule for both (a freeze's
    /// `FROZEN_VERSION`). Nothing when the current version is not frozen (`NOT_FROZEN` says so).
    func checkCurrent(
        today: TodaysDocuments, manifest: FormatManifest, files: FrozenFiles, reportAs rule: FormatRule?
    ) -> [FormatProblem] {
        let current = Model.format.current
        guard let frozen = manifest.frozen(current) else { return [notFrozen()] }
        let bump = "\(current) is frozen; bump the version to change the format"
        var problems: [FormatProblem] = []
        let documents = files.documents(of: current)
        if documents.count == frozen.documents.count, frozen.documents.count != today.documents.count {
            problems.append(
                FormatProblem(
                    rule ?? .writerChanged, version: "\(current)", path: "\(current)",
                    "\(today.documents.count) samples, \(frozen.documents.count) frozen documents: \(bump)"))
        }
        for (sample, document) in zip(today.documents, documents) {
            let path = FormatFolder.plistPath(current, document.name)
            if let difference = ValueDifference.all(from: document.value, to: sample.envelope).first {
                problems.append(
                    FormatProblem(rule ?? .writerChanged, version: "\(current)", path: path, "\(difference): \(bump)"))
            } else if frozen.isHangarWritten, sample.binary != document.bytes {
                let offset =
                    zip(sample.binary, document.bytes).enumerated().first { $0.element.0 != $0.element.1 }?.offset
                    ?? min(sample.binary.count, document.bytes.count)
                problems.append(
                    FormatProblem(
                        rule ?? .writerChanged, version: "\(current)", path: path,
                        "the same value, but the bytes differ from byte \(offset): the binary writer changed"))
            }
        }
        for difference in FormatShape.differences(from: frozen.shape, to: today.shape) {
            problems.append(
                FormatProblem(
                    rule ?? .shapeChangedWithoutVersion, version: "\(current)", path: difference.path,
                    "\(difference.message): \(bump)"))
        }
        return problems
    }

    /// A document of a newer minor, saved by today's code through a real store, keeps the keys it added.
    func checkUnknownKeys(today: TodaysDocuments) -> [FormatProblem] {
        let current = Model.format.current
        guard var envelope = today.documents.first?.envelope.dictionaryValue else { return [] }
        let key = "hangarTestingNewerMinorKey"
        let added: PropertyList = ["addedBy": "a newer minor", "count": 1]
        envelope[DocumentFormat.minorKey] = .integer(.init(current.minor + 1))
        envelope[key] = added
        let folder = NSTemporaryDirectory() + "/hangar-testing-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let problem = { (message: String) in
            FormatProblem(.unknownKeyDropped, version: "\(current.major).\(current.minor + 1)", path: key, message)
        }
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let store = try makeStore(path: folder + "/store.sqlite")
            try store.write { try $0.save(envelope: .dictionary(envelope), key: "newer", in: Model.collection) }
            guard let loaded = try store.read({ try $0.load(Model.self, key: "newer") }) else {
                return [problem("the saved document is not there")]
            }
            let value = loaded.value
            try store.write { try $0.save(value, key: "newer", expectedRevision: loaded.revision) }
            let saved = try store.read { try $0.document(in: Model.collection, key: "newer") }?.envelope()
            guard saved?[key] == added else {
                return [problem("a key of a newer minor was lost when today's code loaded and saved the document")]
            }
            return []
        } catch {
            return [problem("a document of a newer minor could not be loaded and saved: \(error)")]
        }
    }
}
