/// Why bytes are not an acceptable JSON document, and where: the position comes first in
/// `message` ("line 3, column 14: ...") so the CLI only has to prefix the file name.
public struct JSONSyntaxError: ClassifiedError, Equatable, Sendable {
    /// A construct still open when the input ended, so the message can point at its start.
    public enum OpenConstruct: Equatable, Sendable {
        case string(SourceLocation)
        case array(SourceLocation)
        case object(SourceLocation)
    }

    public enum Reason: Equatable, Sendable {
        /// No bytes, or only whitespace (and a byte-order mark).
        case emptyInput
        /// The input stopped where `expected` was needed, inside `open` (if anything was open).
        case unexpectedEndOfInput(expected: String, open: OpenConstruct?)
        /// A character that cannot appear here.
        case unexpectedCharacter(found: Unicode.Scalar, expected: String)
        /// A byte that is not part of well-formed UTF-8 (overlong, surrogate, too large,
        /// truncated, stray continuation).
        case invalidUTF8(byte: UInt8)
        /// An object names `key` a second time; `firstAt` is the first occurrence.
        case duplicateKey(key: String, firstAt: SourceLocation)
        /// Arrays and objects nest deeper than the limit.
        case tooDeep(limit: Int)
        /// A number that breaks the grammar (leading zero, missing digits).
        case invalidNumber(String)
        /// A backslash escape that is not one of JSON's, or a lone UTF-16 surrogate.
        case invalidEscape(String)
        /// A raw byte below 0x20 inside a string: it must be escaped.
        case controlCharacterInString(UInt8)
        /// Something other than whitespace after the complete document.
        case trailingContent(found: Unicode.Scalar)
        /// The input is larger than the tape's 32-bit byte offsets can address.
        case inputTooLarge(limit: Int)
    }

    public var reason: Reason
    /// Offset into the bytes given to the parser (a byte-order mark included).
    public var byteOffset: Int
    public var line: Int
    public var column: Int

    public init(reason: Reason, byteOffset: Int, line: Int, column: Int) {
        self.reason = reason
        self.byteOffset = byteOffset
        self.line = line
        self.column = column
    }

    public var location: SourceLocation { SourceLocation(line: line, column: column) }

    public var kind: FailureKind { .malformedInput }

    public var message: String { "line \(line), column \(column): \(reason.explanation)" }
}

extension JSONSyntaxError.Reason {
    /// The message after the position.
    public var explanation: String {
        switch self {
        case .emptyInput:
            return "empty input: expected a JSON value"
        case let .unexpectedEndOfInput(expected, open):
            switch open {
            case let .string(at)?:
                return "unexpected end of input: unterminated string started at \(at)"
            case let .array(at)?:
                return "unexpected end of input: expected \(expected); unterminated array started at \(at)"
            case let .object(at)?:
                return "unexpected end of input: expected \(expected); unterminated object started at \(at)"
            case nil:
                return "unexpected end of input: expected \(expected)"
            }
        case let .unexpectedCharacter(found, expected):
            return "expected \(expected), found \(JSONSyntaxError.describe(found))"
        case let .invalidUTF8(byte):
            return "invalid UTF-8 (byte \(JSONSyntaxError.hex(byte)))"
        case let .duplicateKey(key, firstAt):
            return "duplicate object key \(JSONSyntaxError.quote(key)) (first defined at \(firstAt))"
        case let .tooDeep(limit):
            return "arrays and objects nest deeper than the limit of \(limit)"
        case let .invalidNumber(detail):
            return "invalid number: \(detail)"
        case let .invalidEscape(detail):
            return "invalid escape in string: \(detail)"
        case let .controlCharacterInString(byte):
            return "control character U+00\(JSONSyntaxError.hexDigits(byte)) in string must be escaped"
        case let .trailingContent(found):
            return "unexpected \(JSONSyntaxError.describe(found)) after the end of the JSON document"
        case let .inputTooLarge(limit):
            return "input is larger than the \(limit) bytes a JSON document may have"
        }
    }
}

extension JSONSyntaxError {
    /// Shows a character so it can be seen: printable ones quoted, invisible ones as U+XXXX.
    static func describe(_ scalar: Unicode.Scalar) -> String {
        let v = scalar.value
        if v > 0x20 && v < 0x7F { return "'\(Character(scalar))'" }
        let code = String(v, radix: 16, uppercase: true)
        let padded = String(repeating: "0", count: max(0, 4 - code.count)) + code
        if v <= 0x20 || v == 0x7F || (v >= 0x80 && v < 0xA0) { return "U+\(padded)" }
        switch scalar.properties.generalCategory {
        case .format, .control, .spaceSeparator, .lineSeparator, .paragraphSeparator, .unassigned, .privateUse:
            return "U+\(padded)"
        default:
            return "'\(Character(scalar))' (U+\(padded))"
        }
    }

    static func hexDigits(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 15)]])
    }

    static func hex(_ byte: UInt8) -> String { "0x" + hexDigits(byte) }

    /// A key as it would be written in JSON, so invisible characters show.
    static func quote(_ key: String) -> String {
        var out: [UInt8] = []
        JSONWriter.appendQuoted(key, to: &out)
        return String(decoding: out, as: UTF8.self)
    }
}
