import AppDNACore

/// What `bucket -` makes of each id read: rows appended to the output (one experiment, or one
/// per experiment of a bundle), or counts for `--summary`. `BatchRunner` keeps one value per
/// thread: each holds its own hashing scratch and counts.
protocol BatchRows {
    mutating func take(_ user: UnsafeRawBufferPointer, into rows: inout RawByteBuffer)
    /// `take` for an id known to be plain (`PlainLines`): written as it is in every format.
    mutating func takePlain(_ user: UnsafeRawBufferPointer, into rows: inout RawByteBuffer)
}

extension BatchRows {
    @inline(__always)
    mutating func takePlain(_ user: UnsafeRawBufferPointer, into rows: inout RawByteBuffer) {
        take(user, into: &rows)
    }
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
        // 8 bytes beyond the last piece: `copy` reads a short piece as one word.
        var storage = RawByteBuffer(capacity: pieces.reduce(0) { $0 + $1.count } + 8)
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

    /// Appends piece `index` to `rows`; the caller reserved its length and 8 bytes more. A piece
    /// of up to 8 bytes (a variant's field) is copied as one word, the bytes after it written
    /// over by what follows.
    @inline(__always)
    func copy(_ index: Int, to rows: inout RawByteBuffer) {
        let start = offsets[index], count = offsets[index &+ 1] &- start
        guard count <= 8 else { return rows.uncheckedCopy(storage.base + start, count) }
        let word = UnsafeRawPointer(storage.base + start).loadUnaligned(as: UInt64.self)
        UnsafeMutableRawPointer(rows.base + rows.count).storeBytes(of: word, as: UInt64.self)
        rows.count &+= count
    }

    /// The owner calls this once, when no thread uses the pieces any more.
    func free() { storage.free() }
}

extension RawByteBuffer {
    /// Copies `n` bytes (an id, mostly a few dozen) eight at a time, memcpy beyond 64; the
    /// caller reserved room for them. The last word (or two half-words below 8 bytes) overlaps
    /// the one before it rather than going on byte by byte; nothing is read beyond `n`.
    @inline(__always)
    mutating func uncheckedCopyShort(_ from: UnsafeRawPointer, _ n: Int) {
        guard n <= 64 else { return uncheckedCopy(from, n) }
        let to = UnsafeMutableRawPointer(base + count)
        count &+= n
        if n >= 8 {
            var index = 0
            while index &+ 8 < n {
                to.storeBytes(of: from.loadUnaligned(fromByteOffset: index, as: UInt64.self), toByteOffset: index, as: UInt64.self)
                index &+= 8
            }
            to.storeBytes(of: from.loadUnaligned(fromByteOffset: n &- 8, as: UInt64.self), toByteOffset: n &- 8, as: UInt64.self)
        } else if n >= 4 {
            let head = from.loadUnaligned(as: UInt32.self), tail = from.loadUnaligned(fromByteOffset: n &- 4, as: UInt32.self)
            to.storeBytes(of: head, as: UInt32.self)
            to.storeBytes(of: tail, toByteOffset: n &- 4, as: UInt32.self)
        } else {
            var index = 0
            while index < n {
                to.storeBytes(of: from.load(fromByteOffset: index, as: UInt8.self), toByteOffset: index, as: UInt8.self)
                index &+= 1
            }
        }
    }

    /// Copies a piece; the caller reserved room for it. Pieces are mostly a few dozen bytes at
    /// most (NDJSON's keys with the experiment's name): word copies cost less than a call to
    /// memcpy for those.
    @inline(__always)
    mutating func uncheckedCopy(_ piece: UnsafeRawBufferPointer) {
        guard let start = piece.baseAddress else { return }
        uncheckedCopyShort(start, piece.count)
    }
}
