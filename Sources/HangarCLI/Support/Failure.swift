import ArgumentParser
import Foundation
import Hangar
import PropertyList

/// A failure the CLI reports as one `FILE: reason` line on standard error, then exits with status 1
/// (``HangarCommand/exit(reporting:)``).
struct FileFailure: Error, CustomStringConvertible {
    let path: String
    let reason: String

    var description: String { "\(path): \(reason)" }

    init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    init(_ failure: AtomicFile.Failure) {
        self.init(path: failure.path, reason: failure.reason)
    }

    init(path: String, _ error: PropertyListError) {
        self.init(path: path, reason: error.description)
    }
}

/// Writes `text` to standard error as one line: every line break in it, with the indentation after it, becomes
/// one space (SQLite's messages and statements, a file system's words), so one failure is always one line.
func printError(_ text: String) {
    FileHandle.standardError.write(Data((oneLine(text) + "\n").utf8))
}

/// `text` on one line: each line break and the blanks around it become one space.
func oneLine(_ text: String) -> String {
    guard text.contains(where: \.isNewline) else { return text }
    var line = ""
    var pendingBreak = false
    for character in text {
        if character.isNewline {
            pendingBreak = true
            while line.last == " " || line.last == "\t" { line.removeLast() }
        } else if pendingBreak && (character == " " || character == "\t") {
            continue
        } else {
            if pendingBreak && !line.isEmpty { line.append(" ") }
            pendingBreak = false
            line.append(character)
        }
    }
    return line
}

/// Reads and decodes the property list at `path` (`-` for standard input), in any format.
func loadPropertyList(at path: String) throws(FileFailure) -> (value: PropertyList, format: PropertyListFormat) {
    let bytes: [UInt8]
    do {
        bytes = try AtomicFile.contents(of: path)
    } catch {
        throw FileFailure(error)
    }
    do {
        return try PropertyList.decode(bytes)
    } catch {
        throw FileFailure(path: path, error)
    }
}
