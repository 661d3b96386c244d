import HangarTestSupport
import Testing

@testable import PropertyList

/// Tests/Corpus/wild: 148 property lists from 34 public repositories (SOURCES.md says where each comes from and
/// what wrote it), read as Apple's CoreFoundation reads them.
///
/// The peers' verdicts are frozen in Fixtures/wild-expected, one canonical dump a file
/// (Support/CanonicalDump.swift's grammar), and `REJECTED.txt` listing the files a peer refuses:
/// - `cf/`: CoreFoundation, by Scripts/cf-dump.swift run on Linux, where `CFPropertyListCreateWithData` is
///   swift-corelibs-foundation's copy of Apple's C parsers (CFPropertyList.c, CFBinaryPList.c,
///   CFOldStylePList.c): the same code as `PropertyListSerialization` on Apple platforms.
/// - `plistlib/`: CPython 3.11's `plistlib`, by Scripts/canonical-dump.py.
///
/// Every file CF reads, Hangar reads with CF's value, except the differences listed (and asserted) below;
/// every file CF refuses, Hangar refuses. Every file `plistlib` reads converts to XML and to binary and reads
/// back equal.
@Suite struct WildCorpusTests {
    static let directory = repositoryRoot + "/Tests/Corpus/wild/files"
    static let expected = Corpus.fixtures + "/wild-expected"
    static let names: [String] = FileSystem.list(directory).sorted()

    /// A file Hangar deliberately reads differently from CF.
    struct Difference: Sendable {
        /// Why Hangar differs.
        let reason: String
        /// CF's dump, made from Hangar's by undoing the difference: the test checks that it is the only one.
        let cfDump: @Sendable (String) -> String
    }

    /// `\u` followed by hex digits: GNUstep's escape for a UTF-16 unit, which CF reads as the letter `u` and
    /// the digits (OpenStepScanner documents the choice). The two files are GNUstep's own and hold no other
    /// non-ASCII text, so every `\uXXXX` of Hangar's dump came from such an escape.
    static let lowercaseUEscape = Difference(
        reason: "\\u00e7 is ç, as GNUstep reads it; CF reads u00e7",
        cfDump: { dump in dump.replacing(/\\u([0-9a-f]{4})/) { "u" + $0.output.1 } })

    static let differencesFromCF: [String: Difference] = [
        "gnustep__libs-base__Resources_Languages_French": lowercaseUEscape,
        "gnustep__libs-base__Resources_Languages_Japanese": lowercaseUEscape,
    ]

    /// Files Hangar reads whose strings XML 1.0 cannot hold: control characters, which CF and Hangar keep
    /// (TextMate 1 wrote them raw into XML; its key bindings name the escape key `\033`). The binary format holds
    /// them; the XML writer refuses them, naming the path.
    static let notWritableAsXML: Set<String> = [
        "textmate__c.tmbundle__Snippets_Continue_Block_Comment.tmSnippet",
        "textmate__ruby.tmbundle__Commands_Completion__Ruby__rcodetools_.tmCommand",
        "textmate__textmate__Applications_TextMate_resources_KeyBindings.dict",
    ]

    /// Files where `plistlib`'s value is not the file's: it keeps dates in microseconds (a date with a finer
    /// fraction rounds), and expat turns a raw carriage return into a line feed. CF and Hangar keep both exactly.
    static let plistlibIsLossy: [String: String] = [
        "log2timeline__plaso__test_data_ios_com.apple.wifi.known-networks.plist": "a date rounded to microseconds",
        "textmate__ruby.tmbundle__Commands_New_Method.plist": "a raw CR read as LF",
    ]

    // MARK: - Verdicts

    /// A peer's frozen dump of a file, or `nil` when the peer refuses it.
    static func dump(by peer: String, of name: String) -> String? {
        FileSystem.read(expected + "/\(peer)/\(name).txt").map {
            String(decoding: $0, as: UTF8.self).trimmingTrailingNewlines()
        }
    }

    /// The files a peer refuses, from its REJECTED.txt (`name<TAB>reason` lines).
    static func rejected(by peer: String) -> Set<String> {
        let text = String(decoding: Corpus.bytes(expected + "/\(peer)/REJECTED.txt"), as: UTF8.self)
        return Set(text.split(separator: "\n").compactMap { $0.split(separator: "\t").first.map(String.init) })
    }

