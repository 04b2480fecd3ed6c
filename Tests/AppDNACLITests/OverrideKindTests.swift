import Foundation
import XCTest
@testable import AppDNACLI
import AppDNACore
@testable import AppDNAServers
import AppDNANet
import TestSupport

/// Issue 54.4: the override kinds are one enum (`BundleOverride.Kind`) and every place that
/// names them is made from it: the parser's refusal, `api serve --override`'s help and
/// completion, `api override`'s OVERRIDE operand, the inspector route's `kind` choices and the
/// table in docs/local-api.md. Each place is checked to name every kind, and a planted kind
/// (one the places were not made from) is found missing in each.
final class OverrideKindTests: XCTestCase {
    /// Each place, as the user or a client meets it.
    static func places() throws -> [(name: String, text: String)] {
        var refusal = ""
        do { _ = try BundleOverride(parsing: "nothing") } catch { refusal = error.message }
        let docs = try String(contentsOf: repositoryRoot.appendingPathComponent("docs/local-api.md"), encoding: .utf8)
        let table = docs.components(separatedBy: "<!-- override-kinds:begin -->").last?.components(separatedBy: "<!-- override-kinds:end -->").first ?? ""
        let completion: String
        if case .choices(let words) = APIServeFlags.override.spec.completion { completion = words.joined(separator: " ") } else { completion = "" }
        return [
            ("the parser's refusal", refusal),
            ("api serve --override", APIServeFlags.override.spec.summary),
            ("api serve --override completion", completion),
            ("api override OVERRIDE", APIOverrideFlags.override.summary),
            ("inspector route kind", InspectorRoutes.kind.spec.accepts + "; " + InspectorRoutes.kind.spec.summary),
            ("docs/local-api.md table", table),
        ]
    }

    /// The places that do not name `kind` (by its name, followed by `:` or a word's end).
    static func missing(_ kind: String, in places: [(name: String, text: String)]) -> [String] {
        places.filter { !$0.text.contains(kind) }.map(\.name)
    }

    func testEveryPlaceNamesEveryKind() throws {
        let places = try Self.places()
        for kind in BundleOverride.Kind.allCases {
            XCTAssertEqual(Self.missing(kind.rawValue, in: places), [], "\(kind)")
        }
        XCTAssertTrue(places.first { $0.name == "docs/local-api.md table" }!.text.contains("`experiment:KEY=VARIANT`"))
    }

    /// A kind the places were not generated from: every place is named as missing it.
    func testAPlantedKindIsMissingFromEveryPlace() throws {
        let places = try Self.places()
        XCTAssertEqual(Self.missing("planted-kind", in: places), places.map(\.name))
    }

    /// The JSON schemas of the overrides in force (api override --json, GET /api/overrides, the
    /// bundle view) are written by hand: their `kind` enums must be the enum's kinds, in order.
    func testTheSchemasListEveryKind() throws {
        func kindEnums(_ node: Any) -> [[String]] {
            if let object = node as? [String: Any] {
                let own = ((object["kind"] as? [String: Any])?["enum"] as? [String]).map { [$0] } ?? []
                return own + object.values.flatMap(kindEnums)
            }
            return (node as? [Any])?.flatMap(kindEnums) ?? []
        }
        for name in ["api-overrides", "api-bundle"] {
            let data = try Data(contentsOf: repositoryRoot.appendingPathComponent("docs/schemas/\(name).schema.json"))
            let enums = kindEnums(try JSONSerialization.jsonObject(with: data))
            XCTAssertFalse(enums.isEmpty, name)
            for found in enums { XCTAssertEqual(found, BundleOverride.Kind.allCases.map(\.rawValue), name) }
        }
    }

    /// Parsing takes exactly the enum's kinds.
    func testParsingTakesEachKind() throws {
        for kind in BundleOverride.Kind.allCases {
            let override = try BundleOverride(parsing: kind.rawValue + ":k=\"v\"")
            XCTAssertEqual(override.kind, kind)
        }
    }
}
