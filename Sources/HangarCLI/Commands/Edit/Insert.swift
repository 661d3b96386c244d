import ArgumentParser
import PropertyList

/// `hangar insert KEYPATH -TYPE VALUE [-append] FILE…`, as `plutil -insert` does.
struct Insert: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Insert a value at a key path.",
        discussion: """
            Fails when the key path already holds a value. At an array index the value goes before the element \
            there (the array's count appends; past it fails). With -append the value is appended to the array \
            at KEYPATH. A new key goes at the end of its dictionary; every other key stays where it was, and the \
            file keeps its format.
            """
    )

    @Argument(help: "Where to insert: keys and array indexes separated by `.` (`\\.` is a dot in a key).")
    var keyPath: String

    @OptionGroup(title: "Value")
    var value: ValueArgument

    @Flag(name: .customLong("append", withSingleDash: true), help: "Append the value to the array at KEYPATH.")
    var append = false

    @OptionGroup
    var targets: EditTargets

    func run() throws {
        let path = PlistKeyPath(keyPath)
        try targets.run { (document) throws(PlistKeyPathFailure) in
            let given = try value.value()
            try document.apply(append ? .append(given) : .insert(given), at: path)
        }
    }
}
