import XCTest
@testable import AppDNACLI
import AppDNACore

/// Issue 54.4: what each `bucket` mode reads is typed once in `BucketMode.flags` (the conflict
/// check refuses every other flag) and read once in `BucketPlan(mode:)`; the two lists are
/// checked against each other here, for every mode of `BucketMode.Kind`: a flag the builder
/// reads that the mode refuses could only ever be its default, and a flag the mode accepts
/// that the builder never reads is accepted and ignored.
final class BucketPlanReadsTests: XCTestCase {
    /// What differs between the flags a mode lists (less those its decision consumes) and
    /// those its plan builder read.
    static func mismatches(mode: String, reads: [FlagSpec], decidedBy: [FlagSpec], builderRead: [FlagID]) -> [String] {
        var found: [String] = []
        for id in builderRead where !reads.contains(where: { $0.id == id }) {
            found.append("\(mode): the plan builder reads \(BucketFlags.all.first { $0.id == id }.map { "--" + $0.long } ?? "a flag") the mode does not list")
        }
        for flag in reads where !builderRead.contains(flag.id) && !decidedBy.contains(where: { $0.id == flag.id }) {
            found.append("\(mode): lists --\(flag.long), which its plan builder does not read")
        }
        return found
    }

    /// Each mode's line (`ModeConflictTests.line`), decided, then planned with the reads noted.
    static func planned(_ kind: BucketMode.Kind) throws -> (mode: BucketMode, builderRead: [FlagID]) {
        let (_, parsed) = try ModeConflictTests.parse(ModeConflictTests.line(kind))
        let mode = try BucketMode.decide(parsed)
        parsed.forgetReads()
        _ = BucketPlan(mode: mode, parsed)
        return (mode, parsed.flagsRead)
    }

    func testEveryModesBuilderReadsWhatTheModeLists() throws {
        for kind in BucketMode.Kind.allCases {
            let (mode, builderRead) = try Self.planned(kind)
            XCTAssertEqual(mode.kind, kind)
            XCTAssertEqual(Self.mismatches(mode: "\(kind)", reads: mode.flags.reads, decidedBy: mode.decidedBy, builderRead: builderRead), [])
        }
    }

    /// Planted: a mode list that drops a flag its builder reads, and one that adds a flag its
    /// builder does not read, are each named.
    func testAPlantedMismatchIsNamed() throws {
        let (mode, builderRead) = try Self.planned(.single)
        let reads = mode.flags.reads
        let dropped = reads.filter { $0.id != BucketFlags.explain.spec.id }
        XCTAssertEqual(Self.mismatches(mode: "single", reads: dropped, decidedBy: mode.decidedBy, builderRead: builderRead),
                       ["single: the plan builder reads --explain the mode does not list"])
        XCTAssertEqual(Self.mismatches(mode: "single", reads: reads + [BucketFlags.format.spec], decidedBy: mode.decidedBy, builderRead: builderRead),
                       ["single: lists --format, which its plan builder does not read"])
    }

    /// The operands the parser counts and the mode come from one selector: `--find` takes no
    /// USER, `--force-variant` no operand, `--bundle` an optional EXPERIMENT.
    func testTheOperandsComeFromTheModesSelector() throws {
        let (_, find) = try ModeConflictTests.parse(["bucket", "--find", "b", "exp", "salt"])
        XCTAssertEqual(BucketCommand.operandsGiven(find).map(\.name), ["EXPERIMENT", "SALT"])
        XCTAssertEqual(try BucketMode.decide(find), .find(variant: "b"))
        let (_, force) = try ModeConflictTests.parse(["bucket", "--force-variant", "exp=b", "--bundle", "b.json"])
        XCTAssertEqual(BucketCommand.operandsGiven(force).map(\.name), [])
        XCTAssertEqual(try BucketMode.decide(force), .force(forced: [ForcedIdentity.Forced(experiment: "exp", variant: "b")]))
        let (_, bundle) = try ModeConflictTests.parse(["bucket", "u", "--bundle", "b.json"])
        XCTAssertEqual(BucketCommand.operandsGiven(bundle).map(\.optional), [false, true, true])
    }
}
