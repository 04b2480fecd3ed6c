import Foundation

/// The lines of Swift source text that match a test of the house's rules (a forbidden call, a
/// read outside the plan, a `try!`), comments left out, as `file:line: text`: one scanner for
/// every test that reads the sources.
public enum SourceLines {
    public static func matching(_ source: String, file: String, _ matches: (String) -> Bool) -> [String] {
        var found: [String] = []
        for (number, line) in source.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let code = line.components(separatedBy: "//").first ?? ""
            if matches(code) { found.append("\(file):\(number + 1): \(line.trimmingCharacters(in: .whitespaces))") }
        }
        return found
    }
}
