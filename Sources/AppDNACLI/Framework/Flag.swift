import AppDNACore

/// A flag declared once, with its type: the `FlagSpec` that help, the man page, completions
/// and the parser read, and how `ParsedArguments` hands its value to a command
/// (`arguments[APIFlags.retries]` is an `Int`, 3 when not given). The long name, the default
/// and the range are written here only; commands never look a flag up by its name: the value
/// is kept and read under the declaration's identity (`FlagSpec.id`), so two declarations of
/// one name are two flags.
///
/// Build one with `.switch`, `.optional`, `.defaulted` or `.repeated` and a `FlagValue`
/// (text, a ranged number, one of some choices).
public struct Flag<Value: Sendable>: Sendable {
    public let spec: FlagSpec
    /// The value when the flag was not given: false, nil, [] or the default.
    let absent: @Sendable () -> Value
    /// The value from what was stored under this declaration (in the order given, never
    /// empty): each one made by `spec.convert`, which this descriptor's factory built from
    /// the same `FlagValue<…>` as this function, so it is a value of this flag's type. Nil
    /// when one is not: a descriptor put together by hand from another flag's parts, which
    /// `ParsedArguments` reports as an internal error (70) rather than answer a default.
    let given: @Sendable ([any Sendable]) -> Value?

    init(spec: FlagSpec, absent: @escaping @Sendable () -> Value, given: @escaping @Sendable ([any Sendable]) -> Value?) {
        self.spec = spec
        self.absent = absent
        self.given = given
    }

    /// The same declaration (the same identity, so the same value) worded for one command:
    /// `--secret-stdin` says what stdin can no longer carry in each command that has it.
    func worded(_ summary: String) -> Flag {
        Flag(spec: spec.worded(summary), absent: absent, given: given)
    }
}

/// How a flag's text becomes its typed value: the validation step of the table, and what help
/// shows about the accepted values (a range, choices). One wording for every flag's errors.
public struct FlagValue<Value: Sendable>: Sendable {
    /// `0-100` for help; nil when not a number range.
    let range: String?
    /// The accepted numbers, for the invariant tests.
    let bounds: ClosedRange<Double>?
    let choices: [String]?
    /// A value `parse` accepts (the lower bound of a range, the first choice).
    let sample: String?
    let parse: @Sendable (_ long: String, _ text: String) throws(Failure) -> Value

    init(range: String?, bounds: ClosedRange<Double>? = nil, choices: [String]?, sample: String?,
         parse: @escaping @Sendable (_ long: String, _ text: String) throws(Failure) -> Value) {
        self.range = range
        self.bounds = bounds
        self.choices = choices
        self.sample = sample
        self.parse = parse
    }

    /// The same values, for a flag whose summary states its ranges itself (they differ by mode).
    var rangeInSummary: FlagValue {
        FlagValue(range: nil, bounds: bounds, choices: choices, sample: sample, parse: parse)
    }

    /// Any text.
    public static var text: FlagValue<String> {
        FlagValue<String>(range: nil, choices: nil, sample: nil, parse: { _, text in text })
    }

    /// A file or directory path: any text but the empty word (which names no file, and an
    /// open or a rename of it fails late, after work was done).
    public static var path: FlagValue<String> {
        FlagValue<String>(range: nil, choices: nil, sample: nil) { long, text throws(Failure) in
            guard !text.isEmpty else { throw Failure(.usage, "--\(long) takes a path, not an empty word") }
            return text
        }
    }

    /// A whole number within `range`.
    public static func integer(_ range: ClosedRange<Int>) -> FlagValue<Int> {
        // An open upper end reads as "0 or more" rather than 0-9223372036854775807, in help
        // and in the error alike.
        let open = range.upperBound == Int.max
        let shown = open ? "\(range.lowerBound) or more" : "\(range.lowerBound)-\(range.upperBound)"
        let words = open ? "\(range.lowerBound) or more" : "from \(range.lowerBound) to \(range.upperBound)"
        return FlagValue<Int>(range: shown, bounds: Double(range.lowerBound)...Double(range.upperBound), choices: nil, sample: "\(range.lowerBound)") { long, text throws(Failure) in
            // Plain digits only ('-' for a range below 0): Int() would also take '+1', and '01' reads as a typo.
            let digits = range.lowerBound < 0 && text.hasPrefix("-") ? text.utf8.dropFirst() : text.utf8[...]
            guard !digits.isEmpty, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), digits.count == 1 || digits.first != 0x30,
                  let number = Int(text), range.contains(number) else {
                throw Failure(.usage, "--\(long) takes a whole number \(words), not '\(text)'")
            }
            return number
        }
    }

    /// A finite decimal number within `range`.
    public static func decimal(_ range: ClosedRange<Double>) -> FlagValue<Double> {
        FlagValue<Double>(range: "\(shortText(range.lowerBound))-\(shortText(range.upperBound))", bounds: range, choices: nil,
                          sample: shortText(range.lowerBound)) { long, text throws(Failure) in
            guard let number = Double(text), number.isFinite, range.contains(number) else {
                throw Failure(.usage, "--\(long) takes a number from \(range.lowerBound) to \(range.upperBound), not '\(text)'")
            }
            return number
        }
    }

    /// One of an enum's raw values, listed in declaration order (the parser refuses others
    /// with a "did you mean").
    /// `ignoringCase`: any ASCII case of a choice is taken (`--platform iOS`: devices and the
    /// SQL compare platform names without case, so the flag does too).
    public static func choice<Choice: RawRepresentable & CaseIterable & Sendable>(_ type: Choice.Type, ignoringCase: Bool = false) -> FlagValue<Choice>
    where Choice.RawValue == String {
        FlagValue<Choice>.named(Choice.allCases.map { (name: $0.rawValue, value: $0) }, ignoringCase: ignoringCase)
    }

    /// One of `options`, by name, listed in this order (the parser refuses others with a
    /// "did you mean"); with `ignoringCase`, in any ASCII case.
    static func named(_ options: [(name: String, value: Value)], ignoringCase: Bool = false) -> FlagValue<Value> {
        let words = options.map(\.name)
        return FlagValue<Value>(range: nil, choices: words, sample: words.first) { long, text throws(Failure) in
            let typed = ignoringCase ? asciiLowercased(text) : text
            guard let value = options.first(where: { (ignoringCase ? asciiLowercased($0.name) : $0.name) == typed })?.value else {  // not an id: flag words
                throw Failure(.usage, "--\(long) takes one of \(words.joined(separator: ", ")), not '\(text)'"
                              + Suggestions.phrase(for: text, among: words))
            }
            return value
        }
    }

    /// `text` with A-Z lowered (flag words are ASCII; no locale involved).
    static func asciiLowercased(_ text: String) -> String {
        String(decoding: text.utf8.map { $0 >= 65 && $0 <= 90 ? $0 + 32 : $0 }, as: UTF8.self)
    }

    /// `86400` rather than `86400.0` in help.
    static func shortText(_ number: Double) -> String {
        number == number.rounded() && abs(number) < 1e15 ? String(Int(number)) : String(number)
    }
}

