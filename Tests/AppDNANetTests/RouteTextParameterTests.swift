import AppDNACore
@testable import AppDNANet
import XCTest

/// The text path parameter (`api serve`'s `/api/overrides/{kind}/{key}`): any UTF-8 id, decoded
/// from percent-encoding (a `/` in a key is `%2F`), but never empty, longer than its bound,
/// badly encoded or holding a control character.
final class RouteTextParameterTests: XCTestCase {
    enum Endpoint: Sendable, Equatable { case item }
    static let kind = RouteParameter<String>.pathChoice("kind", ["experiment", "flag"], "what")
    static let key = RouteParameter<String>.pathText("key", maxCharacters: 8, "the key")
    let table = RouteTable<Endpoint>([
        Route(["PUT"], [.literal("o"), .parameter(kind.spec), .parameter(key.spec)], guard: .open, body: .empty, .item, "one", answers: []),
    ])

    func value(_ target: String) -> (kind: String, key: String)? {
        guard case .success(let match) = table.resolve(method: "PUT", target: target) else { return nil }
        return (match[Self.kind], match[Self.key])
    }

    func refusal(_ target: String) -> RouteRefusal? {
        guard case .failure(let refusal) = table.resolve(method: "PUT", target: target) else { return nil }
        return refusal
    }

    func testTextIsDecodedAndKeptAsBytes() {
        XCTAssertEqual(value("/o/experiment/onb-v2")?.key, "onb-v2")
        XCTAssertEqual(value("/o/flag/a%2Fb")?.key, "a/b")
        XCTAssertEqual(value("/o/flag/caf%C3%A9")?.key, "café")
        XCTAssertEqual(value("/o/flag/12345678")?.key, "12345678", "exactly the bound")
        XCTAssertEqual(value("/o/flag/%C3%A9%C3%A9%C3%A9%C3%A9%C3%A9%C3%A9%C3%A9%C3%A9")?.key, "éééééééé", "8 characters, 16 bytes")
        XCTAssertEqual(value("/o/flag/x")?.kind, "flag")
    }

    func testHostileTextIsRefusedNamingTheParameter() {
        for target in ["/o/flag/", "/o/flag/123456789", "/o/flag/%00", "/o/flag/a%0Ab", "/o/flag/%7F", "/o/flag/%C2%85", "/o/flag/%FF",
                       "/o/flag/%zz", "/o/flag/%", "/o/flag/%C3%A9%C3%A9%C3%A9%C3%A9%C3%A9%C3%A9%C3%A9%C3%A9%C3%A9"] {
            let refused = refusal(target)
            XCTAssertEqual(refused?.status, 400, target)
        }
        XCTAssertEqual(refusal("/o/flag/%00")?.parameter, "key")
        XCTAssertEqual(refusal("/o/color/x")?.parameter, "kind", "a kind the route does not take")
    }
}
