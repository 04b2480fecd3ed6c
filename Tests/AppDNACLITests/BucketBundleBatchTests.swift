import Foundation
import XCTest
@testable import AppDNACLI
@testable import AppDNACore

/// `bucket - --bundle FILE` writes its rows from values made once per experiment (bucketer,
/// eligibility of the context, fields), with no String or JSON object per row. Each row must
/// still be what the one-user functions say: the hash and bucket of `BucketingScheme.assign`,
/// the verdict of `Eligibility.verdict` (traffic allocation per user), the variant only when
/// devices may assign one, and in NDJSON the bytes `JSONWriter` gives the row's object. Checked
/// on a bundle with every kind of rule and hostile names, in several contexts, every format.
final class BucketBundleBatchTests: XCTestCase {
    static let bundle = """
    {"bundle_version": 3, "experiments": {"experiments": {
      "plain": {"status": "running", "salt": "s", "variants": [{"id": "a", "weight": 0.3}, {"id": "b", "weight": 0.7}]},
      "alloc_ios": {"status": "running", "salt": "x", "platforms": ["iOS"], "traffic_allocation": 0.35,
                    "variants": [{"id": "control", "weight": 0.5}, {"id": "b,\\"quoted\\"", "weight": 0.5}]},
      "alloc_bad": {"status": "running", "salt": "y", "traffic_allocation": "half", "variants": [{"id": "only", "weight": 1}]},
      "blank salt": {"status": "running", "salt": "  ", "variants": [{"id": "t\\tab", "weight": 0.5}, {"id": "back\\\\slash", "weight": 0.5}]},
      "caf\\u00e9": {"status": "running", "salt": "n", "targeting": {"countries": ["DE", "FR"], "min_app_version": "2.1"},
                    "variants": [{"id": "cafe\\u0301", "weight": 0.34}, {"id": "line\\nbreak", "weight": 0.33}, {"id": "c", "weight": 0.33}]},
      "new_users": {"status": "running", "salt": "nu", "targeting": {"new_users_only": true}, "traffic_allocation": 0.9,
                    "variants": [{"id": "a", "weight": 1}]},
      "paused": {"status": "paused", "salt": "p", "variants": [{"id": "a", "weight": 1}]},
      "bad_platforms": {"status": "running", "salt": "bp", "platforms": "ios", "variants": [{"id": "a", "weight": 1}]},
      "no_variants": {"status": "running", "salt": "nv"}
    }}}
    """

    static let contexts: [[String]] = [
        [],
        ["--platform", "ios"],
        ["--platform", "android", "--country", "DE", "--app-version", "2.3.0"],
        ["--platform", "ios", "--country", "US", "--installed-at", "1700000000000", "--scheme", "docs"],
    ]

