import XCTest
@testable import AppDNACore

/// Every error reason, with its exact position.
final class JSONSyntaxErrorTests: XCTestCase {
    typealias Reason = JSONSyntaxError.Reason

    private func check(_ bytes: [UInt8], _ reason: Reason, line: Int, column: Int, offset: Int? = nil,
                       file: StaticString = #filePath, at testLine: UInt = #line) {
        guard let error = syntaxError(bytes, file: file, line: testLine) else { return }
        XCTAssertEqual(error.reason, reason, file: file, line: testLine)
        XCTAssertEqual(error.line, line, "line", file: file, line: testLine)
        XCTAssertEqual(error.column, column, "column", file: file, line: testLine)
        if let offset { XCTAssertEqual(error.byteOffset, offset, "offset", file: file, line: testLine) }
        XCTAssertTrue(error.message.hasPrefix("line \(line), column \(column): "), error.message, file: file, line: testLine)
    }

    private func check(_ text: String, _ reason: Reason, line: Int, column: Int, offset: Int? = nil,
                       file: StaticString = #filePath, at testLine: UInt = #line) {
        check(Array(text.utf8), reason, line: line, column: column, offset: offset, file: file, at: testLine)
    }

    func testEmptyInput() {
        check("", .emptyInput, line: 1, column: 1, offset: 0)
        check(" \n\t ", .emptyInput, line: 1, column: 1, offset: 0)
        check([0xEF, 0xBB, 0xBF], .emptyInput, line: 1, column: 1, offset: 3)
        XCTAssertEqual(syntaxError("")?.message, "line 1, column 1: empty input: expected a JSON value")
    }

    func testUnexpectedEndOfInput() {
        check("{\n  \"a\": \"abc", .unexpectedEndOfInput(expected: "'\"'", open: .string(SourceLocation(line: 2, column: 8))),
              line: 2, column: 12, offset: 13)
        XCTAssertEqual(syntaxError("{\n  \"a\": \"abc")?.message,
                       "line 2, column 12: unexpected end of input: unterminated string started at line 2, column 8")
        check("[1, 2", .unexpectedEndOfInput(expected: "',' or ']' after an array element", open: .array(SourceLocation(line: 1, column: 1))),
              line: 1, column: 6)
        check("[1,", .unexpectedEndOfInput(expected: "a value after ','", open: .array(SourceLocation(line: 1, column: 1))), line: 1, column: 4)
        check("[", .unexpectedEndOfInput(expected: "a value or ']'", open: .array(SourceLocation(line: 1, column: 1))), line: 1, column: 2)
        check("{\"a\"", .unexpectedEndOfInput(expected: "':' after an object key", open: .object(SourceLocation(line: 1, column: 1))), line: 1, column: 5)
        check("{\"a\":", .unexpectedEndOfInput(expected: "a value after ':'", open: .object(SourceLocation(line: 1, column: 1))), line: 1, column: 6)
        check("[{\"a\":1", .unexpectedEndOfInput(expected: "',' or '}' after an object member", open: .object(SourceLocation(line: 1, column: 2))), line: 1, column: 8)
        check("{", .unexpectedEndOfInput(expected: "a string key or '}'", open: .object(SourceLocation(line: 1, column: 1))), line: 1, column: 2)
        check("{\"a\":1,", .unexpectedEndOfInput(expected: "a string key after ','", open: .object(SourceLocation(line: 1, column: 1))), line: 1, column: 8)
        check("tru", .unexpectedEndOfInput(expected: "'true'", open: nil), line: 1, column: 4)
        check("[-", .unexpectedEndOfInput(expected: "a digit", open: .array(SourceLocation(line: 1, column: 1))), line: 1, column: 3)
        check("1e", .unexpectedEndOfInput(expected: "a digit", open: nil), line: 1, column: 3)
        check("\"\\u12", .unexpectedEndOfInput(expected: "'\"'", open: .string(SourceLocation(line: 1, column: 1))), line: 1, column: 6)
        check("\"\\", .unexpectedEndOfInput(expected: "'\"'", open: .string(SourceLocation(line: 1, column: 1))), line: 1, column: 3)
        XCTAssertEqual(syntaxError("[1, 2")?.message,
                       "line 1, column 6: unexpected end of input: expected ',' or ']' after an array element; unterminated array started at line 1, column 1")
    }

