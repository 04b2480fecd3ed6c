/// Re-lays out a parsed value as pretty JSON (members one per line, `indent` spaces per
/// level, `": "` after keys) in document order, copying strings and numbers exactly as they
/// were written. One linear pass over the tape into a raw buffer: no owned tree is built, so
/// a multi-megabyte bundle is rewritten in a few milliseconds. The same input always gives the
/// same bytes.
public enum JSONReindent {
    public static func append(_ node: JSONNode, indent: Int = 2, depth: Int = 0, to out: inout [UInt8]) {
        let document = node.document
        var sink = Sink(capacity: max(4096, (node.byteRange.count * 7) / 4))
        defer { sink.free() }
        document.withBytes { bytes in
            let tape = UnsafeBufferPointer(start: UnsafePointer(document.tape.base), count: document.nodeCount)
            write(index: node.index, depth: depth, indent: indent, bytes: bytes.baseAddress!, tape: tape, to: &sink)
        }
        out.append(contentsOf: UnsafeBufferPointer(start: sink.base, count: sink.count))
    }

    typealias Sink = RawByteBuffer

    private static func write(index: Int, depth: Int, indent: Int, bytes: UnsafePointer<UInt8>,
                              tape: UnsafeBufferPointer<JSONTapeNode>, to out: inout Sink) {
        let node = tape[index]
        let end = Int(node.next)
        switch node.kind {
        case JSONKind.object.rawValue, JSONKind.array.rawValue:
            // One layout for both: an object's children come in pairs, key then value.
            let isObject = node.kind == JSONKind.object.rawValue
            out.byte(isObject ? UInt8(ascii: "{") : UInt8(ascii: "["))
            var i = index + 1
            var first = true
            while i < end {
                if !first { out.byte(UInt8(ascii: ",")) }
                first = false
                out.newline(indent * (depth + 1))
                var value = i
                if isObject {
                    let key = tape[i]
                    out.copy(bytes + Int(key.start), Int(key.end) - Int(key.start))
                    out.byte(UInt8(ascii: ":")); out.byte(0x20)
                    value = i + 1
                }
                write(index: value, depth: depth + 1, indent: indent, bytes: bytes, tape: tape, to: &out)
                i = Int(tape[value].next)
            }
            if !first { out.newline(indent * depth) }
            out.byte(isObject ? UInt8(ascii: "}") : UInt8(ascii: "]"))
        default:
            out.copy(bytes + Int(node.start), Int(node.end) - Int(node.start))
        }
    }
}
