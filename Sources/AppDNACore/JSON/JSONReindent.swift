/// Re-lays out a parsed value as pretty JSON (members one per line, `indent` spaces per
/// level, `": "` after keys) in document order, copying strings and numbers exactly as they
/// were written. One linear pass over the tape: no owned tree is built, so a multi-megabyte
/// bundle is rewritten in a few milliseconds. The same input always gives the same bytes.
public enum JSONReindent {
    public static func append(_ node: JSONNode, indent: Int = 2, depth: Int = 0, to out: inout [UInt8]) {
        let document = node.document
        document.bytes.withUnsafeBufferPointer { bytes in
            let tape = UnsafeBufferPointer(start: UnsafePointer(document.tape.base), count: document.nodeCount)
            write(index: node.index, depth: depth, indent: indent, bytes: bytes, tape: tape, to: &out)
        }
    }

    private static func newline(_ depth: Int, _ indent: Int, _ out: inout [UInt8]) {
        out.append(0x0A)
        out.append(contentsOf: repeatElement(0x20, count: indent * depth))
    }

    private static func write(index: Int, depth: Int, indent: Int, bytes: UnsafeBufferPointer<UInt8>,
                              tape: UnsafeBufferPointer<JSONTapeNode>, to out: inout [UInt8]) {
        let node = tape[index]
        let end = Int(node.next)
        switch node.kind {
        case JSONKind.object.rawValue:
            out.append(UInt8(ascii: "{"))
            var i = index + 1
            var first = true
            while i < end {
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                newline(depth + 1, indent, &out)
                let key = tape[i]
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[Int(key.start)..<Int(key.end)]))
                out.append(UInt8(ascii: ":")); out.append(0x20)
                write(index: i + 1, depth: depth + 1, indent: indent, bytes: bytes, tape: tape, to: &out)
                i = Int(tape[i + 1].next)
            }
            if !first { newline(depth, indent, &out) }
            out.append(UInt8(ascii: "}"))
        case JSONKind.array.rawValue:
            out.append(UInt8(ascii: "["))
            var i = index + 1
            var first = true
            while i < end {
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                newline(depth + 1, indent, &out)
                write(index: i, depth: depth + 1, indent: indent, bytes: bytes, tape: tape, to: &out)
                i = Int(tape[i].next)
            }
            if !first { newline(depth, indent, &out) }
            out.append(UInt8(ascii: "]"))
        default:
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[Int(node.start)..<Int(node.end)]))
        }
    }
}
