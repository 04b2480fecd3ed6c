import XCTest
@testable import AppDNACLI
import AppDNACore

/// Issue 54.2: a flag's value is kept under its declaration's identity and read back only
/// through that declaration. Keyed by name, another declaration of the same name read the
/// value typed for this one (or, of another type, quietly got its default): planted here in
/// a one-command table, where each read below is a loud internal error (70).
final class FlagIdentityTests: XCTestCase {
    static let word = Flag.optional("word", value: "WORD", "A word the command declares", .text)
    /// Another declaration of the same name, as `--key-file` of `api serve` and of `bundle fetch`.
    static let namesake = Flag.optional("word", value: "WORD", "Another command's --word", .text)
    static let number = Flag.optional("number", value: "N", "A number", .integer(0...9))
    /// `--word` read as a number: only a descriptor put together from two flags' parts can do
    /// it (each factory builds the spec and the read from one `FlagValue`).
    static let misread = Flag<Int?>(spec: FlagIdentityTests.word.spec, absent: FlagIdentityTests.number.absent, given: FlagIdentityTests.number.given)

    enum Read { case own, worded, namesake, misread }

    func run(_ read: Read) -> CapturedRun {
        let command = CommandSpec(["try"], summary: "Reads --word", flags: [Self.word.spec],
                                  run: .planned(plan: { arguments, _ in
            switch read {
            case .own: arguments[Self.word] ?? "none"
            case .worded: arguments[Self.word.worded("The same flag, worded otherwise")] ?? "none"
            case .namesake: arguments[Self.namesake] ?? "none"
            case .misread: arguments[Self.misread].map { String($0) } ?? "none"
            }
        }, perform: { word, invocation in
            invocation.stdout.writeLine(word)
            return .success
        }))
        return runInOwnTable(command, ["try", "--word", "typed"])
    }

    func testTheDeclarationReadsItsValueWhateverItsWording() {
        for read in [Read.own, .worded] {
            let sound = run(read)
            XCTAssertEqual(sound.status, 0, sound.stderr)
            XCTAssertEqual(sound.stdout, "typed\n")
        }
    }

    func testAnotherDeclarationOfTheNameIsNotTheFlag() {
        let planted = run(.namesake)
        XCTAssertEqual(planted.stdout, "none\n", "the value typed for --word went to another declaration")
        XCTAssertEqual(planted.status, 70)
        XCTAssertEqual(planted.stderr, "appdna: internal error: 'try' read --word (another declaration of that name than the command's), "
                       + "which it does not declare (it got the default, whatever was typed)\n")
    }

    func testAFlagReadAsAnotherTypeIsAnInternalError() {
        let planted = run(.misread)
        XCTAssertEqual(planted.status, 70)
        XCTAssertEqual(planted.stderr, "appdna: internal error: 'try' read --word as Optional<Int>, but its value is String (it got the default, whatever was typed)\n")
    }

    /// Each declaration is an identity of its own, even with every other fact alike.
    func testDeclarationsAreDistinct() {
        XCTAssertNotEqual(Self.word.spec.id, Self.namesake.spec.id)
        XCTAssertEqual(Self.word.spec.id, Self.word.worded("other").spec.id)
        XCTAssertNotEqual(APIFlags.timeout.spec.id, APIOverrideFlags.timeout.spec.id)
    }
}