    @Test func everyFileHasOneVerdictFromEachPeer() {
        #expect(Self.names.count == 148, "Tests/Corpus/wild/files is missing files")
        let sources = String(decoding: Corpus.bytes(Self.directory + "/../SOURCES.md"), as: UTF8.self)
        for peer in ["cf", "plistlib"] {
            let refused = Self.rejected(by: peer)
            for name in Self.names {
                let reads = Self.dump(by: peer, of: name) != nil
                #expect(reads != refused.contains(name), "\(peer): \(name) must be read or refused, not both")
            }
            #expect(refused.isSubset(of: Set(Self.names)), "\(peer) refuses a file that is not in the corpus")
        }
        for name in Self.names { #expect(sources.contains("`\(name)`"), "SOURCES.md has no row for \(name)") }
        #expect(Self.rejected(by: "cf").count == 3)
        #expect(Self.rejected(by: "plistlib").count == 29)
    }

    // MARK: - CoreFoundation

    @Test(arguments: names)
    func readsAsCoreFoundationDoes(name: String) throws {
        let bytes = Corpus.bytes(Self.directory + "/" + name)
        guard let cfDump = Self.dump(by: "cf", of: name) else {
            // CF refuses it (an empty <plist>, a truncated bplist, a CMS-signed profile): so does Hangar.
            #expect(throws: PropertyListError.self) { try PropertyList.decode(bytes) }
            return
        }
        let ours = CanonicalDump.render(try PropertyList.decode(bytes).value)
        if let difference = Self.differencesFromCF[name] {
            #expect(ours != cfDump, "\(name) now reads as CF does: drop it from differencesFromCF")
            #expect(ours == Self.dump(by: "hangar", of: name), "\(name): \(difference.reason)")
            #expect(difference.cfDump(ours) == cfDump, "\(name) differs from CF in more than: \(difference.reason)")
        } else {
            #expect(ours == cfDump)
        }
    }

    @Test func theDifferencesFromCFAreFilesOfTheCorpus() {
        for name in Self.differencesFromCF.keys.sorted() + Self.notWritableAsXML.sorted() {
            #expect(Self.names.contains(name), "\(name)")
        }
    }

    // MARK: - Round trips

    @Test(arguments: names)
    func convertsToXMLAndBinaryAndReadsBackEqual(name: String) throws {
        let bytes = Corpus.bytes(Self.directory + "/" + name)
        let plistlibDump = Self.dump(by: "plistlib", of: name)
        guard let value = try? PropertyList.decode(bytes).value else {
            #expect(plistlibDump == nil, "plistlib reads \(name); Hangar must too")
            return
        }
        let binary = try value.encoded(as: .binary)
        #expect(try PropertyList(binary: binary) == value)
        if Self.notWritableAsXML.contains(name) {
            #expect(plistlibDump == nil)
            let error = propertyListError { _ = try value.encoded(as: .xml) }
            #expect(error?.code == .unrepresentable)
        } else {
            // XML dates hold whole seconds (as CF and plistlib write and read them): a binary file's fraction
            // is dropped, the documented loss (`firstSubsecondDatePath` finds it). All else is equal.
            let xml = try value.encoded(as: .xml)
            #expect(try PropertyList(xml: xml) == Self.wholeSecondDates(value))
        }
        guard let plistlibDump else { return }
        if let loss = Self.plistlibIsLossy[name] {
            #expect(CanonicalDump.render(value) != plistlibDump, "plistlib no longer loses \(loss) in \(name)")
        } else {
            #expect(CanonicalDump.render(value) == plistlibDump)
        }
    }

    /// `value` with every date rounded down to its whole second, as the XML writer writes it.
    static func wholeSecondDates(_ value: PropertyList) -> PropertyList {
        switch value {
        case .date(let seconds): .date(seconds.rounded(.down))
        case .array(let elements): .array(elements.map(wholeSecondDates))
        case .dictionary(let entries): .dictionary(entries.mapValues(wholeSecondDates))
        default: value
        }
    }

    // MARK: - Leniency is for text, never for structure

    /// Every file of the shared corpus's `invalid/` and every hostile fixture is still refused, quickly. The one
    /// exception is read as CF reads it: an ASCII bplist string whose byte 0xFF is ÿ.
    static let refusedFiles: [String] =
        FileSystem.list(Corpus.directory + "/invalid").sorted().map { "invalid/" + $0 }
        + FileSystem.list(Corpus.fixtures + "/invalid").sorted().map { "fixtures/" + $0 }

    @Test(arguments: refusedFiles)
    func invalidAndHostileFilesAreStillRefused(file: String) {
        let path =
            file.hasPrefix("fixtures/")
            ? Corpus.fixtures + "/invalid/" + file.dropFirst("fixtures/".count)
            : Corpus.directory + "/" + file
        let bytes = Corpus.bytes(path)
        let clock = ContinuousClock()
        let start = clock.now
        let outcome = Result { () throws(PropertyListError) in try PropertyList.decode(bytes) }
        #expect(clock.now - start < HostileInputTests.bound, "\(file) took too long")
        if file == "invalid/cpython-ascii-invalid-byte.bplist" {
            #expect((try? outcome.get().value) == "\u{FF}")
        } else {
            #expect(throws: PropertyListError.self, "\(file)") { try outcome.get() }
        }
    }

    @Test func theRefusedFilesAreThere() {
        #expect(Self.refusedFiles.count >= 29 + 23)
    }
}