extension Flag where Value == Bool {
    /// A switch: true when given.
    public static func `switch`(_ long: String, short: Character? = nil, _ summary: String,
                                details: String? = nil, hidden: Bool = false) -> Flag<Bool> {
        Flag(spec: FlagSpec(long, short: short, summary, details: details, hidden: hidden),
             absent: { false }, given: { given in typedValues(given, as: Bool.self)?.last })
    }
}

extension Flag {
    /// A flag whose value is nil when not given.
    public static func optional<Wrapped>(_ long: String, short: Character? = nil, value valueName: String,
                                         _ summary: String, details: String? = nil, completion: ValueCompletion = .none,
                                         hidden: Bool = false, _ kind: FlagValue<Wrapped>) -> Flag<Wrapped?> where Value == Wrapped? {
        Flag<Wrapped?>(spec: spec(long, short, valueName, summary, details, completion, hidden, kind, default: nil, repeatable: false),
                       absent: { nil },
                       given: { given in
                           guard let last = typedValues(given, as: Wrapped.self)?.last else { return nil }
                           let value: Wrapped? = last
                           return value
                       })
    }

    /// A flag with a default, written here once as the user would type it; help shows it, and
    /// it goes through the same validation as a typed value (an invariant test checks it does).
    public static func defaulted(_ long: String, short: Character? = nil, value valueName: String, _ summary: String,
                                 details: String? = nil, completion: ValueCompletion = .none, hidden: Bool = false,
                                 default defaultText: String, _ kind: FlagValue<Value>) -> Flag<Value> {
        let spec = spec(long, short, valueName, summary, details, completion, hidden, kind, default: defaultText, repeatable: false)
        return Flag(spec: spec, absent: {
            // The invariant tests parse every default, so this cannot fail for a flag in the table.
            do { return try kind.parse(long, defaultText) } catch { preconditionFailure("--\(long): bad default: " + FlagWording.message(for: error)) }
        }, given: { given in typedValues(given, as: Value.self)?.last })
    }

    /// A repeatable flag: every value given, in order.
    public static func repeated<Element>(_ long: String, short: Character? = nil, value valueName: String, _ summary: String,
                                         details: String? = nil, completion: ValueCompletion = .none, hidden: Bool = false,
                                         _ kind: FlagValue<Element>) -> Flag<[Element]> where Value == [Element] {
        Flag<[Element]>(spec: spec(long, short, valueName, summary, details, completion, hidden, kind, default: nil, repeatable: true),
                        absent: { [] }, given: { given in typedValues(given, as: Element.self) })
    }

    private static func spec<Parsed>(_ long: String, _ short: Character?, _ valueName: String, _ summary: String,
                                     _ details: String?, _ completion: ValueCompletion, _ hidden: Bool,
                                     _ kind: FlagValue<Parsed>, default defaultText: String?, repeatable: Bool) -> FlagSpec {
        FlagSpec(long, short: short, value: valueName, summary, details: details,
                 completion: kind.choices.map { .choices($0) } ?? completion, repeatable: repeatable,
                 default: defaultText, hidden: hidden, range: kind.range, bounds: kind.bounds, sampleValue: defaultText ?? kind.sample,
                 convert: { text throws(Failure) in try kind.parse(long, text) })
    }
}

/// `stored` as values of `Element`, all of them, or nil when one is something else (the one
/// cast of a flag's stored values; a nil is reported, never answered with a default).
private func typedValues<Element>(_ stored: [any Sendable], as _: Element.Type) -> [Element]? {
    var values: [Element] = []
    for value in stored {
        guard let typed = value as? Element else { return nil }
        values.append(typed)
    }
    return values
}
