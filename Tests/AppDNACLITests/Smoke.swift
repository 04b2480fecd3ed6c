import XCTest
final class AppDNACLITestsSmoke: XCTestCase { func testNothingYet() {} }
