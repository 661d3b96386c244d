/// Line and column of a byte offset in a text input, computed only when an error is thrown.
enum TextLocation {
    /// The 1-based line and column (in UTF-8 bytes) of `offset`.
    ///
    /// A line ends at `\n`, at `\r\n` (one break) or at a lone `\r`. An offset past the end is reported as
    /// the position just after the last byte.
    static func location(of offset: Int, in reader: ByteReader) -> PropertyListError.Location {
        let target = min(max(offset, 0), reader.count)
        var line = 1
        var lineStart = 0
        var index = 0
        while index < target {
            let byte = reader[index]
            if byte == 0x0A {
                line += 1
                lineStart = index + 1
            } else if byte == 0x0D {
                // `\r\n` counts once, at the `\n`.
                if index + 1 < reader.count, reader[index + 1] == 0x0A {
                    index += 1
                    if index >= target { break }
                }
                line += 1
                lineStart = index + 1
            }
            index += 1
        }
        return .line(line, column: target - lineStart + 1)
    }

}
