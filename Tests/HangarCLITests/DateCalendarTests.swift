import HangarTestSupport
import Testing

/// `hangar print` and `hangar convert xml1` show a date as the same day in the same calendar: proleptic
/// Gregorian (ISO 8601's), also before 1582, where Foundation's formatters would switch to the Julian calendar.
@Suite struct DateCalendarTests {
    static let cases: [(xml: String, printed: String)] = [
        ("1000-01-01T00:00:00Z", "1000-01-01 00:00:00 +0000"),
        ("1582-10-10T12:30:00Z", "1582-10-10 12:30:00 +0000"),
        ("0000-12-30T00:00:00Z", "0000-12-30 00:00:00 +0000"),
        ("-0044-03-15T12:00:00Z", "-0044-03-15 12:00:00 +0000"),
    ]

    @Test(arguments: cases)
    func printAndConvertShowTheSameDay(xml: String, printed: String) throws {
        let input = Array("<plist><array><date>\(xml)</date></array></plist>".utf8)
        let shown = try CLI.run(["print", "-"], stdin: input)
        #expect(shown.status == 0, "\(shown.stderr)")
        #expect(shown.stdout == "[\n  0 => \(printed)\n]\n")
        let converted = try CLI.run(["convert", "xml1", "-", "-o", "-"], stdin: input)
        #expect(converted.status == 0, "\(converted.stderr)")
        #expect(converted.stdout.contains("<date>\(xml)</date>"))
    }

    @Test func aBinaryDateOfYearZeroFromTheWild() throws {
        // biplist's small_date.plist: a binary date CF reads as 0000-12-30 (plistlib cannot hold year 0).
        let file = repositoryRoot + "/Tests/Corpus/wild/files/wooster__biplist__tests_data_small_date.plist"
        let shown = try CLI.run(["print", file])
        #expect(shown.stdout.contains("0000-12-30 00:00:00 +0000"), "\(shown.stdout)")
        let converted = try CLI.run(["convert", "xml1", file, "-o", "-"])
        #expect(converted.stdout.contains("<date>0000-12-30T00:00:00Z</date>"), "\(converted.stdout)")
    }

    @Test func aFractionPrintsInMilliseconds() throws {
        // A binary date 0.25 s after the reference date: bplist00, one date object, trailer.
        var bytes = Array("bplist00".utf8) + [0x33, 0x3F, 0xD0, 0, 0, 0, 0, 0, 0, 0x08]
        bytes +=
            [0, 0, 0, 0, 0, 0, 1, 1] + [0, 0, 0, 0, 0, 0, 0, 1] + [0, 0, 0, 0, 0, 0, 0, 0] + [
                0, 0, 0, 0, 0, 0, 0, 0x11,
            ]
        let shown = try CLI.run(["print", "-"], stdin: bytes)
        #expect(shown.stdout == "2001-01-01 00:00:00.250 +0000\n", "\(shown.stderr)")
    }
}
