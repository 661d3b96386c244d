import ArgumentParser
import Foundation
import PropertyList

/// `hangar extract KEYPATH FORMAT [-expect TYPE] [-o OUT|-] FILE`, as `plutil -extract` does.
struct Extract: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the value at a key path, in a format.",
        discussion: """
            xml1, binary1 and json write the value as a property list of its own (a dictionary's keys in the \
            file's order). raw prints a scalar bare: a string as it is, a number or Boolean as text, a date in \
            ISO 8601, data in base64; an array prints its count, a dictionary its keys one per line. raw ends \
            with a newline unless -n. Writes to standard output unless -o.
            """
    )

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case xml1, binary1, json, raw
    }

    @Argument(help: "The value's key path: keys and array indexes separated by `.` (`\\.` is a dot in a key).")
    var keyPath: String

    @Argument(help: "How to write it: xml1, binary1, json or raw.")
    var format: Format

    @Argument(help: "The file to read (`-` reads standard input).")
    var file: String

    @Option(name: .customLong("expect", withSingleDash: true), help: "Fail unless the value is of this type.")
    var expect: ValueType?

    @Option(name: .customShort("o"), help: "Write there instead of standard output (`-` is standard output).")
    var output: String?

    @Flag(name: .customShort("n"), help: "raw: no newline at the end.")
    var noNewline = false

    func run() throws {
        let value = try lookUp(keyPath, in: file, expecting: expect)
        let bytes: [UInt8]
        switch format {
        case .raw: bytes = Array((Self.rawText(value) + (noNewline ? "" : "\n")).utf8)
        case .xml1: bytes = try EditedFile.encode(value, as: .xml, path: file)
        case .binary1: bytes = try EditedFile.encode(value, as: .binary, path: file)
        case .json: bytes = try EditedFile.encode(value, as: .json, path: file)
        }
        try EditedFile.write(bytes, to: output ?? "-", permissions: 0o644)
    }

    /// `value` as `raw` prints it.
    static func rawText(_ value: PropertyList) -> String {
        switch value {
        case .string(let text): text
        case .integer(let integer): integer.description
        case .real(let real): real.description
        case .boolean(let flag): flag ? "true" : "false"
        case .date(let seconds):
            PropertyList.iso8601Text(forDate: seconds, fractionDigits: seconds == seconds.rounded(.down) ? 0 : 6)
                ?? seconds.description
        case .data(let bytes): Data(bytes).base64EncodedString()
        case .uid(let number): number.description
        case .array(let elements): elements.count.description
        case .dictionary(let entries): entries.keys.joined(separator: "\n")
        }
    }
}
