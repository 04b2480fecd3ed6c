/// A word as a POSIX shell reads it back unchanged, for the commands the tool prints as hints
/// ("run appdna bundle codegen … -o 'My App/Config.swift'"), so that a hint is runnable as
/// printed whatever the paths hold: left bare when every character is safe, else in single
/// quotes (a `'` inside becomes `'\''`).
public enum ShellWord {
    public static func quoted(_ word: String) -> String {
        if !word.isEmpty && word.utf8.allSatisfy(isSafe) { return word }
        var out = "'"
        for scalar in word.unicodeScalars {
            if scalar == "'" { out += "'\\''" } else { out.unicodeScalars.append(scalar) }
        }
        return out + "'"
    }

    /// The words as one command line.
    public static func line(_ words: [String]) -> String {
        words.map(quoted).joined(separator: " ")
    }

    /// Letters, digits and `@%+:,./-_`: no shell gives them a meaning in a word (`=` leads a
    /// zsh expansion, `~` a home directory).
    private static func isSafe(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): return true
        default: return "@%+:,./-_".utf8.contains(byte)
        }
    }
}
