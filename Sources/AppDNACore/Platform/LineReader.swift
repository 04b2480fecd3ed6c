#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Streams the lines of a file descriptor in bounded memory: the buffer holds one chunk plus
/// the longest line, whatever the input's size. With `maxLineLength`, a longer line is not
/// held: it is read through and reported by its number and length only, so one endless line
/// (a gigabyte without a newline) costs no more memory than a short one.
public struct LineReader {
    private let fileDescriptor: Int32
    private let chunkSize: Int
    private let maxLineLength: Int

    public init(fileDescriptor: Int32, chunkSize: Int = 1 << 20, maxLineLength: Int = .max) {
        self.fileDescriptor = fileDescriptor
        self.chunkSize = chunkSize
        self.maxLineLength = maxLineLength
    }

    /// Calls `body` with each line (without its `\n`, and without a `\r` before it) and its
    /// 1-based number. A last line without a newline is still a line. A line longer than
    /// `maxLineLength` bytes goes to `oversized` instead, with its number and length. Either
    /// closure returns false to stop.
    public func forEachLine(_ body: (UnsafeRawBufferPointer, Int) -> Bool,
                            oversized: (_ number: Int, _ length: Int) -> Bool = { _, _ in true }) throws(Failure) {
        var buffer = [UInt8](repeating: 0, count: chunkSize)
        var filled = 0
        var lineNumber = 0
        var failure: Int32 = 0
        var stopped = false
        // The length so far of an over-long line being read through (its bytes are not kept).
        var skipping: Int? = nil
        // Its last byte read so far: a `\r` before the `\n` is not counted, as for other lines.
        var skippedLastByte: UInt8 = 0
        while !stopped {
            if filled == buffer.count {
                // An array, not `repeatElement`: unspecialised (a debug build), appending a
                // `Repeated` goes element by element, seconds for the megabytes of a long line.
                buffer.append(contentsOf: [UInt8](repeating: 0, count: buffer.count))
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
                if let length = skipping {
                    // Only the over-long line's continuation is in the buffer.
                    if let newline = memchr(base, 10, filled) {
                        let end = UnsafeRawPointer(newline) - base
                        let last = end > 0 ? base.load(fromByteOffset: end - 1, as: UInt8.self) : skippedLastByte
                        consumed = end + 1
                        skipping = nil
                        lineNumber += 1
                        stopped = !oversized(lineNumber, length + end - (last == 13 ? 1 : 0))
                    } else {
                        if filled > 0 { skippedLastByte = base.load(fromByteOffset: filled - 1, as: UInt8.self) }
                        if atEnd {
                            lineNumber += 1
                            stopped = !oversized(lineNumber, length + filled - (skippedLastByte == 13 ? 1 : 0))
                        } else {
                            skipping = length + filled
                        }
                        consumed = filled
                    }
                }
                while !stopped && consumed < filled {
                    let remaining = filled - consumed
                    let end: Int
                    if let newline = memchr(base + consumed, 10, remaining) {
                        end = UnsafeRawPointer(newline) - base
                    } else if atEnd {
                        end = filled
                    } else {
                        // One byte of slack: a `\r` that the `\n` may yet follow is not counted.
                        if remaining - 1 > maxLineLength {
                            skipping = remaining
                            skippedLastByte = base.load(fromByteOffset: filled - 1, as: UInt8.self)
                            consumed = filled
                        }
                        return
                    }
                    lineNumber += 1
                    let line = Self.trimCarriageReturn(UnsafeRawBufferPointer(start: base + consumed, count: end - consumed))
                    stopped = line.count > maxLineLength ? !oversized(lineNumber, line.count) : !body(line, lineNumber)
                    consumed = end + 1
                }
            }
            if atEnd { return }
            // Keep the unfinished line at the front of the buffer.
            if consumed > 0 {
                let kept = max(filled - consumed, 0)
                buffer.withUnsafeMutableBytes { raw in
                    _ = memmove(raw.baseAddress!, raw.baseAddress! + min(consumed, filled), kept)
                }
                filled = kept
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
