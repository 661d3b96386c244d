import HangarSync
import Testing

/// The event stream reader both HTTP clients share, fed as a network would: whole, byte by byte, cut anywhere.
struct SyncEventParserTests {
    /// A stream as a server writes it: the opening comment, events, keep-alives between.
    static let stream = Array(
        (SyncHTTP.eventStreamOpening(after: SyncCheckpoint(storeID: "S", epoch: "E", through: 4, mark: "m"))
            + SyncHTTP.event(SyncNotice(sequence: 5)) + SyncHTTP.keepAlive + SyncHTTP.event(SyncNotice(sequence: 9))
            + SyncHTTP.keepAlive + SyncHTTP.event(SyncNotice(sequence: 12))).utf8)

    static func read(_ pieces: [ArraySlice<UInt8>]) throws -> [Int] {
        var parser = SyncHTTP.EventParser()
        var sequences: [Int] = []
        for piece in pieces { sequences += try parser.read(piece).map(\.sequence) }
        return sequences
    }

    @Test func aServersStreamReadsWhole() throws {
        #expect(try Self.read([Self.stream[...]]) == [5, 9, 12])
    }

    @Test func aStreamFedByteByByteReadsTheSame() throws {
        #expect(try Self.read(Self.stream.indices.map { Self.stream[$0...$0] }) == [5, 9, 12])
    }

    /// Cut in two at every offset: the same notices, each once, none before its event is whole.
    @Test func aStreamCutAnywhereReadsTheSame() throws {
        for cut in 0...Self.stream.count {
            var parser = SyncHTTP.EventParser()
            let first = try parser.read(Self.stream[..<cut]).map(\.sequence)
            let rest = try parser.read(Self.stream[cut...]).map(\.sequence)
            #expect(first + rest == [5, 9, 12], "cut at \(cut)")
            let wholeEvents = String(decoding: Self.stream[..<cut], as: UTF8.self).components(separatedBy: "\n\n")
                .dropLast().filter { $0.contains("event: change") }.count
            #expect(first.count == wholeEvents, "cut at \(cut)")
        }
    }

    @Test func linesMayEndWithCRLF() throws {
        let text = ": hello\r\n\r\nid: 3\r\nevent: change\r\ndata: 3\r\n\r\nid: 4\r\ndata: 4\r\n\r\n"
        #expect(try Self.read([Array(text.utf8)[...]]) == [3, 4])
    }

    @Test func otherEventsCommentsAndBadIdsAreSkipped() throws {
        let text =
            "id: 1\nevent: ping\ndata: 1\n\n: id: 2\n\nid: two\nevent: change\n\nevent: change\ndata: 3\n\n"
            + "id:4\nevent:message\n\nid: 5\nevent: change\n"
        #expect(try Self.read([Array(text.utf8)[...]]) == [4])
    }

    @Test func anEventThatNeverEndsIsRefused() throws {
        var parser = SyncHTTP.EventParser()
        let line = Array(repeating: UInt8(ascii: "x"), count: 1024) + [UInt8(ascii: "\n")]
        for _ in 0..<63 { #expect(try parser.read(line).isEmpty) }
        #expect {
            _ = try parser.read(line + line)
        } throws: { ($0 as? SyncError)?.code == .malformedAnswer }
    }
}
