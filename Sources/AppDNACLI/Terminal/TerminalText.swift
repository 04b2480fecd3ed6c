import AppDNACore

/// How human-readable text reaches a terminal, a pipe or a CI log: data is shown, never obeyed.
///
/// Everything a command writes as text (`OutputSink.write(_:)`, `writeLine`) may hold data —
/// an experiment name, an event name, a header from a request — and data can carry a line
/// feed followed by `::error::…` (a GitHub Actions workflow command), `ESC [2J`, `ESC ]0;…`, a
/// CR that rewrites the line, or a bidi override. So the sink escapes every such character in
/// text (`VisibleText`), whether or not it writes to a terminal, and only these reach the
/// output raw:
/// - the line feed that ends a `writeLine` (and `newline`, for a writer that must put several
///   lines in one atomic write);
/// - the tool's own colours and progress bar, written as the markers `escape` and
///   `carriageReturn`, which the sink turns into ESC and CR — ESC only before the few
///   sequences the tool emits (SGR colours, erase line).
/// A marker is a noncharacter followed by a tag drawn at random when the process starts, so text
/// from a bundle cannot spell one (it cannot know the tag); an untagged noncharacter is escaped.
///
/// And data never starts a line as a CI log command: a text line whose first non-blank
/// characters are `::` (GitHub Actions), `##[` (GitHub's and Azure's older form) or `##vso[`
/// (Azure Pipelines) gets that first character escaped (`\x3A`, `\x23`); the tool itself never
/// starts a text line so (its `--format github` annotations are a machine format, written
/// verbatim).
///
/// Machine formats (JSON, NDJSON, TSV, CSV, SQL, `--format github`, generated code) escape
/// their own data and are written verbatim (`OutputSink.writeVerbatim`, bytes).
public enum TerminalText {
    /// The per-process tag that follows each marker's noncharacter: 8 private-use scalars
    /// (U+E000…U+E0FF), 64 random bits.
    static let tag: String = {
        var generator = SystemRandomNumberGenerator()
        var tag = ""
        for _ in 0..<8 { tag.unicodeScalars.append(Unicode.Scalar(0xE000 + UInt32(UInt8.random(in: 0...255, using: &generator)))!) }
        return tag
    }()
    static let tagBytes: [UInt8] = Array(tag.utf8)

    /// Stands for ESC in the tool's own sequences (U+FDD0 and the tag).
    public static let escape = String(Unicode.Scalar(0xFDD0 as UInt32)!) + tag  // a literal cannot spell a noncharacter
    /// Stands for CR in the tool's own progress bar (U+FDD1 and the tag).
    public static let carriageReturn = String(Unicode.Scalar(0xFDD1 as UInt32)!) + tag
    /// Stands for a line feed the tool writes inside one atomic write (U+FDD2 and the tag).
    public static let newline = String(Unicode.Scalar(0xFDD2 as UInt32)!) + tag

    /// Where the text written so far left the current line (kept by each sink).
    struct LineState {
        /// Nothing but white space since the last line feed the tool wrote.
        var atLineStart = true
    }

