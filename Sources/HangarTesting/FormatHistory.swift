import Foundation
public import Hangar
public import PropertyList

/// A document type's format history, frozen in a folder and checked against today's code in the app's tests.
///
/// ```swift
/// @Test func pilotFormatsHold() throws {
///     try FormatHistory(
///         Pilot.self, registry: .pilots,
///         folder: "Migrations/Pilots",       // absolute, or relative to the package root
///         samples: [.ada, .glidersOnly]       // today's documents: what the current version freezes
///     ).verify()
/// }
/// ```
///
/// ``verify()`` checks every frozen file against the manifest's checksums, loads every frozen document with
/// today's code and compares it with its expectation, encodes the samples and compares them with the current
/// version's frozen files, compares today's shape with the frozen one, applies the minor rules between frozen
/// versions, loads generated old documents, and saves a document of a newer minor through a real store. It
/// throws a ``FormatCheckFailure`` listing every problem. `HANGAR_FREEZE=1` freezes the current version first
/// (when it is not frozen); `HANGAR_FREEZE=expectations` rewrites `expected/`; without the variable nothing is
/// ever written. The *Testing migrations* article says what each rule means and how to answer it.
public struct FormatHistory<Model: VersionedDocument & SendableMetatype> {
    /// What a run may write, besides checking.
    public enum FreezeMode: Sendable, Hashable {
        /// Freeze the current version when it is not frozen (`HANGAR_FREEZE=1`).
        case current
        /// Rewrite every expectation under `expected/` from what today's code loads (`HANGAR_FREEZE=expectations`).
        case expectations

        /// The mode `HANGAR_FREEZE` asks for: `1` (or `current`), `expectations`; `nil` for none.
        public static var fromEnvironment: FreezeMode? {
            guard let value = ProcessInfo.processInfo.environment["HANGAR_FREEZE"] else { return nil }
            if value.hasSameBytes(as: "1") || value.hasSameBytes(as: "current") { return .current }
            if value.hasSameBytes(as: "expectations") { return .expectations }
            return nil
        }
    }

    /// The model whose documents the history holds.
    public let model: Model.Type
    /// The class registry today's code reads and writes with.
    public let registry: ClassRegistry
    /// The kit folder, as given (absolute, or relative to the working directory).
    public let folder: String
    /// Today's documents: what the current version freezes, and what the writer check encodes.
    public let samples: [Model]
    /// How many documents are generated from each frozen version's shape.
    public var generated: Int
    /// What key paths held in real old documents, narrowing the generated values there (``FormatValues``).
    public var values: [FormatValues]
    /// The seed of the generated documents: `HANGAR_FORMATS_SEED`, else a fixed one.
    public var seed: UInt64

    /// The seed used unless `HANGAR_FORMATS_SEED` names another.
    public static var defaultSeed: UInt64 { 0x4841_4E47_4152 }

    /// A history of `model` in `folder`, whose current version is what `samples` encode to.
    public init(
        _ model: Model.Type, registry: ClassRegistry = ClassRegistry(), folder: String, samples: [Model],
        generated: Int = 1_000, values: [FormatValues] = []
    ) {
        self.model = model
        self.registry = registry
        self.folder = folder
        self.samples = samples
        self.generated = generated
        self.values = values
        let environment = ProcessInfo.processInfo.environment["HANGAR_FORMATS_SEED"]
        self.seed = environment.flatMap { UInt64($0) } ?? Self.defaultSeed
    }

    /// Checks the history (freezing first as `HANGAR_FREEZE` asks); throws every problem found.
    public func verify() throws(FormatCheckFailure) {
        try verify(freezing: FreezeMode.fromEnvironment)
    }

    /// Checks the history, freezing first as `mode` says (`nil`: write nothing); throws every problem found.
    public func verify(freezing mode: FreezeMode?) throws(FormatCheckFailure) {
        let problems = check(freezing: mode)
        guard problems.isEmpty else {
            let generatedFailed = problems.contains { $0.rule == .generatedDocumentFailed }
            throw FormatCheckFailure(problems: problems, seed: generatedFailed ? seed : nil)
        }
    }

