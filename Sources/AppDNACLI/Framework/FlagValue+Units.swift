import AppDNACore

/// The one syntax for durations and sizes, shared by every flag that takes one, so that
/// `--timeout 5s`, `--max-age 7d` and `--latency 250ms` all read the same way:
/// - a duration is a number of seconds (`30`, `0.5`) or a number with one of the suffixes
///   `ms`, `s`, `m`, `h`, `d`;
/// - a size is a whole number of bytes (`1048576`) or a number with `B`, `KiB`, `MiB` or `GiB`
///   (`512KiB`, `1MiB`, `1.5GiB`; powers of 1024).
public enum UnitText {
    /// What help says once about both forms (in the man page's and `appdna --help`'s notes).
    public static var note: String {
        "Durations are seconds (30, 0.5) or take a suffix: ms, s, m, h, d (250ms, 5s, 2m, 1h, 7d). "
            + "Sizes are bytes (1048576) or take a suffix: B, KiB, MiB, GiB (512KiB, 1MiB)."
    }

    static let durationUnits: [(suffix: String, seconds: Double)] = [("ms", 0.001), ("s", 1), ("m", 60), ("h", 3600), ("d", 86_400)]
    static let sizeUnits: [(suffix: String, bytes: Double)] = [("kib", 1024), ("mib", 1_048_576), ("gib", 1_073_741_824), ("b", 1)]

    /// Seconds from `30`, `0.5`, `250ms`, `5s`, `2m`, `1h`, `7d`; nil for anything else.
    public static func seconds(from text: String) -> Double? {
        let lower = text.lowercased()
        // "ms" before "s" and "m": the longest suffix that matches wins.
        for unit in durationUnits.sorted(by: { $0.suffix.count > $1.suffix.count }) where lower.hasSuffix(unit.suffix) {
            guard let number = plainNumber(String(lower.dropLast(unit.suffix.count))) else { return nil }
            return number * unit.seconds
        }
        return plainNumber(lower)
    }

    /// Bytes from `1048576`, `512KiB`, `1MiB`, `1.5GiB`, `100B`; nil for anything else (or a
    /// fraction of a byte).
    public static func bytes(from text: String) -> Int? {
        let lower = text.lowercased()
        for unit in sizeUnits where lower.hasSuffix(unit.suffix) {
            guard let number = plainNumber(String(lower.dropLast(unit.suffix.count))) else { return nil }
            let total = number * unit.bytes
            guard total < 9e18, total == total.rounded(.down) else { return nil }
            return Int(total)
        }
        guard let number = Int(lower), number >= 0 else { return nil }
        return number
    }

    /// A non-negative finite decimal written with digits (no sign, exponent, `inf` or `nan`).
    private static func plainNumber(_ text: String) -> Double? {
        guard !text.isEmpty, text.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2E }),
              let number = Double(text), number.isFinite else { return nil }
        return number
    }

    /// `1 ms` … `1 d` for help: the range in the same units a user types.
    static func durationText(_ seconds: Double) -> String {
        for unit in durationUnits.reversed() where seconds >= unit.seconds && (seconds / unit.seconds).rounded() == seconds / unit.seconds {
            return shortText(seconds / unit.seconds) + unit.suffix
        }
        return shortText(seconds) + "s"
    }

    static func shortText(_ number: Double) -> String { FlagValue<Double>.shortText(number) }

    static func sizeText(_ bytes: Int) -> String {
        for unit in [("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1024)] where bytes >= unit.1 && bytes % unit.1 == 0 {
            return "\(bytes / unit.1)\(unit.0)"
        }
        return "\(bytes)"
    }
}

extension FlagValue where Value == Double {
    /// A duration in seconds within `range` (seconds), in the one duration syntax.
    public static func duration(_ range: ClosedRange<Double>) -> FlagValue<Double> {
        let shown = "\(UnitText.durationText(range.lowerBound))-\(UnitText.durationText(range.upperBound))"
        return FlagValue<Double>(range: shown, bounds: range, choices: nil, sample: shortText(range.lowerBound)) { long, text throws(Failure) in
            guard let seconds = UnitText.seconds(from: text), range.contains(seconds) else {
                throw Failure(.usage, "--\(long) takes a duration from \(UnitText.durationText(range.lowerBound)) to \(UnitText.durationText(range.upperBound)) "
                              + "(seconds, or with ms, s, m, h, d: 250ms, 5s, 2m), not '\(text)'")
            }
            return seconds
        }
    }
}

extension FlagValue where Value == Int {
    /// A size in bytes within `range`, in the one size syntax.
    public static func size(_ range: ClosedRange<Int>) -> FlagValue<Int> {
        let shown = "\(UnitText.sizeText(range.lowerBound))-\(UnitText.sizeText(range.upperBound))"
        return FlagValue<Int>(range: shown, bounds: Double(range.lowerBound)...Double(range.upperBound), choices: nil,
                              sample: "\(range.lowerBound)") { long, text throws(Failure) in
            guard let bytes = UnitText.bytes(from: text), range.contains(bytes) else {
                throw Failure(.usage, "--\(long) takes a size from \(UnitText.sizeText(range.lowerBound)) to \(UnitText.sizeText(range.upperBound)) "
                              + "(bytes, or with KiB, MiB, GiB: 512KiB, 1MiB), not '\(text)'")
            }
            return bytes
        }
    }
}
