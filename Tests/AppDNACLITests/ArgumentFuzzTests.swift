import XCTest
@testable import AppDNACLI

/// Random command lines, built from the table's own words and from junk, never crash the tool
/// and always end with one of the contract's exit statuses.
final class ArgumentFuzzTests: XCTestCase {
    func testRandomCommandLinesEndWithADocumentedStatus() {
        let table = CommandTable.appdna
        var words = ["-", "--", "-qv", "-h", "--=", "---", "-=", "=", "", " ", "ü", "\u{0}", "--color", "always"]
        words += table.commands.flatMap(\.path)
        for flag in table.globalFlags + table.commands.flatMap(\.flags) {
            words.append("--" + flag.long)
            words.append("--" + flag.long + "=x")
            if let short = flag.short { words.append("-" + String(short)) }
            words += flag.choices ?? []
        }
        words += ["control=0.5,variant_b=0.5", "a=1", "a=0.5,b=0.4", "a==1", ",", "user", "exp", "salt", "-5", "99999999999999999999", "1e400", "nan"]
        let documented = Set(ExitStatus.allCases.map(\.rawValue))
        var generator = SystemRandomNumberGenerator()
        var seenStatuses: Set<Int32> = []
        for _ in 0..<3_000 {
            let count = Int.random(in: 0...7, using: &generator)
            var arguments = (0..<count).map { _ in words.randomElement(using: &generator)! }
            // Never wait on stdin: a lone "-" user reads from an empty stream here.
            if Bool.random(using: &generator) { arguments.insert("bucket", at: 0) }
            let result = runCLI(arguments, stdin: "")
            XCTAssertTrue(documented.contains(result.status), "\(arguments) → \(result.status)")
            if result.status != 0 {
                XCTAssertTrue(result.stderr.hasPrefix("appdna: ") || result.stdout.isEmpty == false, "\(arguments): \(result.stderr)")
            }
            XCTAssertFalse(result.stderr.contains("internal error"), "\(arguments): \(result.stderr)")
            seenStatuses.insert(result.status)
        }
        XCTAssertTrue(seenStatuses.isSuperset(of: [0, 64]), "the fuzzer reached both successes and usage errors")
    }
}
