import XCTest
@testable import AppDNANet
import AppDNACore

/// What `api serve` counts before it holds a batch (issue 49): the inflated size and a bound on
/// the parse, learned without keeping the bytes; the takes from the server's budget, refused
/// as 413 past the whole budget and as 503 while others hold it.
final class HeldBytesTests: XCTestCase {
    func testMeasureGivesTheInflatedSizeAndANodeBoundWithoutKeepingTheBytes() throws {
        let json = Array(#"{"batch":[{"a":[1,2,{"b":"x,y"}]}]}"#.utf8)
        let deflated = try RawDeflate.compress(json)
        let measured = try RawDeflate.measure(deflated, limit: 1 << 20)
        XCTAssertEqual(measured.bytes, json.count)
        XCTAssertEqual(measured.nodeBound, JSONNodeBound.of(json))
        XCTAssertGreaterThanOrEqual(measured.nodeBound, try JSONDocument(bytes: json).nodeCount, "a bound, never under")
        XCTAssertEqual(try RawDeflate.inflate(deflated, measured: measured), json)

        // Stopped at the limit; not raw DEFLATE; bytes after the stream.
        XCTAssertThrowsError(try RawDeflate.measure(deflated, limit: json.count - 1)) { XCTAssertEqual($0 as? RawDeflate.InflateFailure, .overLimit) }
        XCTAssertThrowsError(try RawDeflate.measure([0x78, 0x9C] + deflated, limit: 1 << 20)) { XCTAssertEqual($0 as? RawDeflate.InflateFailure, .notRawDeflate) }
        XCTAssertThrowsError(try RawDeflate.measure(deflated + [0], limit: 1 << 20)) { XCTAssertEqual($0 as? RawDeflate.InflateFailure, .notRawDeflate) }
        XCTAssertThrowsError(try RawDeflate.measure(Array(deflated.dropLast(3)), limit: 1 << 20)) { XCTAssertEqual($0 as? RawDeflate.InflateFailure, .notRawDeflate) }
        // A measure that does not fit what it inflates to is refused, not overrun.
        XCTAssertThrowsError(try RawDeflate.inflate(deflated, measured: RawDeflate.Measure(bytes: json.count - 5, nodeBound: 1)))
    }

    func testTheNodeBoundIsNeverUnderTheParse() throws {
        for text in ["0", "[]", "{}", "[0,0,0]", #"{"":0,"a":[[],[{}]]}"#, #"["a,b:c[d{", 1.5e3, null, true]"#] {
            let bytes = Array(text.utf8)
            XCTAssertGreaterThanOrEqual(JSONNodeBound.of(bytes), try JSONDocument(bytes: bytes).nodeCount, text)
        }
    }

    func testTakesShareTheServerBudgetAndAreGivenBackWhenDropped() throws {
        var limits = HTTPServer.Limits(maxBodyBytes: 1 << 20, headerTimeout: 2, idleTimeout: 2, maxConnections: 4)
        limits.maxBufferedBytes = 4 << 20
        let server = try HTTPServer(host: "127.0.0.1", port: 0, limits: limits)
        var first: HeldBytes? = HeldBytes(from: server, request: 1 << 20)
        XCTAssertThrowsError(try first!.take(3 << 20 + 1)) { XCTAssertEqual($0 as? HeldBytes.Refusal, .overLimit, "with its body, over the whole budget") }
        XCTAssertNoThrow(try first!.take(2 << 20))
        let second = HeldBytes(from: server, request: 0)
        XCTAssertThrowsError(try second.take(3 << 20)) { XCTAssertEqual($0 as? HeldBytes.Refusal, .busy, "the other holds part of it") }
        XCTAssertThrowsError(try second.take(-1)) { XCTAssertEqual($0 as? HeldBytes.Refusal, .overLimit) }
        XCTAssertThrowsError(try second.take(Int.max)) { XCTAssertEqual($0 as? HeldBytes.Refusal, .overLimit) }
        XCTAssertEqual(server.bufferedRequestBytes, 2 << 20)
        first = nil
        XCTAssertEqual(server.bufferedRequestBytes, 0, "given back when dropped")
        XCTAssertNoThrow(try second.take(3 << 20))
        XCTAssertEqual(second.count, 3 << 20)
    }
}
