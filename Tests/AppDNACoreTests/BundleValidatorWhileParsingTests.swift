import XCTest
@testable import AppDNACore

/// `bundle validate` on a big file checks experiments on a second thread while the parse goes on
/// (`ExperimentsWhileParsing`, `JSONParseProgress`, `JSONMemberRuns(whileParsed:)`). Whatever the
/// bundle's shape, and whether the thread's guess of the experiments map was right, wrong or
/// never made, the findings must be exactly those of one pass after the parse, byte for byte.
final class BundleValidatorWhileParsingTests: XCTestCase {
    private typealias Bytes = BundleValidatorParallelTests.Bytes

    /// The findings of one pass after the parse, and of the threads while parsing (forced on).
    private func bothWays(_ bundle: [UInt8], shift: BundleValidator.LocationShift = .init()) -> (onePass: [Bytes], whileParsing: [Bytes]) {
        let source = ByteSource(bundle)
        return (BundleValidator.validate(source: source, shift: shift, parallelExperimentsBytes: .max).map(Bytes.init),
                BundleValidator.validate(source: source, shift: shift, parallelExperimentsBytes: 0).map(Bytes.init))
    }

    private func assertSame(_ bundle: [UInt8], _ what: String, minimumFindings: Int = 1, file: StaticString = #filePath, line: UInt = #line) {
        let (onePass, whileParsing) = bothWays(bundle)
        XCTAssertGreaterThanOrEqual(onePass.count, minimumFindings, "\(what): the bundle should have findings", file: file, line: line)
        XCTAssertEqual(whileParsing.count, onePass.count, what, file: file, line: line)
        if whileParsing != onePass {
            let first = zip(whileParsing, onePass).enumerated().first { $0.element.0 != $0.element.1 }
            XCTFail("\(what): first difference at finding \(first?.offset ?? -1): \(String(describing: first?.element))", file: file, line: line)
        }
    }

    /// `count` experiments as the members of a map (with findings planted all over).
    private func members(_ count: Int, seed: UInt64, pretty: Bool = false) -> String {
        // The map's members, cut out of a nested bundle of the parallel tests.
        let bundle = String(decoding: BundleValidatorParallelTests.hostileBundle(experiments: count, seed: seed, pretty: pretty), as: UTF8.self)
        let open = bundle.range(of: "{\"experiments\": {")!.upperBound
        let close = bundle.range(of: "}}}", options: .backwards)!.lowerBound
        return String(bundle[open..<close])
    }

    func testEveryShapeGivesTheFindingsOfOnePass() {
        // Big enough for many publications (one every 16,384 tape nodes) and many runs.
        let many = members(3_000, seed: 7), other = members(400, seed: 8)
        let filler = "\"remote_config\": {" + (0..<20_000).map { "\"flag_\($0)\": \($0 % 2 == 0)" }.joined(separator: ",") + "}"
        let shapes: [(String, String)] = [
            ("nested", "{\"bundle_version\": 3, \"experiments\": {\"experiments\": {\(many)}}}"),
            ("flat", "{\"bundle_version\": 3, \"experiments\": {\(many)}}"),
            ("API, nested", "{\"bundle_version\": 3, \"content\": {\"experiments\": {\"experiments\": {\(many)}}}}"),
            ("API, flat", "{\"content\": {\"experiments\": {\(many)}}, \"bundle_version\": 3}"),
            // The guess under content is wrong: the top-level section wins.
            ("content, then top level", "{\"content\": {\"experiments\": {\(many)}}, \"experiments\": {\"experiments\": {\(other)}}}"),
            // The flat guess is wrong: a member `experiments` that is an object is unwrapped.
            ("flat, then unwrapped", "{\"experiments\": {\(many), \"experiments\": {\(other)}}}"),
            // The first top-level section is guessed; the repeated key's last value is checked.
            ("repeated section", "{\"experiments\": {\"experiments\": {\(many)}}, \"experiments\": {\"experiments\": {\(other)}}}"),
            ("escaped section name", "{\"experiment\\u0073\": {\"experiments\": {\(many)}}}"),
            // The map is closed before the first publication, and more parsing follows.
            ("small map, big rest", "{\"experiments\": {\"experiments\": {\(members(40, seed: 9))}}, \(filler), \"bundle_version\": 3}"),
            ("big rest, then map", "{\(filler), \"experiments\": {\"experiments\": {\(many)}}}"),
            ("map among other members", "{\"experiments\": {\"a\": 1, \"experiments\": {\(many)}, \"b\": [2]}}"),
            ("experiments not an object", "{\"experiments\": [\(filler.dropFirst(16))], \"x\": {\"experiments\": {\(many)}}}"),
            ("root is an array", "[{\"experiments\": {\"experiments\": {\(many)}}}]"),
            ("with a byte-order mark", "\u{FEFF}{\"experiments\": {\"experiments\": {\(many)}}}"),
        ]
        for (what, text) in shapes {
            assertSame(Array(text.utf8), what)
        }
    }

