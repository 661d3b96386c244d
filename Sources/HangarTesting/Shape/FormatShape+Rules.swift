import Hangar

/// The rules between shapes: today's against the current frozen one, and a minor against the version before it.
extension FormatShape {
    /// `string, required`; `integer or real, optional`; `dictionary, tags Airplane, MotorAirplane (as PoweredAirplane)`.
    static func describe(_ entry: ShapeEntry) -> String {
        let kinds = entry.kinds.isEmpty ? "any kind" : entry.kinds.sorted().map(\.name).joined(separator: " or ")
        var text = kinds + ", " + entry.presence.rawValue
        if let tags = entry.tags {
            let listed = tags.keys.sorted().map { tag -> String in
                guard let target = tags[tag], !(target == tag) else { return tag.string }
                return "\(tag.string) (as \(target.string))"
            }
            text += ", tags " + listed.joined(separator: ", ")
        }
        return text
    }

    /// Where `today` differs from `frozen`, one line per path. Against a shape taken from documents only the
    /// keys and kinds those documents held are compared (they say nothing of presence).
    static func differences(from frozen: FormatShape, to today: FormatShape) -> [(path: String, message: String)] {
        var found: [(path: String, message: String)] = []
        let fromDocuments = frozen.source == .documents
        for path in frozen.sortedPaths {
            guard let was = frozen.entries[path] else { continue }
            guard let now = today.entries[path] else {
                if !fromDocuments || today.isExplored(parentOf: path) {
                    found.append((render(path), "was \(describe(was)), no longer read"))
                }
                continue
            }
            if fromDocuments {
                if !now.kinds.isEmpty, !was.kinds.isSubset(of: now.kinds) {
                    found.append((render(path), "held \(describe(was)), is read as \(describe(now))"))
                }
            } else if was != now {
                found.append((render(path), "was \(describe(was)), is \(describe(now))"))
            }
        }
        guard !fromDocuments else { return found }
        for path in today.sortedPaths where frozen.entries[path] == nil {
            if let now = today.entries[path] { found.append((render(path), "is new: \(describe(now))")) }
        }
        return found
    }

    /// What a minor (`new`, at `version`) breaks against the version of its major before it (`old`).
    /// `upgradeFills`: the format has a minor upgrade leading to `version`, which may fill in keys it requires.
    ///
    /// Only a shape a reader gave can break a rule: a key absent from some documents says nothing of a reader,
    /// so a minor whose shape comes from its documents (frozen before the kit, or captured) is not judged.
    static func minorProblems(
        from old: FormatShape, oldVersion: String, to new: FormatShape, version: String, upgradeFills: Bool
    ) -> [FormatProblem] {
        guard new.source == .reader else { return [] }
        let advice = "needs a new major and a migration"
        var problems: [FormatProblem] = []
        for path in old.sortedPaths {
            guard let was = old.entries[path] else { continue }
            let shown = render(path)
            guard let now = new.entries[path] else {
                if new.isExplored(parentOf: path) {
                    problems.append(
                        FormatProblem(
                            .keyRemoved, version: version, path: shown,
                            "\(oldVersion) read it (\(describe(was))), \(version) does not: \(advice)"))
                }
                continue
            }
            if !was.kinds.isEmpty, !now.kinds.isEmpty, !was.kinds.isSubset(of: now.kinds) {
                problems.append(
                    FormatProblem(
                        .typeChanged, version: version, path: shown,
                        "\(oldVersion) read \(kindList(was)), \(version) reads \(kindList(now)): \(advice)"))
            }
            if was.presence == .optional, now.presence == .required, !upgradeFills {
                problems.append(
                    FormatProblem(
                        .optionalToRequired, version: version, path: shown,
                        "optional in \(oldVersion), required in \(version): \(advice)"))
            }
            for tag in (was.tags ?? [:]).keys.sorted() where now.tags?[tag] == nil {
                problems.append(
                    FormatProblem(
                        .tagRemovedWithoutAlias, version: version, path: shown,
                        "\(oldVersion) read class tag \(tag.string.debugDescription), \(version) does not and no alias reads it: \(advice)"
                    ))
            }
        }
        for path in new.sortedPaths where old.entries[path] == nil {
            guard let now = new.entries[path], now.presence == .required, !upgradeFills else { continue }
            guard old.isExplored(parentOf: path) else { continue }
            problems.append(
                FormatProblem(
                    .optionalToRequired, version: version, path: render(path),
                    "added as required in \(version); \(oldVersion) documents lack it: make it optional, add a minor upgrade to \(version) that fills it in, or \(advice)"
                ))
        }
        return problems
    }

    private static func kindList(_ entry: ShapeEntry) -> String {
        entry.kinds.sorted().map(\.name).joined(separator: " or ")
    }

    /// Whether this shape knows what lies inside `path`'s parent: it has entries below it. A parent read whole
    /// and never reached by a sample, or a class tag whose fields no sample held, has none: nothing can be said to
    /// be missing there.
    func isExplored(parentOf path: [ShapeStep]) -> Bool {
        let parent = path.dropLast()
        if parent.isEmpty { return true }
        return entries.keys.contains { $0.count > parent.count && $0.starts(with: parent) }
    }
}
