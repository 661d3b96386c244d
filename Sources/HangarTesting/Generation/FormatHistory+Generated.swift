import Foundation
import Hangar
import PropertyList

/// Generated old documents: each loads (and survives its own save) or is refused with a typed error.
extension FormatHistory {
    /// What one generated document did.
    enum Outcome {
        case loaded
        case refused(HangarError)
        /// Loaded, but broke a promise: the reason.
        case failed(String)
    }

    /// Loads `envelope` with today's code, saves it as today's code does, and loads that again.
    func roundTrip(_ envelope: PropertyList) -> Outcome {
        do {
            let first = try loadAndSeal(PropertyList(binary: envelope.encoded(as: .binary)))
            let second = try loadAndSeal(PropertyList(binary: first.encoded(as: .binary)))
            guard first == second else {
                let difference = ValueDifference.all(from: first, to: second, limit: 1).first.map { "\($0)" } ?? "?"
                return .failed("it loads, but saved and loaded again it is another document (\(difference))")
            }
            return .loaded
        } catch let error as HangarError {
            return .refused(error)
        } catch {
            return .failed("it loads, but today's code cannot write what it read: \(error)")
        }
    }

    private func loadAndSeal(_ envelope: PropertyList) throws -> PropertyList {
        let opened = try Model.format.open(envelope)
        let model = try registry.decode(Model.self, from: .dictionary(opened.content))
        return Model.format.seal(registry.encode(model).dictionaryValue ?? [:])
    }

    /// `GENERATED_DOCUMENT_FAILED` for each frozen version where a generated document failed.
    func checkGenerated(manifest: FormatManifest, files: FrozenFiles) -> [FormatProblem] {
        guard generated > 0 else { return [] }
        var problems: [FormatProblem] = []
        for frozen in manifest.versions where frozen.version.major >= Model.format.oldestReadableMajor {
            let narrowed = values.filter { $0.majors.contains(frozen.version.major) }.compactMap { values in
                PathPattern(values.path).map { (pattern: $0, make: values.make) }
            }
            let generator = DocumentGenerator(shape: frozen.shape, narrowed: narrowed)
            var random = SeededRandom(seed: seed ^ UInt64(frozen.version.major) << 32 ^ UInt64(frozen.version.minor))
            for _ in 0..<generated {
                let envelope = Model.format.seal(generator.document(&random), version: frozen.version)
                guard case .failed = roundTrip(envelope) else { continue }
                problems.append(failure(shrinking: envelope, version: frozen.version, refusalFails: false))
                break
            }
            guard !narrowed.isEmpty else { continue }
            // Where the app said what a key path held, frozen documents holding any such value must all load.
            let documents = files.documents(of: frozen.version)
            for index in 0..<(documents.isEmpty ? 0 : max(generated / 10, 1)) {
                let document = documents[index % documents.count].value
                let envelope = substitute(document, path: [], generator: generator, &random)
                if case .loaded = roundTrip(envelope) { continue }
                problems.append(failure(shrinking: envelope, version: frozen.version, refusalFails: true))
                break
            }
        }
        return problems
    }

    /// `value` with every position an app narrowed holding a new value of its kind.
    private func substitute(
        _ value: PropertyList, path: [ShapeStep], generator: DocumentGenerator, _ random: inout SeededRandom
    ) -> PropertyList {
        if !path.isEmpty, let narrowed = generator.narrowedValue(at: path, &random) { return narrowed }
        switch value {
        case .array(let elements):
            return .array(elements.map { substitute($0, path: path + [.element], generator: generator, &random) })
        case .dictionary(var fields):
            var fieldsPath = path
            if case .string(let tag)? = fields["class"] { fieldsPath.append(.tag(ExactString(tag))) }
            for (key, field) in fields where !(path.isEmpty && Shrinker.isVersionKey(key)) {
                fields[key] = substitute(
                    field, path: fieldsPath + [.key(ExactString(key))], generator: generator, &random)
            }
            return .dictionary(fields)
        default:
            return value
        }
    }

