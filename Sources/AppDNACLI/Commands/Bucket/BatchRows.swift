import AppDNACore

/// What `bucket -` makes of each id read: rows appended to the output (one experiment, or one
/// per experiment of a bundle), or counts for `--summary`. `BatchRunner` keeps one value per
/// thread: each holds its own hashing scratch and counts.
protocol BatchRows {
    mutating func take(_ user: UnsafeRawBufferPointer, into rows: inout RawByteBuffer)
}

/// Byte strings made once and copied into every row (a variant's field with its separator, an
/// experiment's name, a JSON key), laid out in one block of raw memory.
struct RowPieces {
    private let storage: RawByteBuffer
    /// Piece i is `storage[offsets[i] ..< offsets[i + 1]]`.
    private let offsets: [Int]
    /// The longest piece: a row reserves room for its pieces from it.
    let longest: Int

    init(_ pieces: [[UInt8]]) {
        var storage = RawByteBuffer(capacity: pieces.reduce(0) { $0 + $1.count })
        var offsets = [0]
        for piece in pieces {
            piece.withUnsafeBytes { storage.copy($0) }
            offsets.append(storage.count)
        }
        self.storage = storage
        self.offsets = offsets
        longest = pieces.map(\.count).max() ?? 0
    }

    /// The bytes `build` writes, as one piece.
    static func encode(_ build: (inout RawByteBuffer) -> Void) -> [UInt8] {
        var buffer = RawByteBuffer(capacity: 64)
        defer { buffer.free() }
        build(&buffer)
        return Array(buffer.bytes)
    }

    @inline(__always)
    subscript(index: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: storage.base + offsets[index], count: offsets[index + 1] - offsets[index])
    }

    /// The owner calls this once, when no thread uses the pieces any more.
    func free() { storage.free() }
}

extension RawByteBuffer {
    /// Copies `n` bytes (an id, mostly a few dozen) eight at a time, memcpy beyond 64; the
    /// caller reserved room for them.
    @inline(__always)
    mutating func uncheckedCopyShort(_ from: UnsafeRawPointer, _ n: Int) {
        guard n <= 64 else { return uncheckedCopy(from, n) }
        let to = UnsafeMutableRawPointer(base + count)
        var index = 0
        while index &+ 8 <= n {
            to.storeBytes(of: from.loadUnaligned(fromByteOffset: index, as: UInt64.self), toByteOffset: index, as: UInt64.self)
            index &+= 8
        }
        while index < n {
            to.storeBytes(of: from.load(fromByteOffset: index, as: UInt8.self), toByteOffset: index, as: UInt8.self)
            index &+= 1
        }
        count &+= n
    }

    /// Copies a piece; the caller reserved room for it. Pieces are mostly a few bytes: a loop
    /// costs less than a call to memcpy for those.
    @inline(__always)
    mutating func uncheckedCopy(_ piece: UnsafeRawBufferPointer) {
        guard piece.count > 16 else {
            for byte in piece { uncheckedByte(byte) }
            return
        }
        uncheckedCopy(piece.baseAddress!, piece.count)
    }
}
