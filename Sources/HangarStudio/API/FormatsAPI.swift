import Hangar
import HangarHummingbird
import HangarTesting
import Hummingbird
import PropertyList

extension HangarStudio {
    /// `GET api/formats`: the format histories of ``StudioOptions/formats`` (Migration Kit folders): for each
    /// collection one names, its declared version, its frozen versions, and the census of its stored documents
    /// against them (`current`, `frozen`, `unknown`, `newer`, `too-old`, as `hangar formats census` says).
    func formats() async throws -> Response {
        let census: FormatsTool.Census
        do {
            census = try FormatsTool.Census(folders: options.formats)
        } catch {
            throw HangarHTTPError(.internalServerError, error.description)
        }
        var histories: [PropertyList] = []
        for collection in census.collections {
            guard let history = census.history(of: collection) else { continue }
            var counts: [DocumentVersion: Int] = [:]
            for row in try await catalog.rows(of: collection) { counts[row.version, default: 0] += 1 }
            let rows: [PropertyList] = counts.sorted { $0.key < $1.key }.map { version, count in
                [
                    "version": StudioJSON.version(version.major, version.minor), "count": StudioJSON.int(count),
                    "status": .string(census.status(of: version, in: collection)),
                ]
            }
            var entry: PropertyList.Dictionary = [
                "collection": .string(collection),
                "frozen": .array(history.frozen.map { StudioJSON.version($0.major, $0.minor) }),
                "oldestReadableMajor": StudioJSON.int(history.oldestReadableMajor), "census": .array(rows),
            ]
            if let format = options(of: collection)?.format {
                entry["declared"] = StudioJSON.version(format.current.major, format.current.minor)
            }
            histories.append(.dictionary(entry))
        }
        return StudioJSON.response(["histories": .array(histories)])
    }
}
