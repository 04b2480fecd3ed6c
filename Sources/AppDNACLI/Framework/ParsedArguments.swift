import AppDNACore

/// What the user typed for one command, validated against the table: flag values by long name
/// (in the order given), each already through its validation step, and operands.
public struct ParsedArguments: Sendable {
    private(set) var values: [String: [String]] = [:]
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

    // The text as typed, by name: for the parser and its tests. Commands read typed values
    // through their `Flag` descriptors instead, so a misspelt name cannot compile.

    /// A flag was given.
    func has(_ long: String) -> Bool { values[long] != nil }

    /// The text of a flag that takes a value (the last one given).
    func value(_ long: String) -> String? { values[long]?.last }

    /// Every text of a repeatable flag.
    func all(_ long: String) -> [String] { values[long] ?? [] }

    public func operand(_ index: Int) -> String? {
        index < operands.count ? operands[index] : nil
    }
}
