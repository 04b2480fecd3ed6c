import AppDNACore

/// What the user typed for one command, validated against the table: flag values by long name
/// (in the order given) and operands. Typed accessors turn bad values into usage errors.
public struct ParsedArguments: Sendable {
    public private(set) var values: [String: [String]] = [:]
    public private(set) var operands: [String] = []
    /// The same values after each flag's validation step (`FlagSpec.convert`), read through
    /// a typed `Flag` descriptor: `arguments[APIFlags.retries]` is an `Int`.
    private var typed: [String: [any Sendable]] = [:]

    public init() {}

    /// Validates `value` with the flag's own step and stores both the text and the typed value.
    mutating func record(_ flag: FlagSpec, value: String?) throws(Failure) {
        let text = value ?? ""
        let converted: any Sendable = flag.takesValue ? try flag.convert(text) : true
        if flag.repeatable {
            values[flag.long, default: []].append(text)
            typed[flag.long, default: []].append(converted)
        } else {
            // Last flag wins, as in most Unix tools: a wrapper script can append overrides.
            values[flag.long] = [text]
            typed[flag.long] = [converted]
        }
    }

    /// The typed value of `flag`: its default (or nil, false, []) when not given.
    public subscript<Value>(flag: Flag<Value>) -> Value {
        flag.read(typed[flag.spec.long] ?? [])
    }

    mutating func appendOperand(_ operand: String) {
        operands.append(operand)
    }

    /// Whether the flag was on the command line (a flag with a default reads the same either way).
    public func given(_ flag: FlagSpec) -> Bool { values[flag.long] != nil }

    /// A switch was given.
    public func has(_ long: String) -> Bool { values[long] != nil }

    /// The value of a flag that takes one (the last one given).
    public func value(_ long: String) -> String? { values[long]?.last }

    /// Every value of a repeatable flag.
    public func all(_ long: String) -> [String] { values[long] ?? [] }

    public func operand(_ index: Int) -> String? {
        index < operands.count ? operands[index] : nil
    }

    /// An integer flag value within `range`.
    public func integer(_ long: String, in range: ClosedRange<Int>) throws(Failure) -> Int? {
        guard let text = value(long) else { return nil }
        guard let number = Int(text), range.contains(number) else {
            throw Failure(.usage, "--\(long) takes a whole number from \(range.lowerBound) to \(range.upperBound), not '\(text)'")
        }
        return number
    }

    /// A decimal flag value within `range`.
    public func decimal(_ long: String, in range: ClosedRange<Double>) throws(Failure) -> Double? {
        guard let text = value(long) else { return nil }
        guard let number = Double(text), number.isFinite, range.contains(number) else {
            throw Failure(.usage, "--\(long) takes a number from \(range.lowerBound) to \(range.upperBound), not '\(text)'")
        }
        return number
    }
}
