import AppDNACore

/// What the user typed for one command, validated against the table: each flag's values (in
/// the order given, each already through its validation step) kept under the identity of the
/// declaration the parser matched (`FlagSpec.id`), and operands. A value is read back only
/// through that declaration: `arguments[APIFlags.retries]` is an `Int`.
public struct ParsedArguments: Sendable {
    /// One declaration's values: the text as typed and the typed value `FlagSpec.convert` made.
    private struct Given: Sendable {
        let flag: FlagSpec
        var texts: [String] = []
        var typed: [any Sendable] = []
    }

    private var stored: [FlagID: Given] = [:]
    private var operandList: [String] = []
    /// The flags the command declares (set by the parser), by identity.
    private var declared: [FlagID: FlagSpec]? = nil
    private var command = ""
    private let reads = ArgumentReads()

    public init() {}

    /// From now on, reading a flag outside `flags` is a bug that `Runner` reports (70) after
    /// the command returns: a command that reads a flag it forgot to declare, or another
    /// declaration of a name it declares, would otherwise silently get the default, whatever
    /// the user typed.
    mutating func declare(command: String, flags: [FlagSpec]) {
        self.command = command
        var byID: [FlagID: FlagSpec] = [:]
        for flag in flags { byID[flag.id] = flag }
        declared = byID
    }

    /// Whether the command declares `flag` (this declaration, not another of its name): for
    /// code several commands share whose commands declare different flags of one name
    /// (`--secret-file`, repeatable or not).
    func declares(_ flag: FlagSpec) -> Bool {
        declared?[flag.id] != nil
    }

    /// The undeclared flags read so far, as "--name" (empty when the command is sound).
    var undeclaredFlagsRead: [String] { reads.undeclared }

    /// The flags read as a type their values are not, as "--name as Type" (empty when sound).
    var mistypedFlagsRead: [String] { reads.mistyped }

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

    /// Every declaration read since the last `forgetReads()`, in the order first read: what a
    /// plan builder reads, for the test that checks it against the mode's `reads`
    /// (`BucketPlanReadsTests`).
    var flagsRead: [FlagID] { reads.flagsRead }

    /// Starts `flagsRead` afresh (the parser's own reads, such as the operands a mode takes, are not the builder's).
    func forgetReads() { reads.forgetFlagsRead() }

    /// Validates `value` with the flag's own step and stores both the text and the typed
    /// value, under the flag's identity.
    mutating func record(_ flag: FlagSpec, value: String?) throws(Failure) {
        let text = value ?? ""
        let converted: any Sendable = flag.takesValue ? try flag.convert(text) : true
        var entry = stored[flag.id] ?? Given(flag: flag)
        if flag.repeatable {
            entry.texts.append(text)
            entry.typed.append(converted)
        } else {
            // Last flag wins, as in most Unix tools: a wrapper script can append overrides.
            entry.texts = [text]
            entry.typed = [converted]
        }
        stored[flag.id] = entry
    }

    /// Notes a read of `flag`: undeclared (another command's flag, or another declaration of
    /// a name the command declares) or late.
    private func noteRead(_ flag: FlagSpec) {
        if let declared, declared[flag.id] == nil {
            let namesake = declared.values.contains { $0.long == flag.long }  // not an id: ASCII flag names
            reads.addUndeclared("--" + flag.long + (namesake ? " (another declaration of that name than the command's)" : ""))
        }
        reads.noteRead("--" + flag.long)
        reads.noteFlagRead(flag.id)
    }

    /// The typed value of `flag`: its default (or nil, false, []) when not given.
    public subscript<Value>(flag: Flag<Value>) -> Value {
        noteRead(flag.spec)
        guard let entry = stored[flag.spec.id] else { return flag.absent() }
        if let value = flag.given(entry.typed) { return value }
        // Only a descriptor put together from another flag's parts gets here: a bug, loud.
        reads.addMistyped("--\(flag.spec.long) as \(Value.self), but its value is \(entry.typed.last.map { "\(type(of: $0))" } ?? "none")")
        return flag.absent()
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
        noteRead(flag)
        return stored[flag.id] != nil
    }

    /// Whether `flag` was on the command line, without counting as a read: for the tests that
    /// check a plan read every flag given (`EveryCommandPlansTests`).
    func wasTyped(_ flag: FlagSpec) -> Bool {
        stored[flag.id] != nil
    }

    /// Every text given for `flag`, as typed (one at most unless it is repeatable): for hints
    /// that repeat the user's words ("run appdna warehouse … --timeout 5").
    func texts(_ flag: FlagSpec) -> [String] {
        noteRead(flag)
        return stored[flag.id]?.texts ?? []
    }

    // The text as typed, by name: for the parser's tests. The name is looked up among the
    // flags given (one declaration of a name per command: `CommandTableInvariantTests`);
    // commands read typed values through their `Flag` descriptors instead.

    private func texts(named long: String) -> [String]? {
        guard let entry = stored.values.first(where: { $0.flag.long == long }) else { return nil }  // not an id: ASCII flag names
        noteRead(entry.flag)
        return entry.texts
    }

    /// A flag was given.
    func has(_ long: String) -> Bool {
        texts(named: long) != nil
    }

    /// The text of a flag that takes a value (the last one given).
    func value(_ long: String) -> String? {
        texts(named: long)?.last
    }

    /// Every text of a repeatable flag.
    func all(_ long: String) -> [String] {
        texts(named: long) ?? []
    }

    public func operand(_ index: Int) -> String? {
        index < operands.count ? operandList[index] : nil
    }
}

/// Where `ParsedArguments` notes the reads that are bugs: a flag the command does not declare,
/// a flag read as a type its value is not, and anything read after the plan was built (`close()`). A class, because the arguments are a
/// value read from many places (copies share it).
final class ArgumentReads: Sendable {
    private struct State {
        var undeclared: [String] = []  // not an id: flag names
        var mistyped: [String] = []  // not an id: flag names and types
        var closed = false
        var late: [String] = []  // not an id: flag names and "operands"
        var flagsRead: [FlagID] = []
    }
    private let state = Locked(State())

    func addUndeclared(_ name: String) {
        state.withLock { state in if !state.undeclared.contains(name) { state.undeclared.append(name) } }  // not an id: flag names
    }

    func addMistyped(_ what: String) {
        state.withLock { state in if !state.mistyped.contains(what) { state.mistyped.append(what) } }  // not an id: flag names
    }

    func close() { state.withLock { $0.closed = true } }

    /// Notes `name` as a late read when the arguments are closed.
    func noteRead(_ name: String) {
        state.withLock { state in
            if state.closed && !state.late.contains(name) { state.late.append(name) }  // not an id: flag names
        }
    }

    func noteFlagRead(_ id: FlagID) {
        state.withLock { state in if !state.flagsRead.contains(id) { state.flagsRead.append(id) } }
    }

    func forgetFlagsRead() { state.withLock { $0.flagsRead = [] } }

    var flagsRead: [FlagID] { state.withLock { $0.flagsRead } }
    var isClosed: Bool { state.withLock { $0.closed } }
    var undeclared: [String] { state.withLock { $0.undeclared } }
    var mistyped: [String] { state.withLock { $0.mistyped } }
    var late: [String] { state.withLock { $0.late } }
}
