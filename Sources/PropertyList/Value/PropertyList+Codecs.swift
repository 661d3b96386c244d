extension PropertyList {
    /// Decodes a property list in any format this module reads, detecting which from the bytes.
    ///
    /// Detection: `bplist` magic → binary; otherwise the first non-blank character after an optional byte order
    /// mark (UTF-8, UTF-16 or UTF-32): `<` → XML; `{`/`[`/`"`-JSON that parses as JSON → JSON; anything else →
    /// OpenStep.
    public static func decode(
        _ bytes: [UInt8],
        limits: DecodingLimits = .default
    ) throws(PropertyListError) -> (value: PropertyList, format: PropertyListFormat) {
        let format = try FormatDetector.detect(bytes)
        switch format {
        case .binary:
            return (try BinaryReader.read(bytes, limits: limits), .binary)
        case .xml:
            return (try XMLReader.read(bytes, limits: limits), .xml)
        case .json:
            // JSON and OpenStep share `{`, `(`, `"`: try JSON first, fall back to OpenStep, which is a
            // superset for most shapes (plutil tries its plist readers first and JSON last).
            let jsonError: PropertyListError
            do {
                return (try JSONReader.read(bytes, limits: limits), .json)
            } catch {
                guard error.code == .malformed else { throw error }
                jsonError = error
            }
            do {
                return (try OpenStepReader.read(bytes, limits: limits), .openStep)
            } catch {
                // Neither reads it: report the reader that got further, which is the one the text was meant for.
                throw Self.furthest(jsonError, error)
            }
        case .openStep:
            return (try OpenStepReader.read(bytes, limits: limits), .openStep)
        }
    }

    /// Of two errors in the same text, the one found later in it.
    private static func furthest(_ a: PropertyListError, _ b: PropertyListError) -> PropertyListError {
        guard case .line(let lineA, let columnA) = a.location, case .line(let lineB, let columnB) = b.location else {
            return a
        }
        return (lineB, columnB) > (lineA, columnA) ? b : a
    }

    /// Decodes a binary property list (`bplist00`).
    public init(binary bytes: [UInt8], limits: DecodingLimits = .default) throws(PropertyListError) {
        self = try BinaryReader.read(bytes, limits: limits)
    }

    /// Decodes an XML property list.
    public init(xml bytes: [UInt8], limits: DecodingLimits = .default) throws(PropertyListError) {
        self = try XMLReader.read(bytes, limits: limits)
    }

    /// Decodes an old-style OpenStep (NeXTSTEP ASCII) property list.
    public init(openStep bytes: [UInt8], limits: DecodingLimits = .default) throws(PropertyListError) {
        self = try OpenStepReader.read(bytes, limits: limits)
    }

    /// Decodes JSON into a property list: objects become dictionaries, numbers integers or reals.
    /// `null` has no property-list form and is an error.
    public init(json bytes: [UInt8], limits: DecodingLimits = .default) throws(PropertyListError) {
        self = try JSONReader.read(bytes, limits: limits)
    }

    /// Encodes this value in `format`.
    ///
    /// With ``EncodingOptions/KeyOrder/sorted`` keys (the default) the writers are deterministic: equal values
    /// give identical bytes. With ``EncodingOptions/KeyOrder/kept`` each dictionary's keys are written in the
    /// order it keeps (a decoded file's, or the order they were added in), so a file read, edited and written
    /// again changes only where it was edited.
    /// Fails with ``PropertyListError/Code/unrepresentable`` for a value the format cannot hold
    /// (for example a date in strict JSON) and ``PropertyListError/Code/unsupported`` for OpenStep,
    /// which is read only.
    public func encoded(
        as format: PropertyListFormat,
        options: EncodingOptions = .init()
    ) throws(PropertyListError) -> [UInt8] {
        switch format {
        case .binary: try BinaryWriter.write(self, keyOrder: options.keyOrder)
        case .xml: try XMLWriter.write(self, keyOrder: options.keyOrder)
        case .json: try JSONWriter.write(self, options: options.json, keyOrder: options.keyOrder)
        case .openStep: throw PropertyListError(.readOnlyFormat("The OpenStep format is read only"))
        }
    }
}

/// Choices for ``PropertyList/encoded(as:options:)``.
public struct EncodingOptions: Sendable, Hashable {
    /// The order of each dictionary's keys in every format.
    public enum KeyOrder: Sendable, Hashable {
        /// Sorted by UTF-16 code unit, as `plutil` writes XML: equal values give identical bytes.
        case sorted
        /// The order each dictionary keeps: a decoded file's, or the order its keys were added in.
        case kept
    }

    /// How JSON output is shaped and what it does with dates and data.
    public var json: JSONEncodingOptions
    /// The order of each dictionary's keys; ``KeyOrder/sorted`` unless asked.
    public var keyOrder: KeyOrder

    /// Options with the given choices.
    public init(json: JSONEncodingOptions = .init(), keyOrder: KeyOrder = .sorted) {
        self.json = json
        self.keyOrder = keyOrder
    }
}

/// Choices for JSON output.
public struct JSONEncodingOptions: Sendable, Hashable {
    /// Indented, one entry per line.
    public var prettyPrinted: Bool
    /// Write dates as ISO-8601 strings (`2004-10-26T10:33:33Z`, with a fraction when there is one) and data as
    /// base64 strings, and UIDs as `{"CF$UID": n}` (which JSON reads back as that dictionary). Without it, as in
    /// `plutil -convert json`, a date, data or UID value is an error naming its path.
    public var lossyDatesAndData: Bool

    /// Options with the given choices; the defaults match `plutil -convert json`.
    public init(prettyPrinted: Bool = false, lossyDatesAndData: Bool = false) {
        self.prettyPrinted = prettyPrinted
        self.lossyDatesAndData = lossyDatesAndData
    }
}
