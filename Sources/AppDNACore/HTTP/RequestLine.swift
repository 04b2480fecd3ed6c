/// The request line (`POST /webhooks HTTP/1.1`, RFC 9112 §3): read by the listener and the
/// request-dump parser, and checked before `trigger --replay` puts a recorded method and
/// target back on the wire.
public enum RequestLine {
    public enum Problem: Error, Equatable, Sendable, CustomStringConvertible {
        /// Not three parts separated by single spaces (strict), or by runs of spaces (forgiving).
        case parts(Int)
        case notAVersion(String)
        case notAMethod(String)
        /// The target holds a byte a request target never does (a control character, a
        /// space, DEL): it would end the request line early or split the request.
        case badTargetByte(UInt8)
        case emptyTarget

        public var description: String { message }

        public var message: String {
            let example = "expected a request line like 'POST /webhooks HTTP/1.1'"
            switch self {
            case .parts(let count): return "\(example), found \(count) space-separated part\(count == 1 ? "" : "s")"
            case .notAVersion(let text): return "\(example); '\(HeaderText.excerpt(text))' is not an HTTP version"
            case .notAMethod(let text): return "\(example); '\(HeaderText.excerpt(text))' is not a method"
            case .badTargetByte(let byte): return "the request target holds \(HeaderField.describe(byte: byte))"
            case .emptyTarget: return "the request target is empty"
            }
        }
    }

    /// Method, target and version of `line` (without its line ending). `strict`: as a server
    /// reads it: single spaces between the parts, nothing in the target that
    /// `firstInvalidTargetByte` refuses. Forgiving (a capture): runs of spaces separate parts.
    public static func parse(_ line: ArraySlice<UInt8>, strict: Bool) -> Result<(method: String, target: String, version: String), Problem> {
        let parts = line.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: !strict)
        guard parts.count == 3 else { return .failure(.parts(strict ? parts.filter { !$0.isEmpty }.count : parts.count)) }
        let version = String(decoding: parts[2], as: UTF8.self)
        guard version.hasPrefix("HTTP/") else { return .failure(.notAVersion(version)) }
        let method = String(decoding: parts[0], as: UTF8.self)
        guard isValidMethod(parts[0]) else { return .failure(.notAMethod(method)) }
        if strict {
            if parts[1].isEmpty { return .failure(.emptyTarget) }
            if let byte = firstInvalidTargetByte(in: parts[1]) { return .failure(.badTargetByte(byte)) }
        }
        return .success((method, String(decoding: parts[1], as: UTF8.self), version))
    }

    /// A method is a token (RFC 9110 §9.1).
    public static func isValidMethod<Bytes: Collection>(_ method: Bytes) -> Bool where Bytes.Element == UInt8 {
        HeaderField.isValidName(method)
    }

    /// The first byte of a request target that cannot be in one: control characters, space, DEL.
    public static func firstInvalidTargetByte<Bytes: Collection>(in target: Bytes) -> UInt8? where Bytes.Element == UInt8 {
        target.first { $0 <= 0x20 || $0 == 0x7F }
    }

    /// Whether `method` and `target` can go on the wire as a request line a strict reader reads
    /// back as exactly them: the checks `parse(_:strict: true)` makes.
    public static func check(method: String, target: String) -> Problem? {
        if !isValidMethod(method.utf8) { return .notAMethod(method) }
        if target.isEmpty { return .emptyTarget }
        if let byte = firstInvalidTargetByte(in: target.utf8) { return .badTargetByte(byte) }
        return nil
    }
}
