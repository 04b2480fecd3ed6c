/// Every way the tool writes a number for a person: sizes, durations, shares. One place, so a
/// new message reuses a style instead of writing another, and without Foundation's
/// `String(format:)`. The styles differ on purpose (each is part of some command's stable
/// output); pick the one whose examples match.
public enum NumberText {
    // MARK: sizes

    /// "64 MiB", "1 KiB", "100 bytes": a limit, read the way a person would write it.
    public static func binarySize(_ count: Int) -> String {
        if count >= 1 << 20 && count % (1 << 20) == 0 { return "\(count >> 20) MiB" }
        if count >= 1 << 10 && count % (1 << 10) == 0 { return "\(count >> 10) KiB" }
        return "\(count) bytes"
    }

    /// "512 bytes", "3.4 kB", "5.1 MB": a measured size, in decimal units.
    public static func decimalSize(_ count: Int) -> String {
        if count < 1000 { return "\(count) bytes" }
        if count < 1_000_000 { return "\(oneDecimal(Double(count) / 1000)) kB" }
        return "\(oneDecimal(Double(count) / 1_000_000)) MB"
    }

    // MARK: durations

    /// "0.3 s", "12.0 s": a measured time, always one decimal.
    public static func seconds(_ value: Double) -> String { oneDecimal(value) + " s" }

    /// "60 s", "2.5 s": a configured time (a timeout), whole when it is whole.
    public static func wholeOrTenthSeconds(_ seconds: Double) -> String {
        if seconds == seconds.rounded() && seconds < 1e9 { return "\(Int(seconds)) s" }
        return "\(tenths(seconds)) s"
    }

    /// "12.3 ms": a measured latency.
    public static func milliseconds(_ value: Double) -> String { "\(tenths(value)) ms" }

    /// "3d 4h", "2h 5m", "7m"; "in the future (5m ahead)" for a negative age.
    public static func age(milliseconds ms: Int64) -> String {
        if ms < 0 { return "in the future (\(age(milliseconds: -ms)) ahead)" }
        let minutes = ms / 60_000
        let days = minutes / 1440, hours = minutes / 60 % 24, mins = minutes % 60
        if days > 0 { return "\(days)d \(hours)h" }
        if hours > 0 { return "\(hours)h \(mins)m" }
        return "\(mins)m"
    }

    // MARK: shares

    /// "12.345%" (share 0.12345): a fixed number of decimals, for aligned tables.
    public static func fixedPercent(_ share: Double, places: Int = 3) -> String {
        fixed(share * 100, places: places) + "%"
    }

    /// "0%", "100%", "12.34%", "50.0%": a share in a sentence, at most two decimals.
    public static func sentencePercent(_ share: Double) -> String {
        let value = share * 100
        if value == 0 || value == 100 { return "\(Int(value))%" }
        let scaled = (value * 100).rounded() / 100
        return "\(scaled)%"
    }

    /// "50%", "12.34%": a share rounded to two decimals, whole when it is whole.
    public static func roundedPercent(_ share: Double) -> String {
        shortest((share * 10_000).rounded() / 100) + "%"
    }

    // MARK: plain numbers

    /// 20 rather than 20.0; 12.5 as it is.
    public static func shortest(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }

    /// "2.0", "0.3": exactly one decimal.
    public static func oneDecimal(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }

    /// `value` rounded to tenths, as Swift prints a Double ("12.3", "4.0").
    public static func tenths(_ value: Double) -> Double { (value * 10).rounded() / 10 }

    /// Exactly `places` decimals ("0.050" for 0.05 with 3 places); a value too large for that
    /// is written as Swift prints it.
    public static func fixed(_ value: Double, places: Int) -> String {
        guard value.isFinite else { return String(value) }
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        let scaled = (abs(value) * scale).rounded()
        guard scaled < 9e15 else { return String(value) }
        let integer = UInt64(scaled)
        let whole = integer / UInt64(scale), fraction = integer % UInt64(scale)
        var fractionText = String(fraction)
        fractionText = String(repeating: "0", count: places - fractionText.count) + fractionText
        return (value < 0 && scaled != 0 ? "-" : "") + String(whole) + (places > 0 ? "." + fractionText : "")
    }
}