    func testPrettyBundlesOfManySizesAndSeeds() {
        for (count, seed) in [(1, 1), (255, 2), (256, 3), (257, 4), (2_000, 5), (6_000, 6)] as [(Int, UInt64)] {
            for pretty in [false, true] {
                assertSame(BundleValidatorParallelTests.hostileBundle(experiments: count, seed: seed, pretty: pretty),
                           "\(count) experiments, pretty: \(pretty)", minimumFindings: 0)
            }
        }
    }

    func testAShiftMovesEveryLocationTheSameWay() {
        let bundle = BundleValidatorParallelTests.hostileBundle(experiments: 2_000, seed: 11, pretty: true)
        let shift = BundleValidator.LocationShift(lines: 3, columns: 7)
        let (onePass, whileParsing) = bothWays(bundle, shift: shift)
        XCTAssertFalse(onePass.isEmpty)
        XCTAssertEqual(whileParsing, onePass)
    }

    func testAFileThatIsNotJSONGivesTheSameFindingWherePartOfItWasChecked() {
        let good = Array("{\"experiments\": {\"experiments\": {\(members(3_000, seed: 12))}}}".utf8)
        let cuts = [good.count - 1, good.count * 3 / 4, good.count / 2, 40]
        for cut in cuts {
            assertSame(Array(good[..<cut]), "cut at byte \(cut) of \(good.count)")
        }
        var broken = good
        broken[good.count * 2 / 3] = 0x01  // a control byte: inside a string or between values
        assertSame(broken, "a control byte two thirds in")
        var notUTF8 = good
        notUTF8[good.count / 2] = 0xFF
        assertSame(notUTF8, "a byte that is not UTF-8 half way")
    }

    /// The tape of a parse read while it runs is reserved at the most nodes the input can hold
    /// (it must never move): inputs made of the smallest values reach that bound.
    func testInputsOfTheSmallestValuesFitTheReservedTape() {
        let n = 200_000
        let inputs: [(String, String)] = [
            ("nested arrays", String(repeating: "[", count: 900) + String(repeating: "]", count: 900)),
            ("zeros", "[" + Array(repeating: "0", count: n).joined(separator: ",") + "]"),
            ("empty arrays", "[" + Array(repeating: "[]", count: n).joined(separator: ",") + "]"),
            ("empty keys", "{\"experiments\": {" + (0..<n).map { _ in "\"\":0" }.joined(separator: ",") + "}}"),
            ("one digit", "7"),
        ]
        for (what, text) in inputs {
            let (onePass, whileParsing) = bothWays(Array(text.utf8))
            XCTAssertEqual(whileParsing, onePass, what)
        }
    }

    // MARK: - The guess and the runs, step by step

    private func parsed(_ text: String) throws -> JSONDocument { try JSONDocument(bytes: Array(text.utf8), options: JSONParseOptions(duplicateKeys: .record)) }

    private static func open(_ nodes: [(Int, Bool)]) -> JSONParseProgress.OpenContainers {
        var open = JSONParseProgress.OpenContainers()
        for (node, isObject) in nodes { open.append(node: Int32(node), isObject: isObject) }
        return open
    }

