import AppDNACore

/// What the user typed for one command, validated against the table: flag values by long name
/// (in the order given), each already through its validation step, and operands.
public struct ParsedArguments: Sendable {
    private(set) var values: [String: [String]] = [:]
    private var operandList: [String] = []
    /// The same values after each flag's validation step (`FlagSpec.convert`), read through
    /// a typed `Flag` descriptor: `arguments[APIFlags.retries]` is an `Int`.
    private var typed: [String: [any Sendable]] = [:]
    /// The flags the command declares (set by the parser) and the undeclared ones it read.
    private var declared: Set<String>? = nil  // not an id: ASCII flag names
    private var command = ""
    private let reads = ArgumentReads()

    public init() {}

    /// From now on, reading a flag outside `flags` is a bug that `Runner` reports (70) after
    /// the command returns: a command that reads a flag it forgot to declare would otherwise
    /// silently get the default, whatever the user typed.
    mutating func declare(command: String, flags: [FlagSpec]) {
        self.command = command
        declared = Set(flags.map(\.long))
    }

    /// The undeclared flags read so far, as "--name" (empty when the command is sound).
    var undeclaredFlagsRead: [String] { reads.undeclared }

    /// Ends reading: the command's plan is built (`CommandSpec(planning:)`), and from now on
    /// its run reads the plan only. A read after this is a bug that `Runner` reports (70), as
    /// an undeclared read is: a flag read late is a decision taken outside the plan, which the
    /// mode's conflict check never saw. Copies share the state, so closing the plan builder's
    /// copy closes the invocation's.
    func close() { reads.close() }

    /// Whether `close()` was called (the command planned its run).
    var isClosed: Bool { reads.isClosed }

    /// What was read after `close()`, as "--name" or "operands" (empty when the run kept to its plan).
    var lateReads: [String] { reads.late }

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
        if let declared, !declared.contains(flag.spec.long) { reads.addUndeclared("--" + flag.spec.long) }
        reads.noteRead("--" + flag.spec.long)
        return flag.read(typed[flag.spec.long] ?? [])
    }

    mutating func appendOperand(_ operand: String) {
        operandList.append(operand)
    }

    /// The operands, in order.
    public var operands: [String] {
        reads.noteRead("operands")
        return operandList
    }

    /// Whether the flag was on the command line (a flag with a default reads the same either way).
    public func given(_ flag: FlagSpec) -> Bool {
        reads.noteRead("--" + flag.long)
        return values[flag.long] != nil
    }

    // The text as typed, by name: for the parser and its tests. Commands read typed values
    // through their `Flag` descriptors instead, so a misspelt name cannot compile.

    /// A flag was given.
    func has(_ long: String) -> Bool {
        reads.noteRead("--" + long)
        return values[long] != nil
    }

    /// The text of a flag that takes a value (the last one given).
    func value(_ long: String) -> String? {
        reads.noteRead("--" + long)
        return values[long]?.last
    }

    /// Every text of a repeatable flag.
    func all(_ long: String) -> [String] {
        reads.noteRead("--" + long)
        return values[long] ?? []
    }

    public func operand(_ index: Int) -> String? {
        index < operands.count ? operandList[index] : nil
    }
}

/// Where `ParsedArguments` notes the reads that are bugs: a flag the command does not declare,
/// and anything read after the plan was built (`close()`). A class, because the arguments are a
/// value read from many places (copies share it).
final class ArgumentReads: Sendable {
    private struct State {
        var undeclared: [String] = []  // not an id: flag names
        var closed = false
        var late: [String] = []  // not an id: flag names and "operands"
    }
    private let state = Locked(State())

    func addUndeclared(_ name: String) {
        state.withLock { state in if !state.undeclared.contains(name) { state.undeclared.append(name) } }  // not an id: flag names
    }

    func close() { state.withLock { $0.closed = true } }

    /// Notes `name` as a late read when the arguments are closed.
    func noteRead(_ name: String) {
        state.withLock { state in
            if state.closed && !state.late.contains(name) { state.late.append(name) }  // not an id: flag names
        }
    }

    var isClosed: Bool { state.withLock { $0.closed } }
    var undeclared: [String] { state.withLock { $0.undeclared } }
    var late: [String] { state.withLock { $0.late } }
}
