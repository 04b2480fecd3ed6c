import Foundation
import XCTest
import TestSupport
@testable import AppDNACore

/// Issue 34.1: the accessors generated for a hostile bundle (`HostileCodegenBundle`: 560
/// remote-config keys, 254 experiments, every name a trap) compile with the real `swiftc` and
/// `kotlinc`. One compilation per language (kotlinc takes seconds to start).
final class HostileCodegenCompileTests: XCTestCase {
    static let model: CodegenModel = {
        let document = try! JSONDocument(bytes: Array(HostileCodegenBundle.json().utf8))
        return CodegenModel(root: document.root)
    }()

    func testTheBundleIsAsHostileAsPromised() {
        XCTAssertGreaterThanOrEqual(Self.model.config.entries.count, 500)
        XCTAssertGreaterThanOrEqual(Self.model.experiments.count, 200)
        XCTAssertEqual(HostileCodegenBundle.json(), HostileCodegenBundle.json(), "seeded: the same bundle every run")
    }

    /// Type names a JVM writes as class files must differ in more than case (macOS and Windows
    /// file systems fold case, and `Foo$AB.class` would overwrite `Foo$Ab.class`), must not be
    /// any member's name in the same scope, and stay short enough for a file name.
    func testTypeNamesNeverMeetMembersAndDifferBeyondCase() {
        let experiments = Self.model.experiments
        let members = Set(experiments.map(\.name) + ["source"])
        let types = experiments.map(\.typeName)
        XCTAssertEqual(Set(types.map { $0.lowercased() }).count, types.count, "experiment types differ beyond case")
        XCTAssertTrue(members.isDisjoint(with: types), "no experiment type is also a property: \(members.intersection(types).sorted().prefix(5))")
        for experiment in experiments {
            let objects = experiment.variants.map(\.typeName)
            XCTAssertEqual(Set(objects.map { $0.lowercased() }).count, objects.count, experiment.id)
            XCTAssertFalse(objects.contains(experiment.typeName), experiment.id)
            XCTAssertFalse(objects.contains("Unknown") || objects.contains("Companion") || objects.contains("String"), experiment.id)
            XCTAssertLessThanOrEqual(experiment.typeName.utf8.count + (objects.map(\.utf8.count).max() ?? 0), 200, experiment.id)
        }
    }

    func testGeneratedSwiftTypeChecks() throws {
        let swiftc = try requireTool("swiftc", because: "type-checks the generated accessors")
        let generated = SwiftAccessorRenderer.render(Self.model)
        let scratch = try ScratchDirectory("codegen-hostile-swift")
        defer { scratch.remove() }
        let file = try scratch.file("Accessors.swift", Array(generated.utf8))
        let compile = try ProcessRunner.run(swiftc, ["-parse-as-library", "-typecheck", file], environment: nil)
        XCTAssertEqual(compile.status, 0, String(compile.stderr.prefix(6000)))
    }

    func testGeneratedKotlinCompiles() throws {
        let kotlinc = try requireTool("kotlinc", because: "compiles the generated Kotlin accessors")
        let generated = KotlinAccessorRenderer.render(Self.model)
        let scratch = try ScratchDirectory("codegen-hostile-kotlin")
        defer { scratch.remove() }
        let file = try scratch.file("AppDNAConfig.kt", Array(generated.utf8))
        // Into a directory, so each class is written as its own file (long names would fail here).
        let classes = scratch.url.appendingPathComponent("classes").path
        let compile = try ProcessRunner.run(kotlinc, ShortLivedJVM.kotlincOptions + [file, "-d", classes, "-nowarn"], environment: nil)
        XCTAssertEqual(compile.status, 0, String(compile.stderr.prefix(6000)))
    }
}
