/// Turns bundle keys (remote-config keys, experiment and variant ids, paywall ids …) into
/// identifiers that compile in both Swift and Kotlin, with one deterministic rule for keys
/// that mangle to the same name. Keys are compared by their UTF-8 bytes: two keys that differ
/// only in Unicode normalisation are two keys and get two names.
///
/// The rule (documented for users in docs/codegen.md; the generated code's doc comments keep
/// the original key):
/// 1. Words are runs of ASCII letters and digits; every other ASCII character separates words.
///    A non-ASCII scalar becomes its own word `u` + its hex code point (`ü` → `uFC`), so names
///    stay ASCII and distinct keys stay distinguishable.
/// 2. Words are joined in lowerCamelCase (`dark-mode` → `darkMode`, `a.b` → `aB`), cut at
///    `maximumLength` characters (a JVM class file is named after its type, and file names
///    end at 255 bytes).
/// 3. No words (the empty key, `---`) → `key`. A leading digit gets a `_` prefix (`2fa_enabled`
///    → `_2faEnabled`). A Swift or Kotlin keyword (hard, contextual or soft) gets a `_` suffix
///    (`class` → `class_`).
/// 4. Collisions: keys are taken in UTF-8 byte order; the first keeps the name, each later one
///    gets the smallest free suffix `_2`, `_3` … (`dark-mode` → `darkMode`, `dark_mode` →
///    `darkMode_2`, because `-` (0x2D) sorts before `_` (0x5F)). Names the scope already
///    declares (`reserved`) are never handed out.
/// 5. Types (`typeNames`) are their member's name with a capital, resolved like step 4 against
///    the members of the same scope, the types the file declares or uses, and each other
///    ignoring case (the JVM writes each class to a file, and macOS folds case).
public enum CodegenIdentifiers {
    /// The longest name step 2 keeps, before the `_` of steps 3 and 4.
    public static let maximumLength = 80

    /// The identifier for every key, in the order given; `reserved` names are never handed out
    /// (e.g. the names the generated type itself declares).
    public static func names(for keys: [String], reserved: Set<String> = []) -> [String] {  // not an id: reserved and taken are generated ASCII identifiers
        resolve(keys, candidate: baseName(for:), isTaken: { reserved.contains($0) }, key: { $0 })
    }

    /// The type name for each member name (step 5), in the order given: a capital first, a
    /// keyword suffixed, and a name that is one of `members` (exactly), one of `types` or
    /// another type of this list (ignoring ASCII case) gets the smallest free `_2`, `_3` ….
    public static func typeNames(for names: [String], members: Set<String>, types: Set<String>) -> [String] {  // not an id: generated ASCII identifiers
        let folded = Set(types.map(foldingCase))
        return resolve(names, candidate: { name in
            let type = uppercasingFirst(name)
            return keywords.contains(type) ? type + "_" : type
        }, isTaken: { members.contains($0) || folded.contains(foldingCase($0)) }, key: foldingCase)
    }

    /// Step 4 for `inputs` taken in UTF-8 byte order: each gets `candidate(input)` or, when
    /// that is taken (`isTaken`) or is an earlier input's name (as `key` compares names), the
    /// smallest free suffix. The same input twice (by bytes) gets the same name.
    private static func resolve(_ inputs: [String], candidate: (String) -> String, isTaken: (String) -> Bool,
                                key: (String) -> String) -> [String] {  // not an id: generated ASCII identifiers
        let order = inputs.indices.sorted { inputs[$0].utf8.lexicographicallyPrecedes(inputs[$1].utf8) }
        var taken = Set<String>()  // not an id: generated ASCII identifiers, compared as `key` folds them
        var result = [String](repeating: "", count: inputs.count)
        var previous: (input: String, name: String)?
        for index in order {
            let input = inputs[index]
            if let previous, previous.input.utf8.elementsEqual(input.utf8) {
                result[index] = previous.name
                continue
            }
            let base = candidate(input)
            var name = base
            var suffix = 2
            while isTaken(name) || taken.contains(key(name)) {
                name = "\(base)_\(suffix)"
                suffix += 1
            }
            taken.insert(key(name))
            result[index] = name
            previous = (input, name)
        }
        return result
    }

