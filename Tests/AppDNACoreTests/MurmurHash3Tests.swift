import XCTest
@testable import AppDNACore

final class MurmurHash3Tests: XCTestCase {
    func testPlaceholder() { XCTAssertEqual(MurmurHash3.x86_32(utf8: ""), 0) }
}
