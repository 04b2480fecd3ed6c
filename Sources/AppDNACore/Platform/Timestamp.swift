/// Milliseconds since 1970 from the forms users type and events carry, without Foundation.
public enum Timestamp {
    /// Accepts an integer (milliseconds since 1970) or ISO 8601 / RFC 3339
    /// (`2026-02-19`, `2026-02-19T10:00:00Z`, `2026-02-19T10:00:00.250+02:00`).
    public static func milliseconds(from text: String) -> Int64? {
        if let integer = Int64(text) { return integer }
        return parseISO8601(Array(text.utf8))
    }

    static func parseISO8601(_ s: [UInt8]) -> Int64? {
        var i = 0
        func digits(_ count: Int) -> Int? {
            guard i + count <= s.count else { return nil }
            var value = 0
            for _ in 0..<count {
                let d = Int(s[i]) - 48
                guard (0...9).contains(d) else { return nil }
                value = value * 10 + d
                i += 1
            }
            return value
        }
        func expect(_ c: UInt8) -> Bool {
            guard i < s.count, s[i] == c else { return false }
            i += 1
            return true
        }
        guard let year = digits(4), expect(45), let month = digits(2), expect(45), let day = digits(2),
              (1...12).contains(month), (1...31).contains(day) else { return nil }
        var seconds = 0, millis = 0, offset = 0
        if i < s.count {
            guard s[i] == 84 || s[i] == 116 || s[i] == 32 else { return nil } // T, t or space
            i += 1
            guard let hour = digits(2), expect(58), let minute = digits(2), hour < 24, minute < 60 else { return nil }
            seconds = hour * 3600 + minute * 60
            if expect(58) {
                guard let second = digits(2), second <= 60 else { return nil }
                seconds += second
                if expect(46) {
                    var scale = 100, any = false
                    while i < s.count, (48...57).contains(s[i]) {
                        millis += Int(s[i] - 48) * scale
                        scale /= 10
                        i += 1
                        any = true
                    }
                    guard any else { return nil }
                }
            }
            if expect(90) || expect(122) {
                offset = 0
            } else if i < s.count, s[i] == 43 || s[i] == 45 {
                let sign = s[i] == 45 ? -1 : 1
                i += 1
                guard let oh = digits(2) else { return nil }
                _ = expect(58)
                guard let om = digits(2) else { return nil }
                offset = sign * (oh * 3600 + om * 60)
            } else {
                return nil
            }
        }
        guard i == s.count else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        return Int64(days * 86_400 + seconds - offset) * 1000 + Int64(millis)
    }

    /// Days since 1970-01-01 for a proleptic Gregorian date (Howard Hinnant's algorithm).
    public static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// `2026-02-19T10:00:00Z` (with `.mmm` when the milliseconds are not zero).
    public static func iso8601(milliseconds: Int64) -> String {
        var days = Int(milliseconds.dividedFloor(by: 86_400_000))
        let rest = Int(milliseconds - Int64(days) * 86_400_000)
        days += 719_468
        let era = (days >= 0 ? days : days - 146_096) / 146_097
        let dayOfEra = days - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func pad(_ value: Int, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        let seconds = rest / 1000, millis = rest % 1000
        var result = "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))T\(pad(seconds / 3600, 2)):\(pad(seconds / 60 % 60, 2)):\(pad(seconds % 60, 2))"
        if millis != 0 { result += "." + pad(millis, 3) }
        return result + "Z"
    }
}

extension Int64 {
    func dividedFloor(by divisor: Int64) -> Int64 {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }
}
