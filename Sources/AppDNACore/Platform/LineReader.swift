/// Streams the lines of a file descriptor in bounded memory: the buffer holds one chunk plus
/// the longest line, whatever the input's size.
public struct LineReader {
    private let fileDescriptor: Int32
    private let chunkSize: Int

    public init(fileDescriptor: Int32, chunkSize: Int = 1 << 20) {
        self.fileDescriptor = fileDescriptor
        self.chunkSize = chunkSize
    }

    /// Calls `body` with each line (without its `\n`, and without a `\r` before it) and its
    /// 1-based number. A last line without a newline is still a line. `body` returns false to stop.
    public func forEachLine(_ body: (UnsafeRawBufferPointer, Int) -> Bool) throws(Failure) {
        var buffer = [UInt8](repeating: 0, count: chunkSize)
        var filled = 0
        var lineNumber = 0
        var failure: Int32 = 0
        var stopped = false
        while !stopped {
            if filled == buffer.count {
                buffer.append(contentsOf: repeatElement(0, count: buffer.count))
            }
            let got = buffer.withUnsafeMutableBytes { raw -> Int in
                while true {
                    let n = read(fileDescriptor, raw.baseAddress! + filled, raw.count - filled)
                    if n < 0 && errno == EINTR { continue }
                    if n < 0 { failure = errno }
                    return max(n, 0)
                }
            }
            if failure != 0 { throw Failure(.ioError, "reading input: \(SystemError.describe(failure))") }
            let atEnd = got == 0
            filled += got
            var consumed = 0
            buffer.withUnsafeBytes { raw in
                let base = raw.baseAddress!
                while consumed < filled {
                    let remaining = filled - consumed
                    guard let newline = memchr(base + consumed, 10, remaining) else {
                        if atEnd {
                            lineNumber += 1
                            stopped = !body(Self.trimCarriageReturn(UnsafeRawBufferPointer(start: base + consumed, count: remaining)), lineNumber)
                            consumed = filled
                        }
                        return
                    }
                    let end = UnsafeRawPointer(newline) - base
                    lineNumber += 1
                    if !body(Self.trimCarriageReturn(UnsafeRawBufferPointer(start: base + consumed, count: end - consumed)), lineNumber) {
                        stopped = true
                        return
                    }
                    consumed = end + 1
                }
            }
            if atEnd { return }
            // Keep the unfinished line at the front of the buffer.
            if consumed > 0 {
                buffer.withUnsafeMutableBytes { raw in
                    _ = memmove(raw.baseAddress!, raw.baseAddress! + consumed, filled - consumed)
                }
                filled -= consumed
            }
        }
    }

    @inline(__always)
    static func trimCarriageReturn(_ line: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        if let last = line.last, last == 13 {
            return UnsafeRawBufferPointer(rebasing: line.dropLast())
        }
        return line
    }
}
