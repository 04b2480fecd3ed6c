import AppDNACore
@testable import AppDNANet
import XCTest

/// The one reader of request targets: what it matches, and every way a number in a target can
/// be hostile (the inspector's `after=9223372036854775807` once killed the whole listener).
final class RouteTableTests: XCTestCase {
    enum Endpoint: Sendable, Equatable { case list, entry, action, page, anything }

    static let after = RouteParameter<Int>.integer("after", 0...1000, absent: 0, "newer than")
    static let limit = RouteParameter<Int>.integer("limit", 1...50, absent: 10, "at most")
    static let id = RouteParameter<Int>.pathInteger("id", 1...(1 << 53) - 1, "the id")
    static let sort = RouteParameter<String?>.choice("sort", ["asc", "desc"], "order")

    let table = RouteTable<Endpoint>([
        Route(["GET"], [.literal("")], guard: .open, body: .empty, .page, "the page", answers: []),
        Route(["GET"], [.literal("api"), .literal("items")], query: .declared([after.spec, limit.spec, sort.spec]), guard: .open, body: .empty, .list, "list", answers: []),
        Route(["GET"], [.literal("api"), .literal("items"), .parameter(id.spec)], guard: .open, body: .empty, .entry, "one", answers: []),
        Route(["POST", "DELETE"], [.literal("api"), .literal("items"), .parameter(id.spec), .literal("do")], guard: .open, body: .empty, .action, "act", answers: []),
    ])

    func resolved(_ method: String, _ target: String) -> RouteMatch<Endpoint>? {
        if case .success(let match) = table.resolve(method: method, target: target) { return match }
        return nil
    }

    func refusal(_ method: String, _ target: String) -> RouteRefusal? {
        if case .failure(let refusal) = table.resolve(method: method, target: target) { return refusal }
        return nil
    }

    func testMatchesWithTypedValues() throws {
        XCTAssertEqual(resolved("GET", "/")?.endpoint, .page)
        XCTAssertEqual(resolved("HEAD", "/")?.endpoint, .page, "GET routes answer HEAD")
        let list = try XCTUnwrap(resolved("GET", "/api/items?after=7&limit=3&sort=desc"))
        XCTAssertEqual(list.endpoint, .list)
        XCTAssertEqual(list[Self.after], 7)
        XCTAssertEqual(list[Self.limit], 3)
        XCTAssertEqual(list[Self.sort], "desc")
        let bare = try XCTUnwrap(resolved("GET", "/api/items"))
        XCTAssertEqual(bare[Self.after], 0, "absent: its declared value")
        XCTAssertEqual(bare[Self.limit], 10)
        XCTAssertNil(bare[Self.sort])
        XCTAssertEqual(resolved("GET", "/api/items?after=1&&limit=2")?[Self.limit], 2, "an empty pair is nothing")
        XCTAssertEqual(resolved("GET", "/api/items?after=%37")?[Self.after], 7, "percent-encoded digits are digits")
        XCTAssertEqual(resolved("GET", "/api/items/9007199254740991")?[Self.id], (1 << 53) - 1)
        XCTAssertEqual(resolved("GET", "/api/i%74ems/5")?[Self.id], 5, "literals compare after decoding")
        XCTAssertEqual(resolved("DELETE", "/api/items/5/do")?.endpoint, .action)
    }

    func testUnknownPathsAre404AndWrongMethods405WithAllow() throws {
        for target in ["/api", "/api/", "/api/items/1/", "/api/items/1/do/x", "/API/items", "/elsewhere", "//", "/api/items/1/undo"] {
            XCTAssertEqual(refusal("GET", target)?.status, 404, target)
        }
        XCTAssertEqual(refusal("GET", "/api/items/")?.parameter, "id", "an empty id is a bad id")
        let wrong = try XCTUnwrap(refusal("POST", "/api/items"))
        XCTAssertEqual(wrong.status, 405)
        XCTAssertEqual(wrong.allow, ["GET", "HEAD"])
        XCTAssertEqual(wrong.headers.map(\.value), ["GET, HEAD"])
        XCTAssertEqual(refusal("GET", "/api/items/1/do")?.allow, ["POST", "DELETE"])
        XCTAssertEqual(refusal("PATCH", "/")?.status, 405)
    }

