import HangarTestSupport
import Testing

/// The conformance corpus (`Tests/Corpus`, files other projects wrote; see its MANIFEST.md) and this target's
/// fixtures.
enum Corpus {
    /// `Tests/Corpus`, the files other projects wrote (valid ones at the top, `invalid/`, `wild/files/`).
    static let directory = repositoryRoot + "/Tests/Corpus"
    /// `Tests/PropertyListTests/Fixtures`.
    static let fixtures = repositoryRoot + "/Tests/PropertyListTests/Fixtures"

    /// The valid corpus files with the given extension, by name. Fails the test when the corpus is missing:
    /// a conformance test that finds nothing to check must not pass.
    static func validFiles(extension suffix: String, sourceLocation: SourceLocation = #_sourceLocation) -> [String] {
        let names = FileSystem.list(directory).filter { $0.hasSuffix(suffix) }.sorted()
        if names.isEmpty {
            Issue.record(
                "No *\(suffix) files in \(directory): is the repository's Tests/Corpus checked out?",
                sourceLocation: sourceLocation)
        }
        return names
    }

    /// The invalid corpus files with the given extension, by name.
    static func invalidFiles(extension suffix: String, sourceLocation: SourceLocation = #_sourceLocation) -> [String] {
        let names = FileSystem.list(directory + "/invalid").filter { $0.hasSuffix(suffix) }.sorted()
        if names.isEmpty {
            Issue.record("No invalid *\(suffix) files in \(directory)/invalid", sourceLocation: sourceLocation)
        }
        return names
    }

    /// The bytes of a file, or a recorded failure and an empty array.
    static func bytes(_ path: String, sourceLocation: SourceLocation = #_sourceLocation) -> [UInt8] {
        guard let bytes = FileSystem.read(path) else {
            Issue.record("Cannot read \(path)", sourceLocation: sourceLocation)
            return []
        }
        return bytes
    }

    /// The frozen CPython `plistlib` dump of a corpus file (Scripts/canonical-dump.py), without the newline.
    static func expectedDump(for name: String, sourceLocation: SourceLocation = #_sourceLocation) -> String {
        let bytes = Self.bytes(fixtures + "/expected/\(name).txt", sourceLocation: sourceLocation)
        return String(decoding: bytes, as: UTF8.self).trimmingTrailingNewlines()
    }
}

extension String {
    func trimmingTrailingNewlines() -> String {
        var text = self
        while text.last == "\n" { text.removeLast() }
        return text
    }
}
