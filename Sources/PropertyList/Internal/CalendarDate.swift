/// Civil (proleptic Gregorian, UTC) dates ↔ seconds since 2001-01-01 00:00:00 UTC, without Foundation.
///
/// The calendar is ISO 8601's: the Gregorian rules extended before 1582 (no Julian dates) and astronomical year
/// numbers (the year before 0001 is 0000, then -0001). Every reader, writer and `hangar print` use it, so a date
/// shows the same day everywhere. The day arithmetic is Howard Hinnant's `days_from_civil` / `civil_from_days`.
struct CalendarDate: Equatable {
    var year: Int
    var month: Int
    var day: Int
    var hour: Int
    var minute: Int
    var second: Int

    /// Days from 1970-01-01 to 2001-01-01.
    static let daysFrom1970To2001: Int64 = 11_323
    /// The first instant of year -9999 and of year 10000: the range the XML and JSON date forms can write
    /// (four digits, with a minus sign before year 0000).
    static let writableRange: Range<Double> = {
        let first = CalendarDate(year: -9_999, month: 1, day: 1, hour: 0, minute: 0, second: 0).secondsSince2001
        let end = CalendarDate(year: 10_000, month: 1, day: 1, hour: 0, minute: 0, second: 0).secondsSince2001
        return Double(first)..<Double(end)
    }()

    /// Whether `year` is a Gregorian leap year.
    static func isLeapYear(_ year: Int) -> Bool {
        year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
    }

