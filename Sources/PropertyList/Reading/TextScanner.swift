/// What the XML, OpenStep and JSON scanners share: a reader over the input, and errors located by line and
/// column (computed only when something fails).
protocol TextScanner {
    var reader: ByteReader { get }
}

extension TextScanner {
    /// The public error for `failure` at byte `offset` of the text.
    func failure(_ failure: CodecFailure, at offset: Int) -> PropertyListError {
        PropertyListError(failure, at: TextLocation.location(of: offset, in: reader))
    }

    /// How a message names what is at `offset`: the byte, quoted and printable, or the end of the input.
    func found(at offset: Int) -> String {
        guard offset < reader.count else { return "the end of the input" }
        return "'\(TextSnippet.printable(reader[offset]))'"
    }
}
