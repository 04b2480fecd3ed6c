/// A human position in a text file: 1-based line and column, the column counted in Unicode
/// scalars so it matches what an editor shows for non-ASCII text.
public struct SourceLocation: Equatable, Hashable, Sendable, CustomStringConvertible {
    public var line: Int
    public var column: Int

    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    public var description: String { "line \(line), column \(column)" }

    /// Scans `bytes[contentStart..<offset]` from the start. Used only on error paths and while
    /// building the line index, so parsing itself never counts lines. A line ends at "\n";
    /// "\r\n" therefore needs no special case, and a byte-order mark (before `contentStart`)
    /// is not a column.
    static func scan(_ bytes: UnsafeBufferPointer<UInt8>, to offset: Int, contentStart: Int) -> SourceLocation {
        let limit = min(max(offset, contentStart), bytes.count)
        var line = 1
        var lineStart = contentStart
        var i = contentStart
        while i < limit {
            if bytes[i] == 0x0A {
                line += 1
                lineStart = i + 1
            }
            i += 1
        }
        return SourceLocation(line: line, column: 1 + scalarCount(bytes, from: lineStart, to: limit))
    }

    /// Counts the scalars in a UTF-8 range: every byte that is not a continuation byte starts one.
    static func scalarCount(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> Int {
        var n = 0
        var i = start
        while i < end {
            if bytes[i] & 0xC0 != 0x80 { n += 1 }
            i += 1
        }
        return n
    }
}
