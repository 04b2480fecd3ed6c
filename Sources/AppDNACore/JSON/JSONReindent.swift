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
        document.bytes.withUnsafeBufferPointer { bytes in
            let tape = UnsafeBufferPointer(start: UnsafePointer(document.tape.base), count: document.nodeCount)
            write(index: node.index, depth: depth, indent: indent, bytes: bytes.baseAddress!, tape: tape, to: &sink)
        }
        out.append(contentsOf: UnsafeBufferPointer(start: sink.base, count: sink.count))
    }

    struct Sink {
        var base: UnsafeMutablePointer<UInt8>
        var count = 0
        var capacity: Int

        init(capacity: Int) {
            self.capacity = capacity
            base = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        }

        func free() { base.deallocate() }

        @inline(__always) mutating func reserve(_ n: Int) {
            if count + n <= capacity { return }
            var grown = capacity * 2
            while grown < count + n { grown *= 2 }
            let fresh = UnsafeMutablePointer<UInt8>.allocate(capacity: grown)
            fresh.update(from: base, count: count)
            base.deallocate()
            base = fresh
            capacity = grown
        }

        @inline(__always) mutating func byte(_ b: UInt8) {
            reserve(1)
            base[count] = b
            count += 1
        }

        @inline(__always) mutating func copy(_ from: UnsafePointer<UInt8>, _ n: Int) {
            reserve(n)
            (base + count).update(from: from, count: n)
            count += n
        }

        @inline(__always) mutating func newline(_ spaces: Int) {
            reserve(spaces + 1)
            base[count] = 0x0A
            (base + count + 1).initialize(repeating: 0x20, count: spaces)
            count += spaces + 1
        }
    }

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
