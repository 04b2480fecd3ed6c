import XCTest
@testable import AppDNACore

/// `bundle validate` checks a big experiments object on two threads, in runs of experiments
/// (`JSONMemberRuns`). Whatever the split, the findings must be exactly those of one pass, in
/// the same order, byte for byte: the same bundles are validated both ways and compared.
final class BundleValidatorParallelTests: XCTestCase {
    /// A finding as bytes (messages and pointers compared by their UTF-8, not `String ==`).
    struct Bytes: Equatable, CustomStringConvertible {
        let code: String, message: [UInt8], pointer: [UInt8], line: Int, column: Int, offset: Int
        init(_ f: BundleFinding) {
            code = f.code
            message = Array(f.message.utf8)
            pointer = Array(f.pointer.description.utf8)
            line = f.line
            column = f.column
            offset = f.byteOffset
        }
        var description: String { "\(code) \(String(decoding: pointer, as: UTF8.self)) \(line):\(column)" }
    }

    private func findings(_ bundle: [UInt8], parallelFrom bytes: Int) throws -> [Bytes] {
        let options = BundleValidationRunner.parseOptions()
        let document = try JSONDocument(bytes: bundle, options: options)
        return BundleValidator.validate(document: document, shift: .init(), parallelExperimentsBytes: bytes).map(Bytes.init)
    }

    func testTwoThreadsFindWhatOnePassFindsInTheSameOrder() throws {
        // Counts around the run size (256 experiments): one run, one run and one experiment,
        // and many runs; each with findings scattered over every run, in both layouts.
        for (count, seed) in [(256, 1), (257, 2), (1_300, 3)] as [(Int, UInt64)] {
            for pretty in [false, true] {
                let bundle = Self.hostileBundle(experiments: count, seed: seed, pretty: pretty)
                let onePass = try findings(bundle, parallelFrom: .max)
                let twoThreads = try findings(bundle, parallelFrom: 0)
                XCTAssertGreaterThan(onePass.count, count / 20, "the bundle should have findings all over (\(count) experiments)")
                // Findings of every kind planted (W009 pairs an id near the start with one near the end).
                let codes = Set(onePass.map(\.code))
                for code in ["E003", "E011", "E014", "E018", "W002", "W003", "W009", "W010", "W011"] where count > 1_000 {
                    XCTAssertTrue(codes.contains(code), "expected a \(code) finding among \(codes.sorted())")
                }
                XCTAssertEqual(twoThreads.count, onePass.count, "\(count) experiments, pretty: \(pretty)")
                if twoThreads != onePass {
                    let first = zip(twoThreads, onePass).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(twoThreads.count, onePass.count)
                    XCTFail("first difference at finding \(first) of \(onePass.count) (\(count) experiments, pretty: \(pretty))")
                }
                // And again: the split between the threads varies from run to run, the answer must not.
                XCTAssertEqual(try findings(bundle, parallelFrom: 0), onePass)
            }
        }
    }

    /// A bundle of `experiments` experiments, most of them fine, with problems of many kinds
    /// spread over the whole object (and a pair of look-alike ids far apart, so the pair spans
    /// two runs).
    static func hostileBundle(experiments count: Int, seed: UInt64, pretty: Bool) -> [UInt8] {
        var rng = SplitMix64(seed: seed)  // the same bundle for the same seed, everywhere
        func random(_ n: Int) -> Int { Int(rng.next() % UInt64(n)) }
        let nl = pretty ? "\n" : "", sp = pretty ? "  " : ""
        var out = "{\(nl)\"bundle_version\": 3,\(nl)\"experiments\": {\"experiments\": {\(nl)"
        for i in 0..<count {
            var id = "exp_\(i)"
            if i == 5 { id = "caf\u{E9}" }                          // NFC
            if i == count - 3 && count > 1_000 { id = "cafe\u{301}" }   // the same text in NFD: W009
            let problem = random(12)
            let status = problem == 0 ? "stopped" : "running"
            let salt = problem == 1 ? "" : "salt\(random(1_000_000))"
            let (w0, w1) = problem == 2 ? ("0.5", "0.4") : ("0.5", "0.5")
            let secondID = problem == 3 ? "control" : "treatment"
            let countries = problem == 4 ? "\"us\"" : "\"US\", \"DE\""
            let platforms = problem == 5 ? "\"IOS\"" : "\"ios\""
            let repeated = problem == 6 ? "\"status\": \"paused\", " : ""
            out += "\(sp)\"\(id)\": {\(repeated)\"status\": \"\(status)\", \"salt\": \"\(salt)\", \"platforms\": [\(platforms)],\(nl)"
            out += "\(sp)\(sp)\"variants\": [{\"id\": \"control\", \"weight\": \(w0), \"payload\": {\"n\": \(random(100))}},"
            out += " {\"id\": \"\(secondID)\", \"weight\": \(w1)}],\(nl)"
            out += "\(sp)\(sp)\"targeting\": {\"countries\": [\(countries)], \"min_app_version\": \"\(problem == 7 ? "v2" : "2.1.0")\"}}"
            out += i == count - 1 ? nl : ",\(nl)"
        }
        out += "}}}\(nl)"
        return Array(out.utf8)
    }
}
