/// An error a test throws to fail with a message where a value cannot be returned (a helper
/// that would otherwise have to invent one): XCTest reports it as the test's failure.
public struct TestFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
