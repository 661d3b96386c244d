import ArgumentParser
import Foundation
import Hangar
import PropertyList

/// A failure the CLI reports as one `FILE: reason` line on standard error, then exits with status 1.
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

/// Writes a line to standard error.
func printError(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}

/// Runs `body`; a `FileFailure` becomes its line on stderr and exit status 1.
func reportingFailures(_ body: () throws -> Void) throws {
    do {
        try body()
    } catch let failure as FileFailure {
        printError(failure.description)
        throw ExitCode(1)
    }
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

/// ``reportingFailures(_:)`` for async work.
func reportingFailures(_ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch let failure as FileFailure {
        printError(failure.description)
        throw ExitCode(1)
    }
}
