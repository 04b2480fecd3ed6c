import AppDNACore

/// What reaches a terminal: text from bundles, queues and requests is shown, never obeyed.
///
/// An id or event name can carry control characters (`ESC [2J`, `ESC ]0;title BEL`, a bare CR
/// that rewrites the line): on a terminal they would clear the screen, retitle the window or
/// overwrite a verdict with a forged one. So a sink that reaches a terminal writes every C0
/// control but newline and tab, DEL, and C1 controls escaped (`\x1B`, `\r`, `\u0085`).
///
/// The tool's own colours and progress bar need real ESC and CR: they are written as
/// `TerminalText.escape` / `.carriageReturn` (noncharacters, which no id uses), which the sink
/// turns into ESC and CR — ESC only before one of the few sequences the tool emits (SGR
/// colours, erase line), so a noncharacter smuggled in by a bundle cannot start anything
/// else. Files and pipes get the bytes as they are (output stays byte-exact), with the markers
/// turned into ESC and CR.
public enum TerminalText {
    /// Stands for ESC in the tool's own sequences (U+FDD0).
    public static let escape = String(Unicode.Scalar(0xFDD0 as UInt32)!)  // a literal cannot spell a noncharacter
    /// Stands for CR in the tool's own progress bar (U+FDD1).
    public static let carriageReturn = String(Unicode.Scalar(0xFDD1 as UInt32)!)

    /// `bytes` as they are written: controls escaped when `terminal`, markers resolved always.
    /// Returns nil when nothing needs changing (the usual case, checked in one pass).
    static func rendered(_ bytes: UnsafeRawBufferPointer, terminal: Bool) -> [UInt8]? {
        guard let base = bytes.baseAddress else { return nil }
        if terminal {
            guard bytes.contains(where: { needsLook($0, terminal: true) }) else { return nil }
        } else {
            // Files and pipes (batch output streams megabytes): only a marker's lead byte
            // matters, found by memchr.
            guard RawMemory.firstIndex(of: 0xEF, in: base, count: bytes.count) != nil else { return nil }
        }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 16)
        var i = 0
        let n = bytes.count
        while i < n {
            let byte = bytes[i]
            // U+FDD0 / U+FDD1 are EF B7 90 / EF B7 91 in UTF-8.
            if byte == 0xEF, i + 2 < n, bytes[i + 1] == 0xB7, bytes[i + 2] == 0x90 || bytes[i + 2] == 0x91 {
                if bytes[i + 2] == 0x91 {
                    out.append(13)
                } else if let length = ownSequenceLength(bytes, from: i + 3) {
                    out.append(0x1B)
                    out.append(contentsOf: bytes[(i + 3)..<(i + 3 + length)])
                    i += 3 + length
                    continue
                } else {
                    out.append(contentsOf: Array("\\uFDD0".utf8))
                }
                i += 3
                continue
            }
            if terminal {
                if byte < 0x20 && byte != 10 && byte != 9 || byte == 0x7F {
                    out.append(contentsOf: byte == 13 ? Array("\\r".utf8) : Array("\\x".utf8) + hex(byte))
                    i += 1
                    continue
                }
                // C1 controls, U+0080…U+009F: C2 80…C2 9F.
                if byte == 0xC2, i + 1 < n, (0x80...0x9F).contains(bytes[i + 1]) {
                    out.append(contentsOf: Array("\\u00".utf8) + hex(bytes[i + 1]))
                    i += 2
                    continue
                }
            }
            out.append(byte)
            i += 1
        }
        return out
    }

    @inline(__always)
    static func needsLook(_ byte: UInt8, terminal: Bool) -> Bool {
        byte == 0xEF || terminal && (byte < 0x20 && byte != 10 && byte != 9 || byte == 0x7F || byte == 0xC2)
    }

    /// The length of `[` + digits/semicolons + `m` (a colour) or `[K` (erase line) at `start`.
    static func ownSequenceLength(_ bytes: UnsafeRawBufferPointer, from start: Int) -> Int? {
        guard start < bytes.count, bytes[start] == UInt8(ascii: "[") else { return nil }
        var i = start + 1
        while i < bytes.count, (0x30...0x39).contains(bytes[i]) || bytes[i] == UInt8(ascii: ";"), i - start < 12 { i += 1 }
        guard i < bytes.count, bytes[i] == UInt8(ascii: "m") || (bytes[i] == UInt8(ascii: "K") && i == start + 1) else { return nil }
        return i - start + 1
    }

    static func hex(_ byte: UInt8) -> [UInt8] {
        let digits = Array("0123456789ABCDEF".utf8)
        return [digits[Int(byte >> 4)], digits[Int(byte & 15)]]
    }
}