    private func failure(shrinking envelope: PropertyList, version: DocumentVersion, refusalFails: Bool)
        -> FormatProblem
    {
        let fails: (PropertyList) -> String? = { candidate in
            switch roundTrip(candidate) {
            case .loaded: return nil
            case .refused(let error): return refusalFails ? "refused: \(error.description)" : nil
            case .failed(let reason): return reason
            }
        }
        let smallest = Shrinker.shrink(envelope, while: { fails($0) != nil })
        let reason = fails(smallest) ?? "failed"
        let xml = (try? smallest.encoded(as: .xml)).map { String(decoding: $0, as: UTF8.self) } ?? "?"
        let compact = xml.split(whereSeparator: \.isNewline).map { $0.trimmingPrefix(while: \.isWhitespace) }
            .filter { !$0.hasPrefix("<?xml") && !$0.hasPrefix("<!DOCTYPE") }.joined()
        let narrowedNote = refusalFails ? " (where FormatValues narrowed the values, every document must load)" : ""
        return FormatProblem(
            .generatedDocumentFailed, version: "\(version)", path: "-",
            "a generated \(version) document\(narrowedNote): \(reason); seed \(seed) (HANGAR_FORMATS_SEED=\(seed)); smallest failing document: \(compact)"
        )
    }
}

/// Shrinks a failing value: removes keys and elements, empties strings, zeroes numbers, while it still fails.
enum Shrinker {
    /// The smallest value found from `value` for which `fails` holds, trying at most `budget` candidates.
    static func shrink(_ value: PropertyList, budget: Int = 2_000, while fails: (PropertyList) -> Bool) -> PropertyList
    {
        var best = value
        var tried = 0
        var improved = true
        while improved && tried < budget {
            improved = false
            for candidate in smaller(best, top: true) {
                tried += 1
                if fails(candidate) {
                    best = candidate
                    improved = true
                    break
                }
                if tried >= budget { break }
            }
        }
        return best
    }

    static func isVersionKey(_ key: String) -> Bool {
        key.hasSameBytes(as: DocumentFormat.majorKey) || key.hasSameBytes(as: DocumentFormat.minorKey)
    }

    /// Values one step smaller than `value`. The top level keeps its version keys.
    static func smaller(_ value: PropertyList, top: Bool = false) -> [PropertyList] {
        switch value {
        case .dictionary(let fields):
            var candidates: [PropertyList] = []
            for key in fields.keys {
                let kept = top && isVersionKey(key) || key.hasSameBytes(as: "class")
                if !kept {
                    var without = fields
                    without[key] = nil
                    candidates.append(.dictionary(without))
                }
            }
            for key in fields.keys {
                guard let field = fields[key], !(top && isVersionKey(key)) else { continue }
                for smaller in smaller(field) {
                    var changed = fields
                    changed[key] = smaller
                    candidates.append(.dictionary(changed))
                }
            }
            return candidates
        case .array(let elements):
            var candidates = elements.indices.map { index in
                var without = elements
                without.remove(at: index)
                return PropertyList.array(without)
            }
            for index in elements.indices {
                for smaller in smaller(elements[index]) {
                    var changed = elements
                    changed[index] = smaller
                    candidates.append(.array(changed))
                }
            }
            return candidates
        case .string(let text): return text.isEmpty ? [] : [.string("")]
        case .integer(let integer):
            return integer == PropertyList.Integer(0 as Int64) ? [] : [.integer(PropertyList.Integer(0 as Int64))]
        case .real(let real): return real == 0 && real.sign == .plus ? [] : [.real(0)]
        case .date(let seconds): return seconds == 0 ? [] : [.date(0)]
        case .data(let bytes): return bytes.isEmpty ? [] : [.data([])]
        default: return []
        }
    }
}
