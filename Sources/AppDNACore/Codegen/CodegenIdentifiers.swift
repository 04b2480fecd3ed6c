/// Turns bundle keys (remote-config keys, experiment and variant ids, paywall ids …) into
/// identifiers that compile in both Swift and Kotlin, with one deterministic rule for keys
/// that mangle to the same name. Keys are compared by their UTF-8 bytes: two keys that differ
/// only in Unicode normalisation are two keys and get two names.
///
/// The rule (documented for users; the generated code's doc comments keep the original key):
/// 1. Words are runs of ASCII letters and digits; every other ASCII character separates words.
///    A non-ASCII scalar becomes its own word `u` + its hex code point (`ü` → `uFC`), so names
///    stay ASCII and distinct keys stay distinguishable.
/// 2. Words are joined in lowerCamelCase (`dark-mode` → `darkMode`, `a.b` → `aB`).
/// 3. No words (the empty key, `---`) → `key`. A leading digit gets a `_` prefix (`2fa_enabled`
///    → `_2faEnabled`). A Swift or Kotlin keyword gets a `_` suffix (`class` → `class_`).
/// 4. Collisions: keys are taken in UTF-8 byte order; the first keeps the name, each later one
///    gets the smallest free suffix `_2`, `_3` … (`dark-mode` → `darkMode`, `dark_mode` →
///    `darkMode_2`, because `-` (0x2D) sorts before `_` (0x5F)).
public enum CodegenIdentifiers {
    /// The identifier for every key, in the order given; `reserved` names are never handed out
    /// (e.g. the names the generated type itself declares).
    public static func names(for keys: [String], reserved: Set<String> = []) -> [String] {  // not an id: reserved and taken are generated ASCII identifiers
        let order = keys.indices.sorted { keys[$0].utf8.lexicographicallyPrecedes(keys[$1].utf8) }
        var taken = reserved
        var result = [String](repeating: "", count: keys.count)
        var previous: (key: String, name: String)?
        for index in order {
            let key = keys[index]
            // The same key twice (by bytes) is the same name, not a collision.
            if let previous, previous.key.utf8.elementsEqual(key.utf8) {
                result[index] = previous.name
                continue
            }
            let base = baseName(for: key)
            var name = base
            var suffix = 2
            while taken.contains(name) {
                name = "\(base)_\(suffix)"
                suffix += 1
            }
            taken.insert(name)
            result[index] = name
            previous = (key, name)
        }
        return result
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
        }
        if let first = name.utf8.first, first >= 0x30, first <= 0x39 { name = "_" + name }
        if keywords.contains(name) { name += "_" }
        return name
    }

    /// Swift and Kotlin keywords (hard and the soft ones that break in common positions),
    /// plus `Type`/`Self`/`self` that Swift resolves specially.
    static let keywords: Set<String> = [  // not an id: ASCII keywords
        // Swift
        "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import",
        "init", "inout", "internal", "let", "open", "operator", "private", "precedencegroup",
        "protocol", "public", "rethrows", "static", "struct", "subscript", "typealias", "var",
        "break", "case", "catch", "continue", "default", "defer", "do", "else", "fallthrough",
        "for", "guard", "if", "in", "repeat", "return", "throw", "switch", "where", "while",
        "Any", "as", "await", "false", "is", "nil", "self", "Self", "super", "throws", "true",
        "try", "Type", "Protocol", "some", "any", "async", "consume", "copy", "discard", "each",
        "borrowing", "consuming", "macro", "package", "actor",
        // Kotlin (hard keywords and the soft ones that cannot name a property everywhere)
        "fun", "interface", "object", "null", "package", "this", "typealias", "typeof", "val",
        "when", "out", "by", "constructor", "dynamic", "field", "file", "get", "set", "value",
        "companion", "data", "sealed", "inline", "lateinit", "override", "abstract", "final",
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
