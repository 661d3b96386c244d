import ArgumentParser
import PropertyList

/// `hangar type KEYPATH [-expect TYPE] FILE`, as `plutil -type` does.
struct TypeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "type",
        abstract: "Print the type of the value at a key path.",
        discussion: """
            One of bool, integer, float, string, date, data, array, dictionary, uid, with a newline unless -n. \
            With -expect, fails (status 1) unless the value is of that type.
            """
    )

    @Argument(help: "The value's key path: keys and array indexes separated by `.` (`\\.` is a dot in a key).")
    var keyPath: String

    @Argument(help: "The file to read (`-` reads standard input).")
    var file: String

    @Option(name: .customLong("expect", withSingleDash: true), help: "Fail unless the value is of this type.")
    var expect: ValueType?

    @Flag(name: .customShort("n"), help: "No newline at the end.")
    var noNewline = false

    func run() throws {
        let value = try lookUp(keyPath, in: file, expecting: expect)
        print(ValueType(value).rawValue, terminator: noNewline ? "" : "\n")
    }
}
