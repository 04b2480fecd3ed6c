import XCTest
@testable import AppDNACore

/// Helpers shared by the JSON tests.
func parse(_ text: String, options: JSONParseOptions = JSONParseOptions()) throws -> JSONDocument {
    try JSONDocument(bytes: Array(text.utf8), options: options)
}

/// The syntax error `bytes` produce, or a test failure if they parse.
func syntaxError(_ bytes: [UInt8], options: JSONParseOptions = JSONParseOptions(),
                 file: StaticString = #filePath, line: UInt = #line) -> JSONSyntaxError? {
    do {
        _ = try JSONDocument(bytes: bytes, options: options)
        XCTFail("expected a syntax error", file: file, line: line)
        return nil
    } catch {
        return error
    }
}

func syntaxError(_ text: String, options: JSONParseOptions = JSONParseOptions(),
                 file: StaticString = #filePath, line: UInt = #line) -> JSONSyntaxError? {
    syntaxError(Array(text.utf8), options: options, file: file, line: line)
}

func compact(_ value: JSONValue) -> String { JSONWriter().writeString(value) }