    func testRowsAreWhatTheOneUserFunctionsSay() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("appdna-bundle-batch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let bundlePath = directory.appendingPathComponent("bundle.json").path
        try Data(Self.bundle.utf8).write(to: URL(fileURLWithPath: bundlePath))
        let corpus = BatchIDCorpus.make(count: 2_500)
        let ids = corpus.split(separator: 10, omittingEmptySubsequences: false).map { line -> [UInt8] in
            line.last == 13 ? Array(line.dropLast()) : Array(line)
        }.filter { !$0.isEmpty && UTF8Validation.isValid($0) }
        XCTAssertGreaterThan(ids.count, 2_450)

        for context in Self.contexts {
            let setups = try Self.setups(context: context)
            XCTAssertEqual(setups.count, 9)
            // Worked out once per context for every format and thread count: in a debug build
            // the one-user functions are most of the test's time.
            let rows = Self.referenceRows(ids: ids, setups: setups)
            for format in ["tsv", "csv", "ndjson"] {
                let expected = Self.reference(rows, format: format)
                for threads in ["1", "3"] {
                    let run = runCLIBytes(["bucket", "-", "--bundle", bundlePath, "--format", format] + context,
                                          environment: [BatchRunner.threadsVariable: threads], stdin: corpus)
                    XCTAssertEqual(run.status, 65, "the corpus has lines that are not UTF-8")
                    let actual = Array(run.stdout.utf8)
                    if actual != expected {
                        let index = zip(actual, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(actual.count, expected.count)
                        let from = max(0, index - 200)
                        XCTFail("\(format) \(context) on \(threads) thread(s): differs at byte \(index):\n"
                                + String(decoding: actual[from..<min(actual.count, index + 200)], as: UTF8.self) + "\n--- expected\n"
                                + String(decoding: expected[from..<min(expected.count, index + 200)], as: UTF8.self))
                    }
                }
            }
        }
    }

    /// The experiments as `bucket` reads them, in the context the flags give.
    static func setups(context flags: [String]) throws -> [BucketSetup] {
        let document = try JSONDocument(bytes: Array(bundle.utf8))
        let map = try XCTUnwrap(BundleExperiments.map(in: document.root))
        func value(_ flag: String) -> String? { flags.firstIndex(of: flag).map { flags[$0 + 1] } }
        let context = UserContext(platform: value("--platform"), country: value("--country"), appVersion: value("--app-version"),
                                  installedAtMs: value("--installed-at").flatMap { Int64($0) })
        let scheme: BucketingScheme = value("--scheme") == "docs" ? .docs : .sdk
        return map.members.filter { $0.value.kind == .object }.map {
            BucketSetup(scheme: scheme, definition: ExperimentDefinition(id: $0.key, node: $0.value), context: context)
        }
    }

    /// One row as the one-user functions give it.
    struct ReferenceRow {
        let user: String
        let experiment: String
        let hash: UInt32
        let bucket: UInt32
        let variant: String?
        let verdict: EligibilityVerdict
    }

    /// Every id's row for every experiment, in output order, from the one-user functions.
    static func referenceRows(ids: [[UInt8]], setups: [BucketSetup]) -> [ReferenceRow] {
        ids.flatMap { bytes -> [ReferenceRow] in
            let user = String(decoding: bytes, as: UTF8.self)
            return setups.map { setup in
                let assignment = setup.scheme.assign(user: user, experiment: setup.experiment, salt: setup.salt)
                let verdict = Eligibility.verdict(setup.definition!, userID: user, context: setup.context).verdict
                let variant = verdict.mayAssign ? setup.allocation?.variant(forBucket: assignment.bucket) : nil
                return ReferenceRow(user: user, experiment: setup.experiment, hash: assignment.hash, bucket: assignment.bucket,
                                    variant: variant, verdict: verdict)
            }
        }
    }

    /// The rows written out, a String and a JSON object per row.
    static func reference(_ rows: [ReferenceRow], format: String) -> [UInt8] {
        var out: [UInt8] = format == "csv" ? Array("user,experiment,hash,bucket,variant,eligible\n".utf8) : []
        for row in rows {
            let eligible: (text: String, json: JSONValue)
            switch row.verdict {
            case .eligible: eligible = ("yes", .bool(true))
            case .notEligible: eligible = ("no", .bool(false))
            case .unknown: eligible = ("unknown", .string("unknown"))
            }
            switch format {
            case "ndjson":
                let object: JSONObject = ["user": .string(row.user), "experiment": .string(row.experiment),
                                          "hash": .integer(row.hash), "bucket": .integer(row.bucket),
                                          "variant": row.variant.map(JSONValue.string) ?? .null, "eligible": eligible.json]
                out += JSONWriter().write(.object(object))
            case "csv":
                let fields = [csv(row.user), csv(row.experiment), "\(row.hash)", "\(row.bucket)", row.variant.map(csv) ?? "", eligible.text]
                out += Array(fields.joined(separator: ",").utf8)
            default:
                let fields = [tsv(row.user), tsv(row.experiment), "\(row.hash)", "\(row.bucket)", row.variant.map(tsv) ?? "-", eligible.text]
                out += Array(fields.joined(separator: "\t").utf8)
            }
            out.append(10)
        }
        return out
    }

    /// A backslash doubled, then what would act on a terminal or a log escaped (`VisibleText`).
    static func tsv(_ field: String) -> String {
        VisibleText.escaped(field.replacingOccurrences(of: "\\", with: "\\\\"))
    }

    /// Escaped as in TSV (a backslash doubled too), then RFC 4180 quoting.
    static func csv(_ field: String) -> String {
        let field = tsv(field)
        guard field.unicodeScalars.contains(where: { ",\"".unicodeScalars.contains($0) }) else { return field }
        return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
