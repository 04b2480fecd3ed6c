import XCTest
@testable import AppDNACore

/// The short-decimal fast path of `JSONNode.double` must give exactly the bits `Double(text)`
/// gives (validation messages print sums of weights, so one ulp would change an output).
final class JSONNumberFastPathTests: XCTestCase {
    func testSameBitsAsDoubleOnRandomShortDecimals() {
        var state: UInt64 = 0x0DDB_1A5E_5BAD_5EED
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 11
        }
        var texts = ["0", "-0", "0.0", "-0.0", "1", "0.1", "0.2", "0.3", "0.34", "0.57", "0.43", "0.7",
                     "123456789012345", "0.123456789012345", "-99999.9999999999", "1.5e3", "1E-7"]
        for _ in 0..<20_000 {
            let digits = String(next() % 1_000_000_000_000_000)
            let cut = Int(next() % UInt64(digits.count + 1))
            var text = String(digits.prefix(cut))
            if text.isEmpty { text = "0" }
            if cut < digits.count { text += "." + digits.dropFirst(cut) }
            texts.append(next() % 2 == 0 ? text : "-" + text)
        }
        for text in texts {
            let document = try! JSONDocument(bytes: Array("[\(text)]".utf8))
            guard let node = document.root[0], let fast = node.double else { return XCTFail("\(text) gave no double") }
            XCTAssertEqual(fast.bitPattern, Double(text)!.bitPattern, text)
        }
    }
}