    /// Appends `bytes` (a String's UTF-8) to `out` as human text: markers resolved, data escaped,
    /// a CI log command at the start of a line defused. `lineEnds`: the caller ends the line
    /// right after (`writeLine`), so text that stops at a possible command's prefix is not one.
    static func render(_ bytes: UnsafeRawBufferPointer, into out: inout [UInt8], state: inout LineState,
                       asciiOnly: Bool, lineEnds: Bool) {
        let n = bytes.count
        var i = 0
        var runStart = 0  // bytes[runStart..<i] are copied as they are
        func flushRun() {
            if runStart < i { out.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[runStart..<i])) }
        }
        while i < n {
            let byte = bytes[i]
            if state.atLineStart {
                if byte == 0x20 { i += 1; continue }
                if byte >= 0x80, !asciiOnly, let length = nonASCIIWhiteSpaceLength(bytes, at: i) { i += length; continue }
                // A marker (a colour, or the tool's CR or LF) leaves the line where it was.
                if markerKind(bytes, at: i) == nil {
                    state.atLineStart = false
                    if startsCommand(bytes, at: i, lineEnds: lineEnds) {
                        flushRun()
                        out.append(contentsOf: Array((byte == UInt8(ascii: ":") ? "\\x3A" : "\\x23").utf8))
                        i += 1
                        runStart = i
                        continue
                    }
                }
            }
            guard needsLook[Int(byte)] || (asciiOnly && byte >= 0x80) else { i += 1; continue }
            flushRun()
            if let marker = markerKind(bytes, at: i) {
                let end = i + 3 + tagBytes.count
                switch marker {
                case 0x90:
                    if let length = ownSequenceLength(bytes, from: end) {
                        out.append(0x1B)
                        out.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[end..<(end + length)]))
                        i = end + length
                    } else {
                        out.append(contentsOf: Array("\\uFDD0".utf8))  // the tool's own marker, misused: shown
                        i = end
                    }
                case 0x91:
                    out.append(13)
                    state.atLineStart = true
                    i = end
                default:
                    out.append(10)
                    state.atLineStart = true
                    i = end
                }
                runStart = i
                continue
            }
            // One character to escape (or, in ASCII mode, to check): VisibleText decides.
            let length = byte < 0x80 ? 1 : byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1
            let end = min(n, i + length)
            VisibleText.append(UnsafeRawBufferPointer(rebasing: bytes[i..<end]), to: &out, asciiOnly: asciiOnly)
            i = end
            runStart = i
        }
        flushRun()
    }

    /// Bytes that may start something to escape or a marker: C0, DEL, and the lead bytes of the
    /// non-ASCII scalars `VisibleText` escapes in every locale (the markers' EF among them).
    static let needsLook: [Bool] = (0..<256).map { $0 < 0x20 || $0 == 0x7F || VisibleText.mayStartEscape[$0] }

    /// The marker's kind byte (0x90 ESC, 0x91 CR, 0x92 LF) when a tagged marker starts at `i`.
    @inline(__always)
    static func markerKind(_ bytes: UnsafeRawBufferPointer, at i: Int) -> UInt8? {
        // U+FDD0 / U+FDD1 / U+FDD2 are EF B7 90 / 91 / 92 in UTF-8.
        guard bytes[i] == 0xEF, i + 2 < bytes.count, bytes[i + 1] == 0xB7, (0x90...0x92).contains(bytes[i + 2]),
              i + 3 + tagBytes.count <= bytes.count else { return nil }
        for k in 0..<tagBytes.count where bytes[i + 3 + k] != tagBytes[k] { return nil }
        return bytes[i + 2]
    }

    /// The CI log commands a line must not start with.
    static let commandPrefixes: [[UInt8]] = ["::", "##[", "##vso["].map { Array($0.utf8) }

    /// Whether the text at `i` (the first non-blank of a line) starts a CI log command — or,
    /// when the write stops before it could tell and the line goes on, may start one.
    static func startsCommand(_ bytes: UnsafeRawBufferPointer, at i: Int, lineEnds: Bool) -> Bool {
        guard bytes[i] == UInt8(ascii: ":") || bytes[i] == UInt8(ascii: "#") else { return false }
        let available = bytes.count - i
        return commandPrefixes.contains { prefix in
            if available < prefix.count && lineEnds { return false }
            return (0..<min(prefix.count, available)).allSatisfy { bytes[i + $0] == prefix[$0] }
        }
    }

    /// The length of a non-ASCII white-space character at `i` (what a log reader trims before it
    /// looks for a command: U+00A0, U+1680, U+2000…U+200A, U+202F, U+205F, U+3000), else nil.
    static func nonASCIIWhiteSpaceLength(_ bytes: UnsafeRawBufferPointer, at i: Int) -> Int? {
        let (scalar, length) = VisibleText.decode(bytes, at: i)
        switch scalar {
        case 0xA0, 0x1680, 0x2000...0x200A, 0x202F, 0x205F, 0x3000: return length
        default: return nil
        }
    }

    /// The length of `[` + digits/semicolons + `m` (a colour) or `[K` (erase line) at `start`.
    static func ownSequenceLength(_ bytes: UnsafeRawBufferPointer, from start: Int) -> Int? {
        guard start < bytes.count, bytes[start] == UInt8(ascii: "[") else { return nil }
        var i = start + 1
        while i < bytes.count, (0x30...0x39).contains(bytes[i]) || bytes[i] == UInt8(ascii: ";"), i - start < 12 { i += 1 }
        guard i < bytes.count, bytes[i] == UInt8(ascii: "m") || (bytes[i] == UInt8(ascii: "K") && i == start + 1) else { return nil }
        return i - start + 1
    }
}
