import ArgumentParser
import Hangar
import PropertyList

/// `hangar convert binary1|xml1|json FILE [-o OUTPUT]`, as `plutil -convert` does.
struct Convert: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Convert a property list to another format.",
        discussion: """
            The input format is detected (binary, XML, OpenStep or JSON). Without -o the file is rewritten \
            in place, atomically; `-o -` writes to standard output. Each dictionary keeps its keys in the \
            order the file had them.
            XML holds whole seconds only: a date's fraction is dropped, with a warning on standard error.
            JSON holds no dates, data or UIDs: such a value is an error naming its path, unless --lossy \
            writes them as ISO-8601 strings, base64 strings and {"CF$UID": n}.
            """
    )

    enum Target: String, ExpressibleByArgument, CaseIterable {
        case binary1, xml1, json

        var format: PropertyListFormat {
            switch self {
            case .binary1: .binary
            case .xml1: .xml
            case .json: .json
            }
        }
    }

    @Argument(help: "The format to write: binary1, xml1 or json.")
    var target: Target

    @Argument(help: "The file to convert (`-` reads standard input).")
    var file: String

    @Option(name: .shortAndLong, help: "Where to write (`-` for standard output). Default: FILE itself.")
    var output: String?

    @Flag(name: [.customShort("r"), .long], help: "JSON only: indent the output for people.")
    var pretty = false

    @Flag(help: "JSON only: write dates as ISO-8601 strings, data as base64 and UIDs as {\"CF$UID\": n}, not fail.")
    var lossy = false

    mutating func validate() throws {
        if file == "-" && output == nil {
            throw ValidationError("Reading standard input needs -o (a file, or - for standard output).")
        }
    }

    func run() throws {
        let input: [UInt8]
        do {
            input = try AtomicFile.contents(of: file)
        } catch {
            throw FileFailure(error)
        }
        let value: PropertyList
        let format: PropertyListFormat
        do throws(PropertyListError) {
            (value, format) = try PropertyList.decode(input)
        } catch {
            throw FileFailure(path: file, error)
        }
        // Each dictionary keeps the file's key order, so a converted file diffs against its source key for key.
        let options = EncodingOptions(
            json: JSONEncodingOptions(prettyPrinted: pretty, lossyDatesAndData: lossy), keyOrder: .kept)
        let bytes: [UInt8]
        do throws(PropertyListError) {
            // Binary to binary keeps the file's graph (key order, shared objects), so a file Apple's writer wrote
            // (a keyed archive) comes back byte for byte.
            bytes =
                format == .binary && target == .binary1
                ? try PropertyList.rewrittenBinary(input)
                : try value.encoded(as: target.format, options: options)
        } catch {
            guard !lossy else { throw FileFailure(path: file, error) }
            if error.reason == .dateInJSON || error.reason == .dataInJSON {
                throw FileFailure(path: file, reason: "\(error); --lossy writes dates and data as strings")
            }
            if error.reason == .uidInJSON {
                throw FileFailure(path: file, reason: "\(error); --lossy writes a UID as {\"CF$UID\": n}")
            }
            throw FileFailure(path: file, error)
        }
        if target == .xml1, let path = value.firstSubsecondDatePath {
            printError(
                "\(file): warning: XML keeps whole seconds; the fraction of the date at "
                    + "\(path.isEmpty ? "the root" : path) (and any others) is dropped")
        }
        let destination = output ?? file
        do throws(AtomicFile.Failure) {
            if destination == "-" {
                try AtomicFile.writeToStandardOutput(bytes)
            } else {
                // A converted file is not a store's: readable by others, as plutil leaves it.
                try AtomicFile.save(bytes, to: destination, permissions: 0o644)
            }
        } catch {
            throw FileFailure(error)
        }
    }
}