    func testTheMapIsRecognisedWhereTheSDKLooks() throws {
        // Tape: 0 root, 1 "experiments", 2 section, 3 "experiments", 4 map, 5 "e1", 6 {..
        let nested = try parsed(#"{"experiments": {"experiments": {"e1": {"status": "running"}}}}"#)
        let guess = ExperimentsWhileParsing.experimentsMap(among: Self.open([(0, true), (2, true), (4, true), (6, true)]), finalCount: 7, in: nested)
        XCTAssertEqual(guess?.0, 4)
        XCTAssertEqual(guess?.1.description, "/experiments/experiments")
        // Flat: 0 root, 1 "experiments", 2 map, 3 "e1", 4 {..
        let flat = try parsed(#"{"experiments": {"e1": {"status": "running"}}}"#)
        let flatGuess = ExperimentsWhileParsing.experimentsMap(among: Self.open([(0, true), (2, true), (4, true)]), finalCount: 5, in: flat)
        XCTAssertEqual(flatGuess?.0, 2)
        XCTAssertEqual(flatGuess?.1.description, "/experiments")
        // API: 0 root, 1 "content", 2 {, 3 "experiments", 4 section, 5 "experiments", 6 map
        let api = try parsed(#"{"content": {"experiments": {"experiments": {"e1": {}}}}}"#)
        let apiGuess = ExperimentsWhileParsing.experimentsMap(among: Self.open([(0, true), (2, true), (4, true), (6, true)]), finalCount: 7, in: api)
        XCTAssertEqual(apiGuess?.0, 6)
        XCTAssertEqual(apiGuess?.1.description, "/content/experiments/experiments")
        // Between the section's members, a finished inner map is found among them.
        let between = try parsed(#"{"experiments": {"experiments": {"e1": {}}, "x": [1, 2]}}"#)
        let betweenGuess = ExperimentsWhileParsing.experimentsMap(among: Self.open([(0, true), (2, true)]), finalCount: between.nodeCount, in: between)
        XCTAssertEqual(betweenGuess?.0, 4)
        // Elsewhere, or inside an array: no guess.
        let elsewhere = try parsed(#"{"remote_config": {"experiments": {"e1": {}}}}"#)
        XCTAssertNil(ExperimentsWhileParsing.experimentsMap(among: Self.open([(0, true), (2, true), (4, true)]), finalCount: 5, in: elsewhere))
        let array = try parsed(#"{"experiments": [{"e1": {}}]}"#)
        XCTAssertNil(ExperimentsWhileParsing.experimentsMap(among: Self.open([(0, true), (2, false), (3, true)]), finalCount: 4, in: array))
    }

    func testRunsOfAnObjectStillBeingParsedWaitForTheirMembers() throws {
        // 0 root, 1 "m", 2 map, then member k: key 3 + 4k, value {"x": 0} at 4 + 4k (6 members).
        let members = (0..<6).map { "\"k\($0)\": {\"x\": 0}" }.joined(separator: ", ")
        let document = try parsed("{\"m\": {\(members)}}")
        XCTAssertEqual(document.nodeCount, 27)
        let tape = UnsafePointer(document.tape.base)
        let progress = JSONParseProgress()
        progress.started(tape: tape, capacity: document.nodeCount)
        let runs = JSONMemberRuns(whileParsed: progress, membersPerRun: 2)
        // Members 0-2 final (the parse is inside member 3's value, at 16): one run of two.
        progress.publish(count: 18, open: Self.open([(0, true), (2, true), (16, true)]))
        runs.choose(object: 2, tape: tape)
        let first = runs.next()
        XCTAssertEqual(first?.number, 0)
        XCTAssertEqual(first?.start, 3)
        XCTAssertEqual(first?.stop, 11)
        // The next run needs member 3: it waits until the parse publishes more.
        let later = ThreadSpawner.spawn {
            usleep(50_000)
            progress.publish(count: 19, open: Self.open([(0, true), (2, true)]))  // member 3 closed
            usleep(50_000)
            progress.finished(count: document.nodeCount)
        }
        let second = runs.next()
        XCTAssertEqual(second?.number, 1)
        XCTAssertEqual(second?.start, 11)
        XCTAssertEqual(second?.stop, 19)
        // Members 4 and 5, once the parse is finished (member 4 alone was not a run).
        let third = runs.next()
        XCTAssertEqual(third?.number, 2)
        XCTAssertEqual(third?.start, 19)
        XCTAssertEqual(third?.stop, 27)
        XCTAssertNil(runs.next())
        later.join()
        XCTAssertTrue(runs.confirm(object: 2))
        XCTAssertFalse(runs.confirm(object: 5))
        XCTAssertTrue(runs.wasAbandoned)
    }

    func testAFailedParseEndsTheRunsAndWaitsForItsReaders() throws {
        let document = try parsed(#"{"m": {"a": {}, "b": {}}}"#)
        let tape = UnsafePointer(document.tape.base)
        let progress = JSONParseProgress()
        progress.started(tape: tape, capacity: document.nodeCount)
        let runs = JSONMemberRuns(whileParsed: progress, membersPerRun: 10)
        runs.choose(object: 2, tape: tape)
        progress.enter()
        final class Seen: @unchecked Sendable { var run: JSONMemberRuns.Run?; var returned = false }
        let seen = Seen()
        let reader = ThreadSpawner.spawn {
            seen.run = runs.next()  // waits: nothing is final yet
            seen.returned = true
            progress.leave()
        }
        usleep(20_000)
        progress.failed()  // returns only once the reader has left
        XCTAssertTrue(seen.returned)
        XCTAssertNil(seen.run)
        reader.join()
    }
}