    func testUnexpectedCharacter() {
        check("{\"a\" 1}", .unexpectedCharacter(found: "1", expected: "':' after an object key"), line: 1, column: 6)
        check("{\n  \"a\": 1\n  \"b\": 2\n}", .unexpectedCharacter(found: "\"", expected: "',' or '}' after an object member"), line: 3, column: 3)
        XCTAssertEqual(syntaxError("{\n  \"a\": 1\n  \"b\": 2\n}")?.message,
                       "line 3, column 3: expected ',' or '}' after an object member, found '\"'")
        check("[1 2]", .unexpectedCharacter(found: "2", expected: "',' or ']' after an array element"), line: 1, column: 4)
        check("[1,]", .unexpectedCharacter(found: "]", expected: "a value after ','"), line: 1, column: 4)
        check("{\"a\":1,}", .unexpectedCharacter(found: "}", expected: "a string key after ','"), line: 1, column: 8)
        check("{1:2}", .unexpectedCharacter(found: "1", expected: "a string key or '}'"), line: 1, column: 2)
        check("{'a':1}", .unexpectedCharacter(found: "'", expected: "a string key or '}'"), line: 1, column: 2)
        check("// c\n1", .unexpectedCharacter(found: "/", expected: "a value"), line: 1, column: 1)
        check("[1 /* c */]", .unexpectedCharacter(found: "/", expected: "',' or ']' after an array element"), line: 1, column: 4)
        check("NaN", .unexpectedCharacter(found: "N", expected: "a value"), line: 1, column: 1)
        check("[Infinity]", .unexpectedCharacter(found: "I", expected: "a value or ']'"), line: 1, column: 2)
        check("+1", .unexpectedCharacter(found: "+", expected: "a value"), line: 1, column: 1)
        check(".5", .unexpectedCharacter(found: ".", expected: "a value"), line: 1, column: 1)
        check("trUe", .unexpectedCharacter(found: "U", expected: "'true'"), line: 1, column: 3)
        check("[nulL]", .unexpectedCharacter(found: "L", expected: "'null'"), line: 1, column: 5)
        check("{\"a\":}", .unexpectedCharacter(found: "}", expected: "a value after ':'"), line: 1, column: 6)
        check("[\u{1}]", .unexpectedCharacter(found: "\u{1}", expected: "a value or ']'"), line: 1, column: 2)
        XCTAssertEqual(syntaxError("[\u{1}]")?.message, "line 1, column 2: expected a value or ']', found U+0001")
        check("[\u{A0}1]", .unexpectedCharacter(found: "\u{A0}", expected: "a value or ']'"), line: 1, column: 2)
        check("\n [é]", .unexpectedCharacter(found: "é", expected: "a value or ']'"), line: 2, column: 3)
        XCTAssertEqual(syntaxError("[é]")?.message, "line 1, column 2: expected a value or ']', found 'é' (U+00E9)")
    }

    func testInvalidUTF8() {
        let q: UInt8 = 0x22
        check([q, 0x61, 0xC0, 0x80, q], .invalidUTF8(byte: 0xC0), line: 1, column: 3, offset: 2)   // overlong 2-byte
        check([q, 0xE0, 0x80, 0x80, q], .invalidUTF8(byte: 0x80), line: 1, column: 3, offset: 2)   // overlong 3-byte
        check([q, 0xF0, 0x80, 0x80, 0x80, q], .invalidUTF8(byte: 0x80), line: 1, column: 3, offset: 2)  // overlong 4-byte
        check([q, 0xED, 0xA0, 0x80, q], .invalidUTF8(byte: 0xA0), line: 1, column: 3, offset: 2)   // encoded surrogate
        check([q, 0xF4, 0x90, 0x80, 0x80, q], .invalidUTF8(byte: 0x90), line: 1, column: 3, offset: 2)  // > U+10FFFF
        check([q, 0xF5, 0x80, 0x80, 0x80, q], .invalidUTF8(byte: 0xF5), line: 1, column: 2, offset: 1)
        check([q, 0x80, q], .invalidUTF8(byte: 0x80), line: 1, column: 2, offset: 1)               // stray continuation
        check([q, 0xE2, 0x82, q], .invalidUTF8(byte: 0xE2), line: 1, column: 2, offset: 1)          // truncated sequence
        check([q, 0xE2, 0x82], .invalidUTF8(byte: 0xE2), line: 1, column: 2, offset: 1)            // truncated by the end
        check([0x5B, 0xFF, 0x5D], .invalidUTF8(byte: 0xFF), line: 1, column: 2, offset: 1)         // outside a string
        check([0x5B, 0x31, 0x5D, 0x0A, 0xC3], .invalidUTF8(byte: 0xC3), line: 2, column: 1, offset: 4)
        check(Array("[\"é\",\n \"".utf8) + [0xFE], .invalidUTF8(byte: 0xFE), line: 2, column: 3)
        check([0x2D, 0xC3, 0x28], .invalidUTF8(byte: 0xC3), line: 1, column: 2, offset: 1)        // in a number
        check([0x2D, 0xC3, 0xA9], .invalidNumber("expected a digit after '-'"), line: 1, column: 2, offset: 1)
        check([q, 0x5C, 0xE9, q], .invalidUTF8(byte: 0xE9), line: 1, column: 3, offset: 2)        // after a backslash
        check([0x74, 0x72, 0xFF], .invalidUTF8(byte: 0xFF), line: 1, column: 3, offset: 2)        // in a literal
        check([0x7B, 0x7D, 0x20, 0xC0, 0xAF], .invalidUTF8(byte: 0xC0), line: 1, column: 4, offset: 3)  // after the document
        XCTAssertEqual(syntaxError([q, 0xFF, q])?.message, "line 1, column 2: invalid UTF-8 (byte 0xFF)")
        // Valid 2-, 3- and 4-byte boundaries still parse.
        for scalar in ["\u{80}", "\u{7FF}", "\u{800}", "\u{D7FF}", "\u{E000}", "\u{FFFF}", "\u{10000}", "\u{10FFFF}"] {
            XCTAssertEqual(try parse("\"\(scalar)\"").root.string, scalar)
        }
    }

