import Foundation
import XCTest
import TestSupport

/// Ids are bytes to devices, canonical-equivalence classes to Swift's `String ==` and to
/// `String`-keyed dictionaries and sets. In the files that compare or key ids (experiment ids,
/// salts, variant ids, flag keys, JSON member names, user ids, event ids), those must go
/// through `ByteIdentity` / `ByteKey` instead. This reads the sources, since a wrong `==`
/// compiles and passes every ASCII test.
final class SourceIdentityTests: XCTestCase {
    /// The sources that handle ids (relative to Sources/). A new file that compares ids belongs here.
    static let idHandlingSources = [
        "AppDNACore/Bundle/BundleDiff.swift", "AppDNACore/Bundle/BundleExperiments.swift", "AppDNACore/Bundle/SwitchingShare.swift",
        "AppDNACore/Bundle/BundleValidator.swift", "AppDNACore/Bundle/BundleValidator+Experiments.swift", "AppDNACore/Bundle/BundleValidator+Bytes.swift",
        "AppDNACore/Bundle/BundleRuleReads.swift",
        "AppDNACore/Experiments/AssignmentChange.swift", "AppDNACore/Experiments/ExposureAudit.swift",
        "AppDNACore/Experiments/ExposureAudit+Tape.swift", "AppDNACore/Experiments/VariantAllocation.swift",
        "AppDNACore/Experiments/VariantWeights.swift", "AppDNACore/Experiments/SelfTest.swift",
        "AppDNACore/JSON/JSONDiff.swift", "AppDNACore/JSON/JSONObject.swift",
        "AppDNACore/Codegen/CodegenIdentifiers.swift", "AppDNACore/Codegen/RemoteConfigEntries.swift",
        "AppDNACore/Codegen/SwiftAccessorRenderer.swift", "AppDNACore/Codegen/KotlinAccessorRenderer.swift",
        "AppDNACore/Codegen/CodegenModel.swift",
        "AppDNACore/Warehouse/AssignmentSQL.swift", "AppDNACore/Warehouse/SQLEligibility.swift", "AppDNACore/Warehouse/SampleRatioSQL.swift", "AppDNACore/Warehouse/DuplicateExposuresSQL.swift",
        "AppDNACore/Warehouse/ExposureAuditSQL.swift", "AppDNACore/Warehouse/ExposuresTable.swift",
        "AppDNACore/Warehouse/WarehouseColumns.swift", "AppDNACLI/Commands/Warehouse/WarehouseFlags.swift",
    ]

    /// What is not allowed in those files, with why.
    static let hazards: [(pattern: String, why: String)] = [
        (#"\[String\s*:"#, "a String-keyed dictionary merges NFC and NFD ids: key it by ByteKey"),
        (#"Set<String>"#, "a Set<String> merges NFC and NFD ids: use Set<ByteKey>"),
        (#"\b\w*(?:[iI]d|ID|[sS]alt|[vV]ariant|[eE]xperiment|[kK]ey|[uU]ser|[rR]ecorded)s?\b\s*(?:==|!=)\s*(?!nil\b)[A-Za-z_$(]"#,
         "String == is canonical equivalence: compare ids with ByteIdentity.same"),
        (#"[\w)\]]\s*(?:==|!=)\s*[\w.$]*(?:[iI]d|ID|[sS]alt|[vV]ariant|[eE]xperiment|[kK]ey|[uU]ser|[rR]ecorded)s?\b(?!\s*\()"#,
         "String == is canonical equivalence: compare ids with ByteIdentity.same"),
    ]

    /// Lines that break a rule, as "file:line: text (why)". A line may opt out with
    /// `// not an id:` and the reason (e.g. a status compared with a literal).
    static func findings(in source: String, file: String) -> [String] {
        let rules = hazards.map { (try! NSRegularExpression(pattern: $0.pattern), $0.why) }
        var found: [String] = []
        for (number, line) in source.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let code = String(line.split(separator: "//", maxSplits: 1, omittingEmptySubsequences: false).first ?? "")
            if line.contains("// not an id:") { continue }
            if let (_, why) = rules.first(where: { $0.0.firstMatch(in: code, range: NSRange(code.startIndex..., in: code)) != nil }) {
                found.append("\(file):\(number + 1): \(line.trimmingCharacters(in: .whitespaces)) (\(why))")
            }
        }
        return found
    }

    func testIdHandlingSourcesCompareAndKeyIdsByBytes() throws {
        var all: [String] = []
        for file in Self.idHandlingSources {
            let url = repositoryRoot.appendingPathComponent("Sources").appendingPathComponent(file)
            all += Self.findings(in: try String(contentsOf: url, encoding: .utf8), file: file)
        }
        XCTAssertEqual(all, [], "\n" + all.joined(separator: "\n"))
    }

    /// The check catches what it is for: each planted line is found, the byte-safe forms are not.
    func testPlantedViolationsAreCaught() {
        let planted = """
        var definitions: [String: ExperimentDefinition] = [:]
        var seen = Set<String>()
        if recorded == expectedVariant { return nil }
        guard oldSalt != newSalt else { return }
        let same = a.experimentID == b.experimentID
        """
        XCTAssertEqual(Self.findings(in: planted, file: "planted.swift").count, 5)
        let safe = """
        var definitions: [ByteKey: ExperimentDefinition] = [:]
        if ByteIdentity.same(recorded, expectedVariant) { return nil }
        guard variant != nil else { return }
        if status == "running" { return }  // a status, not an id
        let x = a.status != b.status  // not an id: statuses are compared as the SDK does
        """
        XCTAssertEqual(Self.findings(in: safe, file: "safe.swift"), [])
    }
}