    /// Every hostile spelling of a number, in a query and in a path: 400 naming the parameter,
    /// never a trap, never a different number.
    func testHostileNumbersAre400NamingTheParameter() throws {
        let hostile = ["-1", "1001", "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
                       String(repeating: "9", count: 30), String(repeating: "0", count: 41) + "1", "1e3", "0x10", "+1", " 1", "1 ", "%201", "1%00",
                       "١", "１", "1.0", "1,0", "NaN", "∞", "%", "%4", "%zz", "%FF", "\u{1B}[31m", "1;2"]
        for value in hostile {
            let answer = refusal("GET", "/api/items?after=\(value)")
            XCTAssertEqual(answer?.status, 400, value)
            if value.hasPrefix("%") && value.count <= 3 && value != "%FF" {
                XCTAssertTrue(answer?.message.contains("%") == true, value)
            } else {
                XCTAssertEqual(answer?.parameter, "after", value)
                XCTAssertTrue(answer?.message.hasPrefix("after takes a whole number from 0 to 1000") == true, "\(value): \(answer?.message ?? "")")
            }
        }
        for value in ["0", "-1", "9007199254740992", "9223372036854775807", String(repeating: "9", count: 30), "1e3", "0x10", "+1", "%31%ZZ", "x"] {
            let answer = refusal("GET", "/api/items/\(value)")
            XCTAssertEqual(answer?.status, 400, value)
            XCTAssertEqual(refusal("POST", "/api/items/\(value)/do")?.status, 400, "\(value) in an action's path")
        }
        XCTAssertEqual(refusal("GET", "/api/items?after=")?.message, "after is empty: it takes a whole number from 0 to 1000")
        XCTAssertEqual(refusal("GET", "/api/items?after")?.status, 400)
        XCTAssertEqual(refusal("GET", "/api/items?after=1&after=1")?.message, "after is given more than once")
        XCTAssertEqual(refusal("GET", "/api/items?after=1&%61fter=2")?.message, "after is given more than once", "decoded names compare")
        XCTAssertEqual(refusal("GET", "/api/items?sort=ASC")?.status, 400)
        XCTAssertEqual(refusal("GET", "/api/items?x=1")?.message, "unknown parameter 'x': this path takes after, limit, sort")
        XCTAssertEqual(refusal("GET", "/api/items/1?after=1")?.message, "unknown parameter 'after': this path takes no parameters")
        XCTAssertEqual(refusal("GET", "http://h/api/items")?.status, 400, "only origin-form")
        XCTAssertEqual(refusal("GET", "/api/items/%")?.status, 400)
    }

    func testRestMatchesAnyPathAndLeavesTheQueryAlone() throws {
        let open = RouteTable<Endpoint>([Route(["POST"], [.rest], query: .notInterpreted, guard: .open, body: .empty, .anything, "any", answers: [])])
        for target in ["/", "/hooks", "/a/b/c?x=1&x=2&after=-1", "/%zz?%"] {
            if case .success(let match) = open.resolve(method: "POST", target: target) {
                XCTAssertEqual(match.endpoint, .anything)
            } else if target != "/%zz?%" {
                XCTFail(target)
            }
        }
        if case .failure(let refusal) = open.resolve(method: "GET", target: "/hooks") {
            XCTAssertEqual(refusal.status, 405)
            XCTAssertEqual(refusal.allow, ["POST"])
        } else {
            XCTFail("GET is not a delivery")
        }
    }

    func testDecimalReadsOnlyPlainDigitsWithoutOverflow() {
        XCTAssertEqual(RouteParameterSpec.decimal(Array("0".utf8)), 0)
        XCTAssertEqual(RouteParameterSpec.decimal(Array("9223372036854775807".utf8)), Int.max)
        XCTAssertNil(RouteParameterSpec.decimal(Array("9223372036854775808".utf8)))
        XCTAssertNil(RouteParameterSpec.decimal(Array("99999999999999999999".utf8)))
        XCTAssertNil(RouteParameterSpec.decimal([]))
        XCTAssertNil(RouteParameterSpec.decimal(Array("-0".utf8)))
        XCTAssertEqual(RouteTable<Endpoint>.percentDecoded(Array("a%2Fb%20".utf8)[...]), Array("a/b ".utf8))
        XCTAssertNil(RouteTable<Endpoint>.percentDecoded(Array("a%2".utf8)[...]))
    }
}