    func testDuplicateKey() {
        check("{\n \"a\": 1,\n \"a\": 2}", .duplicateKey(key: "a", firstAt: SourceLocation(line: 2, column: 2)), line: 3, column: 2, offset: 12)
        XCTAssertEqual(syntaxError("{\n \"a\": 1,\n \"a\": 2}")?.message,
                       "line 3, column 2: duplicate object key \"a\" (first defined at line 2, column 2)")
        check("{\"a\":1,\"\\u0061\":2}", .duplicateKey(key: "a", firstAt: SourceLocation(line: 1, column: 2)), line: 1, column: 8)
        check("{\"\\n\":1,\"\\u000A\":2}", .duplicateKey(key: "\n", firstAt: SourceLocation(line: 1, column: 2)), line: 1, column: 9)
        // Same key in different objects is fine.
        XCTAssertNoThrow(try parse(#"{"a":{"a":1},"b":[{"a":1},{"a":2}]}"#))
    }

    func testTooDeep() {
        let error = syntaxError("[[[", options: JSONParseOptions(maxDepth: 2))
        XCTAssertEqual(error?.reason, .tooDeep(limit: 2))
        XCTAssertEqual(error?.column, 3)
        XCTAssertEqual(error?.message, "line 1, column 3: arrays and objects nest deeper than the limit of 2")
        XCTAssertEqual(syntaxError(String(repeating: "{\"a\":", count: 1001) + "1" + String(repeating: "}", count: 1001))?.reason,
                       .tooDeep(limit: 1000))
    }

    func testInvalidNumber() {
        check("01", .invalidNumber("leading zeros are not allowed"), line: 1, column: 2)
        check("[-00]", .invalidNumber("leading zeros are not allowed"), line: 1, column: 4)
        check("-x", .invalidNumber("expected a digit after '-'"), line: 1, column: 2)
        check("[-Infinity]", .invalidNumber("expected a digit after '-'"), line: 1, column: 3)
        check("1.e5", .invalidNumber("expected a digit after the decimal point"), line: 1, column: 3)
        check("[1.]", .invalidNumber("expected a digit after the decimal point"), line: 1, column: 4)
        check("1e+x", .invalidNumber("expected a digit in the exponent"), line: 1, column: 4)
        XCTAssertEqual(syntaxError("01")?.message, "line 1, column 2: invalid number: leading zeros are not allowed")
    }

    func testInvalidEscape() {
        check(#"["\x"]"#, .invalidEscape("'\\' followed by 'x' is not a JSON escape"), line: 1, column: 3)
        check(#""\'""#, .invalidEscape("'\\' followed by ''' is not a JSON escape"), line: 1, column: 2)
        check(#""\u12G4""#, .invalidEscape("'\\u' must be followed by four hexadecimal digits"), line: 1, column: 2)
        check(#""ab\ud800""#, .invalidEscape("lone high surrogate \\ud800 is not followed by a low surrogate"), line: 1, column: 4)
        check(#""\uD83D\u0041""#, .invalidEscape("lone high surrogate \\uD83D is not followed by a low surrogate"), line: 1, column: 2)
        check(#""\uD83D\uD83D""#, .invalidEscape("lone high surrogate \\uD83D is not followed by a low surrogate"), line: 1, column: 2)
        check(#""\udc00""#, .invalidEscape("lone low surrogate \\udc00"), line: 1, column: 2)
    }

    func testControlCharacterInString() {
        check("[\"a\tb\"]", .controlCharacterInString(0x09), line: 1, column: 4, offset: 3)
        check("\"line\nbreak\"", .controlCharacterInString(0x0A), line: 1, column: 6)
        check([0x22, 0x00, 0x22], .controlCharacterInString(0x00), line: 1, column: 2)
        XCTAssertEqual(syntaxError("\"\u{1F}\"")?.message, "line 1, column 2: control character U+001F in string must be escaped")
        XCTAssertEqual(try parse("\"\u{7F}\"").root.string, "\u{7F}", "DEL is not a control character in JSON")
    }

    func testTrailingContent() {
        check("{} x", .trailingContent(found: "x"), line: 1, column: 4)
        check("[1]\n[2]", .trailingContent(found: "["), line: 2, column: 1)
        check("1 2", .trailingContent(found: "2"), line: 1, column: 3)
        check("truex", .trailingContent(found: "x"), line: 1, column: 5)
        check("\"a\"\"b\"", .trailingContent(found: "\""), line: 1, column: 4)
        XCTAssertEqual(syntaxError("{} x")?.message, "line 1, column 4: unexpected 'x' after the end of the JSON document")
    }

    func testColumnsCountScalarsNotBytes() {
        check("[\"日本語\", 🚀]", .unexpectedCharacter(found: "🚀", expected: "a value after ','"), line: 1, column: 9)
        check("\r\n[1,,]", .unexpectedCharacter(found: ",", expected: "a value after ','"), line: 2, column: 4)
    }
}
