/// The line a developer adds to the app so the device uses a chosen user id (platform facts §7:
/// devices assign from `identify()`'s id, on every SDK version): one per SDK language, with the
/// id written as a literal of that language (escaped, so any id pastes as written).
public enum IdentifyLine: String, CaseIterable, Sendable {
    case swift
    case kotlin
    case reactNative = "react-native"
    case flutter

    public var language: String {
        switch self {
        case .swift: return "Swift (iOS)"
        case .kotlin: return "Kotlin (Android)"
        case .reactNative: return "React Native"
        case .flutter: return "Flutter"
        }
    }

    /// The call, as each SDK's public API spells it.
    public func line(_ user: String) -> String {
        switch self {
        case .swift: return "AppDNA.identify(userId: \(Self.doubleQuoted(user, dollar: false)))"
        case .kotlin: return "AppDNA.identify(\(Self.doubleQuoted(user, dollar: true)))"
        case .reactNative: return "await AppDNA.identify(\(Self.singleQuoted(user, dollar: false)));"
        case .flutter: return "await AppDNA.identify(\(Self.singleQuoted(user, dollar: true)));"
        }
    }

    /// A `"…"` literal (Swift, Kotlin): backslash and quote escaped, control and bidi characters
    /// written as `\u{…}` (Swift) or UTF-16 `\uXXXX` (Kotlin, which also needs `$` escaped), by
    /// the one literal writer codegen uses (`QuotedLiteral`).
    static func doubleQuoted(_ text: String, dollar: Bool) -> String {
        var escapes: [Unicode.Scalar: String] = ["\\": "\\\\", "\"": "\\\""]
        if dollar { escapes["$"] = "\\$" }
        return QuotedLiteral.quoted(text, quote: "\"", escapes: escapes, invisible: true) { value in
            dollar ? utf16Escapes(value) : "\\u{" + hex(value) + "}"
        }
    }

    /// A `'…'` literal (JavaScript, Dart, which also needs `$` escaped): `\u{…}` escapes.
    static func singleQuoted(_ text: String, dollar: Bool) -> String {
        var escapes: [Unicode.Scalar: String] = ["\\": "\\\\", "'": "\\'"]
        if dollar { escapes["$"] = "\\$" }
        return QuotedLiteral.quoted(text, quote: "'", escapes: escapes, invisible: true) { "\\u{" + hex($0) + "}" }
    }

    private static func utf16Escapes(_ value: UInt32) -> String {
        guard let scalar = Unicode.Scalar(value) else { return "" }
        return String(scalar).utf16.map { "\\u" + QuotedLiteral.hex(UInt32($0), digits: 4).uppercased() }.joined()
    }

    private static func hex(_ value: UInt32) -> String { String(value, radix: 16, uppercase: true) }
}
