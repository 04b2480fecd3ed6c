/// The one reader of HTTP/1.1 chunked framing (RFC 9112 §7.1), for the request-dump parser (a
/// whole capture in memory) and the listener (bytes as they arrive): where the next chunk's
/// data is, given the bytes from a chunk-size line on. Callers keep their own words for what
/// goes wrong (a dump names the line and offset, the server answers 400) and their own limits.
public enum ChunkedFraming {
    /// What the bytes at a chunk boundary hold.
    public enum Next: Equatable, Sendable {
        /// A chunk: its data is `data`, and the next chunk-size line starts at `next`.
        case chunk(data: Range<Int>, next: Int)
        /// The last (zero-size) chunk; trailer fields start at `next`.
        case last(next: Int)
        /// The bytes end before the chunk does.
        case incomplete(Missing)
        /// The framing is broken at byte `at`.
        case malformed(Problem, at: Int)
    }

    public enum Missing: Equatable, Sendable {
        /// Inside the chunk-size line (no LF yet).
        case sizeLine
        /// `size` bytes of data announced, `available` there.
        case data(size: Int, available: Int)
        /// The data is complete (it ends at `dataEnd`); its CRLF is not (yet) there.
        case lineEndAfterData(dataEnd: Int)
    }

    public enum Problem: Equatable, Sendable {
        /// The chunk-size line (before any `;extension`) is not hex digits.
        case notASize(line: String)
        /// More than 15 significant hex digits.
        case sizeTooLarge(String)
        /// The bytes after a chunk's data are not CRLF (or LF).
        case noLineEndAfterData(size: Int)
    }

    /// Reads the chunk whose size line starts at `start` in `bytes`. Forgiving (a capture):
    /// whitespace around the size and a CR before each LF are tolerated. `strict` (a server,
    /// RFC 9112 §7.1): the size is hex digits right at the start of the line, followed by `;`
    /// or the line's end, and the line holds no CR but the one before its LF; the loose forms
    /// are what one parser reads differently from another (request smuggling).
    public static func next(in bytes: [UInt8], at start: Int, strict: Bool = false) -> Next {
        guard let newline = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) else { return .incomplete(.sizeLine) }
        var lineEnd = newline
        if lineEnd > start && bytes[lineEnd - 1] == UInt8(ascii: "\r") { lineEnd -= 1 }
        let line = bytes[start..<lineEnd]
        if strict {
            let size = line.prefix(while: { Hex.value(of: $0) != nil })
            let after = line[size.endIndex...]
            guard !size.isEmpty, after.isEmpty || after.first == UInt8(ascii: ";"), !line.contains(UInt8(ascii: "\r")) else {
                return .malformed(.notASize(line: String(decoding: line, as: UTF8.self)), at: start)
            }
        }
        let sizeText = HeaderText.trimmed(String(decoding: line.prefix(while: { $0 != UInt8(ascii: ";") }), as: UTF8.self))
        guard !sizeText.isEmpty, sizeText.utf8.allSatisfy({ Hex.value(of: $0) != nil }) else {
            return .malformed(.notASize(line: String(decoding: line, as: UTF8.self)), at: start)
        }
        guard sizeText.drop(while: { $0 == "0" }).count <= 15, let size = Int(sizeText, radix: 16) else {
            return .malformed(.sizeTooLarge(sizeText), at: start)
        }
        let dataStart = newline + 1
        if size == 0 { return .last(next: dataStart) }
        let available = bytes.count - dataStart
        guard size <= available else { return .incomplete(.data(size: size, available: available)) }
        let dataEnd = dataStart + size
        if dataEnd < bytes.count && bytes[dataEnd] == UInt8(ascii: "\n") {
            return .chunk(data: dataStart..<dataEnd, next: dataEnd + 1)
        }
        if dataEnd + 1 < bytes.count && bytes[dataEnd] == UInt8(ascii: "\r") && bytes[dataEnd + 1] == UInt8(ascii: "\n") {
            return .chunk(data: dataStart..<dataEnd, next: dataEnd + 2)
        }
        if dataEnd >= bytes.count || (dataEnd + 1 == bytes.count && bytes[dataEnd] == UInt8(ascii: "\r")) {
            return .incomplete(.lineEndAfterData(dataEnd: dataEnd))
        }
        return .malformed(.noLineEndAfterData(size: size), at: dataEnd)
    }
}
