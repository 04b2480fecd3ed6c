import AppDNACore

/// What the user typed for one command, validated against the table: flag values by long name
/// (in the order given), each already through its validation step, and operands.
public struct ParsedArguments: Sendable {
    private(set) var values: [String: [String]] = [:]
    public private(set) var operands: [String] = []
    /// The same values after each flag's validation step (`FlagSpec.convert`), read through
    /// a typed `Flag` descriptor: `arguments[APIFlags.retries]` is an `Int`.
    private var typed: [String: [any Sendable]] = [:]
    /// The flags the command declares (set by the parser) and the undeclared ones it read.
    private var declared: Set<String>? = nil  // not an id: ASCII flag names
    private var command = ""
    private let undeclaredReads = UndeclaredReads()

    public init() {}

    /// From now on, reading a flag outside `flags` is a bug that `Runner` reports (70) after
    /// the command returns: a command that reads a flag it forgot to declare would otherwise
    /// silently get the default, whatever the user typed.
    mutating func declare(command: String, flags: [FlagSpec]) {
        self.command = command
        declared = Set(flags.map(\.long))
    }

    /// The undeclared flags read so far, as "--name" (empty when the command is sound).
    var undeclaredFlagsRead: [String] { undeclaredReads.names }

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
        if let declared, !declared.contains(flag.spec.long) { undeclaredReads.add("--" + flag.spec.long) }
        return flag.read(typed[flag.spec.long] ?? [])
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

/// Where `ParsedArguments` notes an undeclared read: a class, because the arguments are a
/// value read from many places (copies share it).
final class UndeclaredReads: Sendable {
    private let list = Locked<[String]>([])
    func add(_ name: String) { list.withLock { list in if !list.contains(name) { list.append(name) } } }  // not an id: flag names
    var names: [String] { list.withLock { $0 } }
}
