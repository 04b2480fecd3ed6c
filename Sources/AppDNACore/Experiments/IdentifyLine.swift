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

    /// A `"…"` literal (Swift, Kotlin): backslash, quote and control characters escaped as
    /// `\u{…}` (Swift) or `\uXXXX` (Kotlin, which also needs `$` escaped).
    static func doubleQuoted(_ text: String, dollar: Bool) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "$" where dollar: out += "\\$"
            default:
                if SQLQuoting.mustEscape(scalar.value) {
                    out += dollar ? utf16Escapes(scalar) : "\\u{" + hex(scalar.value) + "}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    /// A `'…'` literal (JavaScript, Dart, which also needs `$` escaped): `\u{…}` escapes.
    static func singleQuoted(_ text: String, dollar: Bool) -> String {
        var out = "'"
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case "'": out += "\\'"
            case "$" where dollar: out += "\\$"
            default:
                if SQLQuoting.mustEscape(scalar.value) {
                    out += "\\u{" + hex(scalar.value) + "}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "'"
    }

    private static func utf16Escapes(_ scalar: Unicode.Scalar) -> String {
        String(scalar).utf16.map { unit in
            let digits = hex(UInt32(unit))
            return "\\u" + String(repeating: "0", count: 4 - digits.count) + digits
        }.joined()
    }

    private static func hex(_ value: UInt32) -> String { String(value, radix: 16, uppercase: true) }
}
