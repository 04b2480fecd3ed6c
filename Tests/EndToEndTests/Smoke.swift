import XCTest
final class EndToEndTestsSmoke: XCTestCase { func testNothingYet() {} }
