/// A parsed JSON document: the input bytes plus a flat tape of nodes pointing into them.
/// Nothing is decoded until asked for, so parsing allocates only the tape; `JSONNode`s are
/// cheap handles into it.
///
/// Not thread-safe: the line index is built on first use of `location(ofByteOffset:)`.
public final class JSONDocument {
    /// The bytes given to `init`, byte-order mark included (hot paths use `withBytes`).
    public var bytes: [UInt8] { storage.array }
    /// The bytes given to `init`, kept (never changed) so that
    /// `byteBase` stays valid for the document's life.
    public let storage: ByteSource
    /// Where `storage`'s bytes are, taken once: reading them through `storage` for every key
    /// lookup retained and released its owner each time.
    private let byteBase: UnsafePointer<UInt8>?
    public let byteCount: Int

    /// The document's bytes (byte-order mark included).
    @inline(__always)
    public func withBytes<R>(_ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        body(UnsafeBufferPointer(start: byteBase, count: byteCount))
    }
    /// The input started with a UTF-8 byte-order mark, which was skipped.
    public let hadByteOrderMark: Bool
    /// How many integers are written with 16 or more characters (sign included): zero means no
    /// integer in the document can exceed 2^53, and whole-document checks can skip the tape.
    public let longIntegerCount: Int
    /// Repeated object keys, in document order (only ever non-empty under `.record`).
    public private(set) var duplicateKeys: [JSONDuplicateKey] = []
    let tape: JSONTape
    /// Tape indexes of containers kept without their children that were read inside (noted in
    /// debug builds only, by `JSONNode`): a reader that declares what it reads checks this is
    /// empty (`BundleValidationRunner.checkDeclaredReads`).
    var droppedChildrenReads: [Int] = []
    /// Offset where content starts (after any byte-order mark).
    let contentStart: Int
    /// Starts of the lines indexed so far (from the top), and where the search for the next
    /// newline resumes (past the end once the whole file is indexed).
    private var lineStarts: [Int] = []
    private var lineScanResume = -1

    public convenience init(bytes: [UInt8], options: JSONParseOptions = JSONParseOptions()) throws(JSONSyntaxError) {
        try self.init(source: ByteSource(bytes), options: options)
    }

    public convenience init(source bytes: ByteSource, options: JSONParseOptions = JSONParseOptions()) throws(JSONSyntaxError) {
        try self.init(source: bytes, options: options, progress: nil)
    }