    /// The number of days in `month` (1…12) of `year`.
    static func daysInMonth(_ month: Int, year: Int) -> Int {
        switch month {
        case 2: isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Whether every field is in range (seconds 0…59: no leap seconds, as Apple's writers never produce them).
    var isValid: Bool {
        (1...12).contains(month) && day >= 1 && day <= Self.daysInMonth(month, year: year)
            && (0...23).contains(hour) && (0...59).contains(minute) && (0...59).contains(second)
    }

    /// Whole seconds since 2001-01-01 00:00:00 UTC. Fields must be valid and the year within ±10^9.
    var secondsSince2001: Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let shiftedMonth = Int64(month > 2 ? month - 3 : month + 9)
        let dayOfYear = (153 * shiftedMonth + 2) / 5 + Int64(day) - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let daysSince1970 = era * 146_097 + dayOfEra - 719_468
        let days = daysSince1970 - Self.daysFrom1970To2001
        return days * 86_400 + Int64(hour) * 3_600 + Int64(minute) * 60 + Int64(second)
    }

    /// The civil date of `seconds` whole seconds since 2001-01-01 00:00:00 UTC.
    init(secondsSince2001 seconds: Int64) {
        var days = seconds / 86_400
        var rest = seconds % 86_400
        if rest < 0 {
            rest += 86_400
            days -= 1
        }
        let z = days + Self.daysFrom1970To2001 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        self.year = Int(yearOfEra + era * 400 + (month <= 2 ? 1 : 0))
        self.month = Int(month)
        self.day = Int(dayOfYear - (153 * shiftedMonth + 2) / 5 + 1)
        self.hour = Int(rest / 3_600)
        self.minute = Int(rest % 3_600 / 60)
        self.second = Int(rest % 60)
    }

    init(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) {
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
        self.second = second
    }

    /// Parses `YYYY-MM-DDTHH:MM:SSZ`, optionally with a fraction `.d+` before the `Z` and a minus sign before a
    /// year before 0000 (`-0044-03-15T12:00:00Z`, which CF reads too), from `count` bytes given by `text`.
    /// Returns the seconds since 2001, or `nil` when the text or a field is invalid (CF normalises a day or
    /// month out of range, `2020-02-30`; this refuses it). Every valid date reads as CF reads it, negative
    /// years included.
    static func parseISO8601(count textCount: Int, byte text: (Int) -> UInt8) -> Double? {
        let negative = textCount > 0 && text(0) == UInt8(ascii: "-")
        let shift = negative ? 1 : 0
        let count = textCount - shift
        func byte(_ index: Int) -> UInt8 { text(index + shift) }
        // Fixed positions: 0123-56-89T12:45:78Z
        guard count >= 20 else { return nil }
        func number(_ start: Int, _ width: Int) -> Int? {
            var value = 0
            for index in start..<(start + width) {
                let digit = byte(index) &- UInt8(ascii: "0")
                guard digit < 10 else { return nil }
                value = value * 10 + Int(digit)
            }
            return value
        }
        guard byte(4) == UInt8(ascii: "-"), byte(7) == UInt8(ascii: "-"), byte(10) == UInt8(ascii: "T"),
            byte(13) == UInt8(ascii: ":"), byte(16) == UInt8(ascii: ":"),
            let year = number(0, 4), let month = number(5, 2), let day = number(8, 2),
            let hour = number(11, 2), let minute = number(14, 2), let second = number(17, 2)
        else { return nil }
        let date = CalendarDate(
            year: negative ? -year : year, month: month, day: day, hour: hour, minute: minute, second: second)
        guard date.isValid else { return nil }
        var fraction = 0.0
        var index = 19
        if byte(index) == UInt8(ascii: ".") {
            index += 1
            var text = "0."
            let digitsStart = index
            while index < count, case let digit = byte(index) &- UInt8(ascii: "0"), digit < 10 {
                text.unicodeScalars.append(Unicode.Scalar(UInt8(ascii: "0") + digit))
                index += 1
            }
            // Correctly rounded, unlike summing digit × 10^-k.
            guard index > digitsStart, let value = Double(text) else { return nil }
            fraction = value
        }
        guard index == count - 1, byte(index) == UInt8(ascii: "Z") else { return nil }
        return Double(date.secondsSince2001) + fraction
    }

    /// `YYYY-MM-DDTHH:MM:SS` for the whole second at or before `seconds` (the fraction is dropped, as Apple's
    /// XML writer does), plus, when `fractionDigits > 0` and the fraction is non-zero at that precision, `.`
    /// and up to that many digits (trailing zeros trimmed); then `Z`. A year before 0000 is written with a minus
    /// sign (`-0001`). `nil` when `seconds` is not finite or falls outside years -9999…9999.
    static func formatISO8601(_ seconds: Double, fractionDigits: Int = 0) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(21 + fractionDigits)
        return appendISO8601(seconds, fractionDigits: fractionDigits, to: &out) ? out : nil
    }

    /// ``formatISO8601(_:fractionDigits:)`` appended to `out` in place (no array per date or field);
    /// `false`, with nothing appended, when the date cannot be written.
    static func appendISO8601(_ seconds: Double, fractionDigits: Int = 0, to out: inout some ByteAppending) -> Bool {
        guard seconds.isFinite, writableRange.contains(seconds) else { return false }
        var whole = seconds.rounded(.down)
        var fraction = 0
        var fractionWidth = 0
        if fractionDigits > 0 {
            var scale = 1.0
            for _ in 0..<fractionDigits { scale *= 10 }
            var scaled = ((seconds - whole) * scale).rounded()
            if scaled >= scale {
                whole += 1
                scaled = 0
            }
            fraction = Int(scaled)
            fractionWidth = fractionDigits
            // Trailing zeros are trimmed.
            while fractionWidth > 0, fraction % 10 == 0 {
                fraction /= 10
                fractionWidth -= 1
            }
        }
        guard writableRange.contains(whole) else { return false }
        let date = CalendarDate(secondsSince2001: Int64(whole))
        if date.year < 0 { out.append(UInt8(ascii: "-")) }
        appendDigits(abs(date.year), width: 4, to: &out)
        out.append(UInt8(ascii: "-"))
        appendDigits(date.month, width: 2, to: &out)
        out.append(UInt8(ascii: "-"))
        appendDigits(date.day, width: 2, to: &out)
        out.append(UInt8(ascii: "T"))
        appendDigits(date.hour, width: 2, to: &out)
        out.append(UInt8(ascii: ":"))
        appendDigits(date.minute, width: 2, to: &out)
        out.append(UInt8(ascii: ":"))
        appendDigits(date.second, width: 2, to: &out)
        if fractionWidth > 0 {
            out.append(UInt8(ascii: "."))
            appendDigits(fraction, width: fractionWidth, to: &out)
        }
        out.append(UInt8(ascii: "Z"))
        return true
    }

    /// `value` in decimal, zero-padded to `width` digits (`value` has at most `width` digits).
    private static func appendDigits(_ value: Int, width: Int, to out: inout some ByteAppending) {
        var divisor = 1
        for _ in 1..<width { divisor *= 10 }
        var rest = value
        while divisor > 0 {
            out.append(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest / divisor))
            rest %= divisor
            divisor /= 10
        }
    }
}