    /// ASCII lowercase: how a case-folding file system compares two generated names.
    static func foldingCase(_ name: String) -> String {
        var out = ""
        for scalar in name.unicodeScalars {
            out.unicodeScalars.append(scalar.value >= 0x41 && scalar.value <= 0x5A ? Unicode.Scalar(scalar.value + 0x20)! : scalar)
        }
        return out
    }

    /// Steps 1–3 of the rule for one key, before collisions are resolved.
    public static func baseName(for key: String) -> String {
        var words: [String] = []
        var current = ""
        func endWord() {
            if !current.isEmpty { words.append(current); current = "" }
        }
        for scalar in key.unicodeScalars {
            let value = scalar.value
            if isASCIILetterOrDigit(value) {
                current.unicodeScalars.append(scalar)
            } else if value < 0x80 {
                endWord()
            } else {
                endWord()
                words.append("u" + hexUppercase(value))
            }
        }
        endWord()
        guard !words.isEmpty else { return "key" }
        var name = ""
        for (position, word) in words.enumerated() {
            name += position == 0 ? lowercasingFirst(word) : uppercasingFirst(word)
            if name.utf8.count >= maximumLength { break }
        }
        if name.utf8.count > maximumLength { name = String(name.unicodeScalars.prefix(maximumLength)) }  // ASCII: scalars are bytes
        if let first = name.utf8.first, first >= 0x30, first <= 0x39 { name = "_" + name }
        if keywords.contains(name) { name += "_" }
        return name
    }

    /// Swift and Kotlin keywords: hard, contextual and soft (a contextual keyword compiles as a
    /// name in most places, but not all, and not in every compiler version), plus the names
    /// Swift resolves specially (`Type`, `Self`, `Protocol`) and Kotlin's implicit `it`.
    static let keywords: Set<String> = [  // not an id: ASCII keywords
        // Swift: declarations, statements, expressions and types, then the contextual keywords
        "associatedtype", "borrowing", "class", "consuming", "deinit", "enum", "extension", "fileprivate", "func",
        "import", "init", "inout", "internal", "let", "nonisolated", "open", "operator", "private", "precedencegroup",
        "protocol", "public", "rethrows", "static", "struct", "subscript", "typealias", "var",
        "break", "case", "catch", "continue", "default", "defer", "do", "else", "fallthrough", "for", "guard", "if",
        "in", "repeat", "return", "throw", "switch", "where", "while",
        "Any", "as", "await", "false", "is", "nil", "self", "Self", "super", "throws", "true", "try",
        "associativity", "async", "convenience", "didSet", "dynamic", "final", "get", "indirect", "infix", "lazy",
        "left", "mutating", "none", "nonmutating", "optional", "override", "package", "postfix", "precedence",
        "prefix", "Protocol", "required", "right", "set", "some", "Type", "unowned", "weak", "willSet",
        "actor", "any", "consume", "copy", "discard", "each", "isolated", "macro", "sending",
        // Kotlin: hard keywords, soft keywords, modifier keywords, and `it`
        "fun", "interface", "null", "object", "this", "typeof", "val", "when",
        "by", "constructor", "delegate", "field", "file", "finally", "param", "property", "receiver",
        "setparam", "value", "abstract", "actual", "annotation", "companion", "const", "crossinline", "data",
        "expect", "external", "inline", "inner", "lateinit", "noinline", "out", "protected", "reified", "sealed",
        "suspend", "tailrec", "vararg", "it",
    ]

    private static func isASCIILetterOrDigit(_ value: UInt32) -> Bool {
        (value >= 0x30 && value <= 0x39) || (value >= 0x41 && value <= 0x5A) || (value >= 0x61 && value <= 0x7A)
    }

    private static func lowercasingFirst(_ word: String) -> String {
        var scalars = Array(word.unicodeScalars)
        if let first = scalars.first, first.value >= 0x41, first.value <= 0x5A {
            scalars[0] = Unicode.Scalar(first.value + 0x20)!
        }
        var result = ""
        result.unicodeScalars.append(contentsOf: scalars)
        return result
    }

    static func uppercasingFirst(_ word: String) -> String {
        var scalars = Array(word.unicodeScalars)
        if let first = scalars.first, first.value >= 0x61, first.value <= 0x7A {
            scalars[0] = Unicode.Scalar(first.value - 0x20)!
        }
        var result = ""
        result.unicodeScalars.append(contentsOf: scalars)
        return result
    }

    private static func hexUppercase(_ value: UInt32) -> String {
        String(value, radix: 16, uppercase: true)
    }
}
