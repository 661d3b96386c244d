extension PropertyList {
    /// The ISO 8601 text of a date (`2004-10-26T10:33:33Z`), exactly as the XML writer writes it: UTC, in the
    /// proleptic Gregorian calendar with astronomical year numbers (a date before 1582 is not a Julian date;
    /// the year before 0001 is 0000, then -0001), with up to `fractionDigits` digits of a non-zero fraction
    /// (rounded, trailing zeros trimmed; the XML writer uses none, the JSON writer six).
    ///
    /// Show dates with it wherever they must agree with the files this module writes: Foundation's
    /// `DateFormatter` switches to the Julian calendar before 1582-10-15, so it names another day for the
    /// same instant.
    ///
    /// - Returns: `nil` for a date that is not finite or falls outside years -9999…9999.
    public static func iso8601Text(forDate seconds: Double, fractionDigits: Int = 0) -> String? {
        CalendarDate.formatISO8601(seconds, fractionDigits: max(0, fractionDigits)).map {
            String(decoding: $0, as: UTF8.self)
        }
    }

    /// The date an ISO 8601 text names, read as the XML reader reads `<date>` (and as
    /// ``iso8601Text(forDate:fractionDigits:)`` writes it): `YYYY-MM-DDTHH:MM:SSZ`, optionally with a fraction
    /// before the `Z`. Use it to read back the strings ``JSONEncodingOptions/lossyDatesAndData`` writes.
    ///
    /// - Returns: the seconds since 2001-01-01 00:00:00 UTC, or `nil` when `text` is not such a date.
    public static func date(fromISO8601Text text: String) -> Double? {
        let bytes = Array(text.utf8)
        return CalendarDate.parseISO8601(count: bytes.count) { bytes[$0] }
    }
}
