/// The shapes of the one table that describes every command and flag of `appdna`.
///
/// Parsing, `--help`, `appdna help`, the man page and the bash/zsh/fish completions are all
/// generated from values of these types (see `CommandTable`), so they cannot drift apart.

import AppDNACore

/// How a shell should complete a flag's value or an operand.
public enum ValueCompletion: Sendable, Equatable {
    case none
    case file
    case directory
    /// Exactly one of these words (also enforced by the parser).
    case choices([String])
}

/// One flag: `--long`, optionally `-s`, either a switch or taking one value.
public struct FlagSpec: Sendable {
    /// The declaration's identity, made when it is declared: the parsed arguments store and
    /// read its value by this, never by `long` (see `FlagID`).
    public let id: FlagID
    public let long: String
    public let short: Character?
    /// Name of the value in help (`--output PATH`); nil for a switch.
    public let valueName: String?
    /// One line for `--help` and completions.
    public private(set) var summary: String
    /// Extra paragraph for the man page, when one line is not enough.
    public let details: String?
    public let completion: ValueCompletion
    /// Repeatable flags accumulate every value; others keep the last one given.
    public let repeatable: Bool
    public let defaultValue: String?
    /// Hidden flags parse but are not advertised.
    public let hidden: Bool
    /// The accepted numbers, as help shows them (`0-100`); nil when any word is accepted.
    public let range: String?
    /// The smallest and largest accepted numbers of a numeric flag, for the invariant tests
    /// (set even when the summary states the range itself, as `bucket --count` does).
    public let bounds: ClosedRange<Double>?
    /// The validation step: turns the text typed into the flag's typed value, or throws the
    /// usage error (64). The parser runs it on every value, so a bad value stops the command
    /// before it starts, whichever command reads it. Built by `Flag` (Framework/Flag.swift).
    public let convert: @Sendable (String) throws(Failure) -> any Sendable
    /// A value `convert` accepts, for the invariant tests (the range's lower bound, a choice).
    public let sampleValue: String

    public init(_ long: String, short: Character? = nil, value valueName: String? = nil, _ summary: String,
                details: String? = nil, completion: ValueCompletion = .none, repeatable: Bool = false,
                default defaultValue: String? = nil, hidden: Bool = false, range: String? = nil,
                bounds: ClosedRange<Double>? = nil, sampleValue: String? = nil,
                convert: @escaping @Sendable (String) throws(Failure) -> any Sendable = { $0 }) {
        self.id = FlagID()
        self.long = long
        self.short = short
        self.valueName = valueName
        self.summary = summary
        self.details = details
        self.completion = completion
        self.repeatable = repeatable
        self.defaultValue = defaultValue
        self.hidden = hidden
        self.range = range
        self.bounds = bounds
        self.convert = convert
        self.sampleValue = sampleValue ?? defaultValue ?? {
            if case .choices(let words) = completion { return words[0] }
            return "v1"
        }()
    }

    public var takesValue: Bool { valueName != nil }

    /// The same declaration (same identity) with another help line (`Flag.worded`).
    func worded(_ summary: String) -> FlagSpec {
        var copy = self
        copy.summary = summary
        return copy
    }

    public var choices: [String]? {
        if case .choices(let words) = completion { return words }
        return nil
    }
}

/// A positional argument.
public struct OperandSpec: Sendable {
    public let name: String
    public let summary: String
    public let optional: Bool
    /// Takes every remaining operand.
    public let variadic: Bool
    public let completion: ValueCompletion
    /// Whether `.choices` are the only words accepted (the parser refuses others), or only the
    /// words completion offers (`webhook trigger TYPE` takes any type with --body).
    public let onlyChoices: Bool

    public init(_ name: String, _ summary: String, optional: Bool = false, variadic: Bool = false,
                completion: ValueCompletion = .none, onlyChoices: Bool = true) {
        self.name = name
        self.summary = summary
        self.optional = optional
        self.variadic = variadic
        self.completion = completion
        self.onlyChoices = onlyChoices
    }

    /// `USER`, `[SALT]`, `FILE...`
    public var usageText: String {
        let core = variadic ? "\(name)..." : name
        return optional ? "[\(core)]" : core
    }
}

/// An example invocation shown in help and the man page.
public struct ExampleSpec: Sendable {
    public let command: String
    public let explanation: String
    public init(_ command: String, _ explanation: String) {
        self.command = command
        self.explanation = explanation
    }
}

/// A titled two-column list a command's help and its man page section show after the options,
/// e.g. the finding codes of `bundle validate` (one row per code).
public struct ReferenceTable: Sendable {
    public let title: String
    public let rows: [(term: String, text: String)]
    public init(_ title: String, rows: [(term: String, text: String)]) {
        self.title = title
        self.rows = rows
    }
}

/// An environment variable the tool reads: help of the commands in `usedBy` (all commands when
/// empty) and the man page's ENVIRONMENT section describe it.
public struct EnvironmentSpec: Sendable {
    public let name: String
    public let summary: String
    /// Command paths that read it; empty for variables every command honours (NO_COLOR).
    public let usedBy: [[String]]
    public init(_ name: String, _ summary: String, usedBy: [[String]] = []) {
        self.name = name
        self.summary = summary
        self.usedBy = usedBy
    }
}

/// A runnable command: `appdna bucket`, `appdna bundle validate`.
public struct CommandSpec: Sendable {
    /// Words after `appdna`, e.g. `["bundle", "validate"]`.
    public let path: [String]
    public let summary: String
    public let discussion: String
    public let operands: [OperandSpec]
    public let flags: [FlagSpec]
    public let examples: [ExampleSpec]
    public let hidden: Bool
    /// Further synopsis lines for forms the operands alone do not show (`--self-test`).
    public let alternativeUsages: [String]
    /// Reference lists shown after the options (finding codes and the like).
    public let references: [ReferenceTable]
    /// The operands expected given the flags present; a flag like `--self-test` needs none.
    public let operandsGiven: @Sendable (ParsedArguments) -> [OperandSpec]
    /// Its plan and perform (`CommandRun.planned`): the table takes nothing else.
    public let run: CommandRun

    public init(_ path: [String], summary: String, discussion: String = "", operands: [OperandSpec] = [],
                flags: [FlagSpec] = [], examples: [ExampleSpec] = [], hidden: Bool = false,
                alternativeUsages: [String] = [], references: [ReferenceTable] = [],
                operandsGiven: (@Sendable (ParsedArguments) -> [OperandSpec])? = nil,
                run: CommandRun) {
        self.path = path
        self.summary = summary
        self.discussion = discussion
        self.operands = operands
        self.flags = flags
        self.examples = examples
        self.hidden = hidden
        self.alternativeUsages = alternativeUsages
        self.references = references
        self.operandsGiven = operandsGiven ?? { _ in operands }
        self.run = run
    }

    public var name: String { path.joined(separator: " ") }
}

/// A word that only groups commands: `appdna bundle …`.
public struct GroupSpec: Sendable {
    public let name: String
    public let summary: String
    public init(_ name: String, summary: String) {
        self.name = name
        self.summary = summary
    }
}