    /// Parses `bytes`, publishing how far the tape is final to `progress` for readers that read
    /// it meanwhile (see `JSONParseObserver`): the tape is then reserved whole and never cut,
    /// and a failed parse waits for the readers to leave before freeing it.
    init(source bytes: ByteSource, options: JSONParseOptions, progress: (any JSONParseObserver)?) throws(JSONSyntaxError) {
        let bom = JSONDocument.startsWithByteOrderMark(bytes)
        let start = bom ? 3 : 0
        var longIntegers = 0
        let outcome: Result<(JSONTape, [(object: Int, first: Int, second: Int)]), JSONSyntaxError> = bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress, buffer.count > start else {
                progress?.failed()
                return .failure(JSONSyntaxError(reason: .emptyInput, byteOffset: start, line: 1, column: 1))
            }
            // Tape offsets are 32-bit to keep nodes at 16 bytes.
            guard buffer.count <= JSONDocument.maximumSize else {
                progress?.failed()
                return .failure(JSONSyntaxError(reason: .inputTooLarge(limit: JSONDocument.maximumSize), byteOffset: 0, line: 1, column: 1))
            }
            var parser = JSONParser(base: base, count: buffer.count, contentStart: start, options: options, progress: progress)
            do throws(JSONSyntaxError) {
                try parser.parse()
            } catch {
                progress?.failed()
                parser.deallocate(keepingTape: false)
                return .failure(error)
            }
            longIntegers = parser.longIntegerCount
            let tape = parser.tape.finish()
            progress?.finished(count: tape.count)
            parser.deallocate(keepingTape: true)
            return .success((tape, parser.duplicates))
        }
        let (tape, duplicates): (JSONTape, [(object: Int, first: Int, second: Int)])
        switch outcome {
        case let .success(value): (tape, duplicates) = value
        case let .failure(error): throw error
        }
        self.storage = bytes
        self.byteBase = bytes.withUnsafeBufferPointer { $0.baseAddress }
        self.byteCount = bytes.count
        self.hadByteOrderMark = bom
        self.longIntegerCount = longIntegers
        self.contentStart = start
        self.tape = tape
        if !duplicates.isEmpty {
            let objectPointers = pointers(toNodes: duplicates.map(\.object))
            duplicateKeys = duplicates.map { entry in
                let firstOffset = Int(tape[entry.first].start), secondOffset = Int(tape[entry.second].start)
                return JSONDuplicateKey(objectPointer: objectPointers[entry.object] ?? .root,
                                        key: JSONNode(document: self, index: entry.second).string ?? "",
                                        first: location(ofByteOffset: firstOffset),
                                        duplicate: location(ofByteOffset: secondOffset),
                                        firstByteOffset: firstOffset, duplicateByteOffset: secondOffset)
            }
        }
    }

    /// The largest input accepted: tape nodes hold byte offsets as UInt32.
    /// A document over `bytes` from a tape a reused parser has just built for them (queue lines:
    /// the worker that parsed a line hands it on without parsing it again). The tape is copied.
    init(bytes: [UInt8], copyingTape tape: JSONTapeBuilder) {
        guard let memory = GrowableMapping(byteCount: max(tape.count, 1) * MemoryLayout<JSONTapeNode>.stride) else {
            fatalError("out of memory copying a JSON tape of \(tape.count) nodes")
        }
        memory.base.copyMemory(from: tape.base, byteCount: tape.count * MemoryLayout<JSONTapeNode>.stride)
        self.storage = ByteSource(bytes)
        byteBase = storage.withUnsafeBufferPointer { $0.baseAddress }
        byteCount = bytes.count
        hadByteOrderMark = false
        longIntegerCount = 0
        contentStart = 0
        _ = memory.base.bindMemory(to: JSONTapeNode.self, capacity: max(tape.count, 1))
        self.tape = JSONTape(memory: memory, count: tape.count)
    }

    public static let maximumSize = Int(UInt32.max) - 1

    /// Whether `bytes` begin with UTF-8's byte-order mark (EF BB BF), which parsing skips.
    static func startsWithByteOrderMark(_ bytes: ByteSource) -> Bool { bytes.starts(with: [0xEF, 0xBB, 0xBF]) }

    /// Another document over the same bytes and tape, with its own line index: for a second
    /// thread reading this one. The bytes and the tape never change, so sharing them is safe;
    /// the line index is filled on demand, so it is not shared. Nodes of the view also count
    /// references on the view, not on this object: two cores changing one reference count
    /// for every node they read cost more than the second core saved.
    func view() -> JSONDocument { JSONDocument(viewing: self) }

    private init(viewing other: JSONDocument) {
        storage = other.storage
        byteBase = other.byteBase
        byteCount = other.byteCount
        hadByteOrderMark = other.hadByteOrderMark
        longIntegerCount = other.longIntegerCount
        duplicateKeys = other.duplicateKeys
        tape = JSONTape(viewing: other.tape)
        contentStart = other.contentStart
    }

    /// A document over a tape still being parsed, for a reader a `JSONParseObserver` lets in
    /// (`bundle validate`'s `JSONParseProgress`): only the nodes the progress says are final may be read, and only
    /// until the reader leaves. It has no byte-order mark flag, duplicates or integer count
    /// (those are known when the parse ends).
    init(readingWhileParsed bytes: ByteSource, tape base: UnsafePointer<JSONTapeNode>, capacity: Int) {
        storage = bytes
        byteBase = bytes.withUnsafeBufferPointer { $0.baseAddress }
        byteCount = bytes.count
        hadByteOrderMark = JSONDocument.startsWithByteOrderMark(bytes)
        longIntegerCount = 0
        contentStart = hadByteOrderMark ? 3 : 0
        tape = JSONTape(unownedBase: base, capacity: capacity)
    }

    /// The top-level value.
    public var root: JSONNode { JSONNode(document: self, index: 0) }

    /// How many values (keys included) the document has.
    public var nodeCount: Int { tape.count }

    /// The line and column of a byte offset. Lines are indexed lazily, only as far as the
    /// furthest offset asked for (findings near the top of a 25 MB file scan a few kilobytes,
    /// not the whole file); lookups are a binary search plus a count along one line.
    public func location(ofByteOffset offset: Int) -> SourceLocation {
        let target = min(max(offset, contentStart), byteCount)
        let starts = lineIndex(covering: target)
        var lo = 0, hi = starts.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if starts[mid] <= target { lo = mid } else { hi = mid - 1 }
        }
        return SourceLocation(line: lo + 1, column: scalarsAlongLine(from: starts[lo], to: target) + 1)
    }

    /// Bytes between two column checkpoints of a long line.
    static let columnCheckpointStride = 1_024
    /// For the long line last asked about (its start), the scalars from its start to every
    /// `columnCheckpointStride`-th byte, as far as asked. A compact bundle is one line of
    /// megabytes: counting each finding's column from the line's start made validating one
    /// with 60,000 findings take minutes (quadratic); from the checkpoint before it, a column
    /// costs at most one stride, in any order of asking.
    private var checkpointedLine = -1
    private var columnCheckpoints: [Int] = []

    /// The scalars in `bytes[lineStart..<target]`, `target` on the line that starts at `lineStart`.
    private func scalarsAlongLine(from lineStart: Int, to target: Int) -> Int {
        let stride = JSONDocument.columnCheckpointStride
        guard target - lineStart > stride else {
            return withBytes { SourceLocation.scalarCount($0, from: lineStart, to: target) }
        }
        if checkpointedLine != lineStart {
            checkpointedLine = lineStart
            columnCheckpoints = [0]
        }
        let k = (target - lineStart) / stride
        return withBytes { bytes in
            // Scalars add up over any split of the bytes (each starts at a non-continuation byte).
            while columnCheckpoints.count <= k {
                let from = lineStart + (columnCheckpoints.count - 1) * stride
                columnCheckpoints.append(columnCheckpoints[columnCheckpoints.count - 1] + SourceLocation.scalarCount(bytes, from: from, to: from + stride))
            }
            return columnCheckpoints[k] + SourceLocation.scalarCount(bytes, from: lineStart + k * stride, to: target)
        }
    }

    /// The line starts, indexed at least up to the line holding `target`.
    private func lineIndex(covering target: Int) -> [Int] {
        if lineScanResume < 0 {
            lineStarts = [contentStart]
            lineScanResume = contentStart
        }
        guard lineScanResume <= target, lineScanResume <= byteCount else { return lineStarts }
        withBytes { buffer in
            guard let base = buffer.baseAddress else { lineScanResume = buffer.count + 1; return }
            var p = lineScanResume
            while p <= target {
                guard p < buffer.count, let hit = RawMemory.firstIndex(of: 0x0A, in: base + p, count: buffer.count - p) else {
                    p = buffer.count + 1
                    break
                }
                p = base.distance(to: hit.assumingMemoryBound(to: UInt8.self)) + 1
                lineStarts.append(p)
            }
            lineScanResume = p
        }
        return lineStarts
    }

    /// The pointers to the nodes at tape indexes `targets`, found in one descent from the root
    /// that enters only the subtrees holding a target. (Finding each pointer on its own walked
    /// every member of the objects on the way, making a String of each key: a bundle with
    /// thousands of repeated keys among 90,000 experiments took half a minute.) A key's own
    /// node gets its object's pointer.
    func pointers(toNodes targets: [Int]) -> [Int: JSONPointer] {
        let sorted = Set(targets).sorted()
        var found: [Int: JSONPointer] = [:]
        found.reserveCapacity(sorted.count)
        // `sorted[range]` are the targets inside the subtree of the node at `index`.
        func descend(_ index: Int, _ pointer: JSONPointer, _ range: Range<Int>) {
            var lo = range.lowerBound
            if sorted[lo] == index {
                found[index] = pointer
                lo += 1
            }
            let kind = tape[index].kind
            let isObject = kind == JSONKind.object.rawValue
            if isObject || kind == JSONKind.array.rawValue {
                var child = index + 1, position = 0
                let stop = Int(tape[index].next)
                while child < stop && lo < range.upperBound {
                    let value = isObject ? child + 1 : child
                    let after = Int(tape[value].next)
                    var hi = lo
                    while hi < range.upperBound && sorted[hi] < after { hi += 1 }
                    while lo < hi && sorted[lo] < value {  // the key itself
                        found[sorted[lo]] = pointer
                        lo += 1
                    }
                    if lo < hi {
                        let key = isObject ? JSONNode(document: self, index: child).string ?? "" : ""
                        descend(value, isObject ? pointer.appending(key: key) : pointer.appending(index: position), lo..<hi)
                        lo = hi
                    }
                    child = after
                    position += 1
                }
            }
            for target in sorted[lo..<range.upperBound] { found[target] = pointer }
        }
        if !sorted.isEmpty { descend(0, .root, 0..<sorted.count) }
        return found
    }
}
