#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a stream (a pipe or a file) in chunks of whole lines, for work shared out to threads:
/// each chunk ends at a line end or at the end of input, so no line is split between two. A
/// line too long to fit in a chunk is read through and reported by its length, never held, so
/// memory stays at the chunks whatever the input (as `LineReader`, which splits lines the same
/// way: `\n` ends a line, a `\r` before it is not part of it, a last line without `\n` is one).
public struct LineChunkReader {
    private let fileDescriptor: Int32
    /// Bytes a chunk is filled to before it is cut at its last line end.
    public let chunkSize: Int
    /// Room for a chunk: `chunkSize` and the longest line read as a line, its `\r` and `\n`.
    private let capacity: Int
    /// The unfinished line at the end of the last chunk: the next chunk starts with it.
    private let carry: UnsafeMutableRawPointer
    private var carried = 0
    private var atEnd = false

    /// A line longer than `maxLineLength` (without its `\r`) may be reported as over-long
    /// instead of read (`LineChunk.overlongLineLength`): always when it does not fit in a
    /// chunk; a shorter one is always read.
    public init(fileDescriptor: Int32, chunkSize: Int, maxLineLength: Int) {
        self.fileDescriptor = fileDescriptor
        self.chunkSize = chunkSize
        capacity = chunkSize + maxLineLength + 2
        carry = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 64)
    }

    /// The owner calls this once, after the last `next`.
    public func free() { carry.deallocate() }

    /// Fills `chunk` with the next whole lines; false at the end of input (nothing filled).
    public mutating func next(into chunk: LineChunk) throws(Failure) -> Bool {
        chunk.reserve(capacity)
        chunk.count = 0
        chunk.overlongLineLength = nil
        let buffer = chunk.buffer
        if carried > 0 { buffer.copyMemory(from: carry, byteCount: carried) }
        var filled = carried
        carried = 0
        while filled < chunkSize && !atEnd {
            filled += try readSome(into: buffer + filled, count: chunkSize - filled)
        }
        if filled == 0 { return false }
        // The chunk ends after the last line end in its first `chunkSize` bytes (what is left
        // over may be more when a chunk starts with a long carried line)...
        let window = min(filled, chunkSize)
        var end = window
        while end > 0 && buffer.load(fromByteOffset: end - 1, as: UInt8.self) != 10 { end -= 1 }
        // ...else after the first line end: its first line is longer than that.
        if end == 0 && filled > window, let newline = Self.firstNewline(buffer + window, filled - window) { end = window + newline + 1 }
        while end == 0 && filled < capacity && !atEnd {
            let got = try readSome(into: buffer + filled, count: capacity - filled)
            if let newline = Self.firstNewline(buffer + filled, got) { end = filled + newline + 1 }
            filled += got
        }
        if atEnd && end < filled {
            // The last line needs no newline.
            chunk.count = filled
            return true
        }
        if end == 0 {
            chunk.overlongLineLength = try skipRestOfLine(seen: filled, lastByte: buffer.load(fromByteOffset: filled - 1, as: UInt8.self), scratch: buffer)
            return true
        }
        chunk.count = end
        carried = filled - end
        if carried > 0 { carry.copyMemory(from: buffer + end, byteCount: carried) }
        return true
    }

    /// Reads on to the end of the line whose first `seen` bytes were read, keeping what follows
    /// it; returns the line's length without its `\r`.
    private mutating func skipRestOfLine(seen: Int, lastByte: UInt8, scratch: UnsafeMutableRawPointer) throws(Failure) -> Int {
        var length = seen
        var last = lastByte
        while !atEnd {
            let got = try readSome(into: scratch, count: capacity)
            let end = Self.firstNewline(scratch, got) ?? got
            if end > 0 { last = scratch.load(fromByteOffset: end - 1, as: UInt8.self) }
            length += end
            if end < got {
                carried = got - end - 1
                carry.copyMemory(from: scratch + end + 1, byteCount: carried)
                break
            }
        }
        return last == 13 ? length - 1 : length
    }

    private static func firstNewline(_ bytes: UnsafeMutableRawPointer, _ count: Int) -> Int? {
        guard let hit = memchr(bytes, 10, count) else { return nil }
        return UnsafeMutableRawPointer(hit) - bytes
    }

    /// Some bytes, 0 at the end of input (and from then on).
    private mutating func readSome(into buffer: UnsafeMutableRawPointer, count: Int) throws(Failure) -> Int {
        while !atEnd {
            let n = read(fileDescriptor, buffer, count)
            if n > 0 { return n }
            if n == 0 { atEnd = true; break }
            let code = errno
            if code != EINTR { throw Failure(.ioError, "reading input: \(SystemError.describe(code))") }
        }
        return 0
    }
}

/// One chunk of whole lines (`lines`) and, after them, possibly one line too long to hold
/// (`overlongLineLength`). Its memory is reused from chunk to chunk. Not Sendable: it passes
/// between threads one holder at a time (`OrderedChunkWork`'s slots).
public final class LineChunk {
    public private(set) var buffer: UnsafeMutableRawPointer
    private var capacity: Int
    /// Bytes of whole lines at the start of `buffer`.
    public internal(set) var count = 0
    /// The length (without `\r`) of a line after `lines` that was read through, not kept.
    public internal(set) var overlongLineLength: Int?

    public init() {
        capacity = 0
        buffer = UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 64)
    }

    deinit { buffer.deallocate() }

    public var lines: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: buffer, count: count) }

    /// Calls `body` with each line of `region` (without `\n` and a `\r` before it) and the
    /// line's offset in the region, the way `LineReader` splits lines.
    @inline(__always)
    public static func forEachLine(_ region: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer, Int) -> Void) {
        guard let base = region.baseAddress else { return }
        var p = 0
        let n = region.count
        while p < n {
            let end: Int
            if let hit = memchr(base + p, 10, n - p) { end = UnsafeRawPointer(hit) - base } else { end = n }
            var stop = end
            if stop > p && base.load(fromByteOffset: stop - 1, as: UInt8.self) == 13 { stop -= 1 }
            body(UnsafeRawBufferPointer(start: base + p, count: stop - p), p)
            p = end + 1
        }
    }

    func reserve(_ size: Int) {
        guard size > capacity else { return }
        buffer.deallocate()
        buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 64)
        capacity = size
    }
}