    /// Every problem, after freezing as `mode` says.
    func check(freezing mode: FreezeMode?) -> [FormatProblem] {
        let location = FormatFolder(folder)
        var problems: [FormatProblem] = []
        guard !samples.isEmpty else {
            return [
                FormatProblem(
                    .notFrozen, version: "\(Model.format.current)", path: "-",
                    "FormatHistory has no samples: give it today's documents, which the current version freezes")
            ]
        }
        let today: TodaysDocuments
        do {
            today = try TodaysDocuments(samples: samples, registry: registry)
        } catch {
            return [FormatProblem(.writerChanged, version: "\(Model.format.current)", path: "-", "\(error)")]
        }
        var manifest: FormatManifest?
        switch location.manifest() {
        case .invalid(let problem): return [problem]
        case .none: manifest = nil
        case .manifest(let found): manifest = found
        }
        if let found = manifest, !found.collection.hasSameBytes(as: Model.collection) {
            return [
                FormatProblem(
                    .manifestInvalid, version: "-", path: FormatManifest.fileName,
                    "is the history of collection \(found.collection.debugDescription), not of \(Model.collection.debugDescription)"
                )
            ]
        }
        var files = manifest.map { location.checkFrozenFiles($0) } ?? FrozenFiles()
        switch mode {
        case .current:
            let outcome = freeze(today: today, manifest: manifest, files: files, in: location)
            problems += outcome.problems
            if outcome.wrote, case .manifest(let found) = location.manifest() {
                manifest = found
                files = location.checkFrozenFiles(found)
            }
        case .expectations:
            problems += writeExpectations(files, in: location)
        case nil:
            break
        }
        problems += files.problems
        guard let manifest else {
            return problems + [notFrozen()]
        }
        problems += FormatRules.betweenFrozenVersions(manifest)
        problems += checkExpectations(files, in: location)
        problems += checkCurrent(
            today: today, manifest: manifest, files: files, reportAs: mode == .current ? .frozenVersion : nil)
        problems += checkGenerated(manifest: manifest, files: files)
        problems += checkUnknownKeys(today: today)
        return problems
    }

    func notFrozen() -> FormatProblem {
        FormatProblem(
            .notFrozen, version: "\(Model.format.current)", path: "\(Model.format.current)",
            "the current version \(Model.format.current) is not frozen: run `HANGAR_FREEZE=1 swift test` and commit \(folder)"
        )
    }
}

/// What a key path held in the real old documents of some versions, for the generated documents to hold there
/// instead of edge values (say, decimal text for 1.x `airframeHours`). Where an app says so, every generated
/// document must load.
public struct FormatValues: Sendable {
    /// The majors concerned.
    public let majors: ClosedRange<Int>
    /// The key path, as the shape spells it (`airplanes[].airframeHours`); a step `<Tag>` may be left out to
    /// match every tag there.
    public let path: String
    /// Makes a value from a random number.
    public let make: @Sendable (UInt64) -> PropertyList

    /// Values for `path` in documents of `majors`, made from a random number by `make`.
    public init(majors: ClosedRange<Int>, path: String, make: @escaping @Sendable (UInt64) -> PropertyList) {
        self.majors = majors
        self.path = path
        self.make = make
    }

    /// Values for `path` in documents of `majors`, picked from `values`.
    public init(majors: ClosedRange<Int>, path: String, oneOf values: [PropertyList]) {
        self.init(majors: majors, path: path) { random in
            values.isEmpty ? .string("") : values[Int(random % UInt64(values.count))]
        }
    }

    /// Decimal text of a whole number from 0 to `maximum` (as 1.x Pilots wrote `airframeHours`).
    public static func decimalText(majors: ClosedRange<Int>, path: String, maximum: UInt64 = .max) -> FormatValues {
        FormatValues(majors: majors, path: path) { random in
            .string(String(maximum == .max ? random : random % (maximum &+ 1)))
        }
    }
}

extension FormatHistory: Sendable where Model: Sendable {}
