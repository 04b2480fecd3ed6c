/// Reads an iOS `pending_events.json` in every shape the SDKs wrote: one JSON array (up to
/// 1.0.68, possibly pretty-printed), NDJSON (1.0.69+) with a legacy array on the first line,
/// tombstone lines `{"appdna_removed": [ids]}` cancelling earlier lines, and a cut-off last
/// line. Memory is bounded by the longest line (or array element) plus the tombstoned ids:
/// a first pass collects only the tombstones' ids, the second streams the events.
struct IOSQueueReader {
    let path: String

    static let tombstoneKey = "appdna_removed"

    /// Pass 1: every tombstoned id with the last line naming it.
    func tombstones() throws(Failure) -> [String: Int] {
        var result: [String: Int] = [:]
        let needle = Array(Self.tombstoneKey.utf8)
        try forEachLine { line, number in
            guard line.count >= needle.count,
                  ByteSearch.find(needle, in: line) != nil,
                  let document = try? JSONDocument(bytes: Array(line)),
                  let ids = document.root[Self.tombstoneKey], ids.kind == .array else { return true }
            for id in ids.elements {
                if let text = id.string { result[text] = number }
            }
            return true
        }
        return result
    }

    /// The longest line read: the SDK caps the whole queue at 5 MB, so a longer line was never
    /// written by a device. It is read through without being held and reported as oversized.
    static let maxLineLength = QueueSourceSummary.byteCap

    /// The problem reported for a line over `maxLineLength`.
    func oversizedLine(_ number: Int, length: Int) -> QueueItem {
        .problem(.oversizedLine(QueueLocation(path: path, line: number), length: length, cap: Self.maxLineLength))
    }

    func forEachLine(_ body: (UnsafeRawBufferPointer, Int) -> Bool,
                     oversized: (_ number: Int, _ length: Int) -> Bool = { _, _ in true }) throws(Failure) {
        let fd = try ChunkReading.open(path: path)
        defer { SystemFile.close(fd) }
        do {
            try LineReader(fileDescriptor: fd, maxLineLength: Self.maxLineLength).forEachLine(body, oversized: oversized)
        } catch {
            throw Failure(.ioError, "\(path): \(error.message)")
        }
    }

    /// Whether the file's last byte is a newline (a last line without one may be cut off).
    func endsWithNewline() -> Bool {
        (FileReading.lastByte(path: path) ?? 10) == 10
    }

    /// Pass 2: the items in file order.
    func read(_ body: (QueueItem) -> Bool) throws(Failure) {
        let cancelledAt = try tombstones()
        let finalNewline = endsWithNewline()
        var scanner: ArrayScanner? = nil
        var sawContent = false
        var arrayClosed = false
        var arrayLine = 0
        var announcedLegacy = false
        var stopped = false
        // A line that did not parse is reported when the next line shows it was not the last.
        var pending: PendingLine? = nil

        func emit(_ item: QueueItem) -> Bool {
            if !body(item) { stopped = true }
            return !stopped
        }
        func flushPending() -> Bool {
            guard let failed = pending else { return true }
            pending = nil
            return emit(.problem(QueueProblem(.malformed, QueueLocation(path: path, line: failed.number), failed.message)))
        }
        func element(_ bytes: [UInt8], line: Int) -> Bool {
            if !self.element(bytes, line: line, cancelled: { id in cancelledAt[id].map { $0 > line } ?? false }, emit: emit) {
                stopped = true
            }
            return !stopped
        }

        try forEachLine { line, number in
            guard flushPending() else { return false }
            if !sawContent {
                guard let first = Self.firstNonSpace(line) else { return true }
                sawContent = true
                if line[first] == UInt8(ascii: "[") {
                    scanner = ArrayScanner()
                    arrayLine = number
                }
            }
            if var active = scanner, !arrayClosed {
                let rest = active.feed(line, line: number) { bytes, at in element(bytes, line: at) }
                scanner = active
                if stopped { return false }
                if let rest {
                    arrayClosed = true
                    if let junk = Self.firstNonSpace(UnsafeRawBufferPointer(rebasing: line[rest...])) {
                        return emit(.problem(QueueProblem(.malformed, QueueLocation(path: path, line: number),
                                                          "\(line.count - rest - junk) bytes after the end of the array, column \(rest + junk + 1); skipped")))
                    }
                }
                return true
            }
            guard Self.firstNonSpace(line) != nil else { return true }
            if arrayClosed && !announcedLegacy {
                announcedLegacy = true
                guard emit(.legacyArray(QueueLocation(path: path, line: arrayLine))) else { return false }
            }
            let keepGoing = ndjsonLine(Array(line), number: number, pending: &pending,
                                       cancelled: { id in cancelledAt[id].map { $0 > number } ?? false }, emit: emit)
            if !keepGoing { stopped = true }
            return keepGoing
        } oversized: { number, length in
            guard flushPending() else { return false }
            return emit(oversizedLine(number, length: length))
        }
        if stopped { return }
        if let failed = pending {
            let location = QueueLocation(path: path, line: failed.number)
            if finalNewline {
                _ = body(.problem(QueueProblem(.malformed, location, failed.message)))
            } else {
                _ = body(.problem(QueueProblem(.truncated, location, "the last line is cut off (\(failed.count) bytes, no final newline): an append interrupted on the device; skipped")))
            }
            return
        }
        if let scanner, !arrayClosed, let open = scanner.openElement {
            _ = body(.problem(QueueProblem(.truncated, QueueLocation(path: path, line: open.line),
                                           "the file ends inside the array (\(open.bytes) bytes of an unfinished element); skipped")))
        } else if scanner != nil, !arrayClosed {
            _ = body(.problem(QueueProblem(.truncated, QueueLocation(path: path, line: arrayLine),
                                           "the file ends before the array's closing ']'")))
        }
    }

    /// A line that did not parse, reported once the next line shows it was not the last.
    typealias PendingLine = (number: Int, count: Int, message: String)

    /// One NDJSON line with content (after any legacy array): an event, a tombstone, a legacy
    /// array, or a problem; a line that does not parse is left in `pending`. `cancelled` tells
    /// whether a later tombstone names an event id (the line being this one). Returns false
    /// when `emit` asks to stop.
    func ndjsonLine(_ bytes: [UInt8], number: Int, pending: inout PendingLine?,
                    cancelled: (String) -> Bool, emit: (QueueItem) -> Bool) -> Bool {
        do throws(JSONSyntaxError) {
            let document = try JSONDocument(bytes: bytes)
            if document.root.kind == .array {
                // A legacy array on its own line (the first line, in files the SDK migrated).
                for item in document.root.elements {
                    guard item.kind == .object else {
                        guard emit(.problem(QueueProblem(.malformed, QueueLocation(path: path, line: number),
                                                         "an array element that is a \(item.kind), not an event object"))) else { return false }
                        continue
                    }
                    guard element(Array(bytes[item.byteRange]), line: number, cancelled: cancelled, emit: emit) else { return false }
                }
                return true
            }
            if document.root.kind != .object {
                return emit(.problem(QueueProblem(.malformed, QueueLocation(path: path, line: number),
                                                  "a \(document.root.kind), not an event object")))
            }
            return event(document, line: number, cancelled: cancelled, emit: emit)
        } catch {
            // A crash cut this line off and a later append continued on the same line:
            // the complete event at the end of the line is still there.
            if let (start, complete) = Self.recoverableSuffix(bytes) {
                guard emit(.problem(QueueProblem(.malformed, QueueLocation(path: path, line: number),
                                                 "a cut-off event (\(start) bytes) followed by a complete one on the same line; the cut-off part skipped"))) else { return false }
                return event(complete, line: number, cancelled: cancelled, emit: emit)
            }
            pending = (number, bytes.count, Self.relocate(error, line: number))
            return true
        }
    }

    /// An event object (or a tombstone) parsed from `line`.
    func event(_ document: JSONDocument, line: Int, cancelled: (String) -> Bool, emit: (QueueItem) -> Bool) -> Bool {
        let root = document.root
        if root.kind == .object, let ids = root[Self.tombstoneKey] {
            if ids.kind == .array, ids.elements.allSatisfy({ $0.kind == .string }) {
                return emit(.tombstone(QueueLocation(path: path, line: line), ids: ids.count))
            }
            return emit(.problem(QueueProblem(.malformed, QueueLocation(path: path, line: line),
                                              "a tombstone whose \(Self.tombstoneKey) is not an array of event ids")))
        }
        var isCancelled = false
        if root.kind == .object, let id = root["event_id"]?.string {
            isCancelled = cancelled(id)
        }
        return emit(.event(QueueEvent(document: document, location: QueueLocation(path: path, line: line), cancelled: isCancelled)))
    }

    /// One element of a legacy array.
    func element(_ bytes: [UInt8], line: Int, cancelled: (String) -> Bool, emit: (QueueItem) -> Bool) -> Bool {
        do {
            let document = try JSONDocument(bytes: bytes)
            if document.root.kind != .object {
                return emit(.problem(QueueProblem(.malformed, QueueLocation(path: path, line: line),
                                                  "an array element that is a \(document.root.kind), not an event object")))
            }
            return event(document, line: line, cancelled: cancelled, emit: emit)
        } catch {
            return emit(.problem(QueueProblem(.malformed, QueueLocation(path: path, line: line),
                                              "array element: \(Self.relocate(error, line: line))")))
        }
    }

    /// The offset of a `{` after which the rest of the line is a complete event object, and
    /// that object (parsed once, here).
    static func recoverableSuffix(_ bytes: [UInt8]) -> (start: Int, event: JSONDocument)? {
        var tries = 0
        var index = 1
        while index < bytes.count, tries < 16 {
            if bytes[index] == UInt8(ascii: "{"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "\"") {
                tries += 1
                if let document = try? JSONDocument(bytes: Array(bytes[index...])), document.root.kind == .object,
                   document.root["event_id"] != nil {
                    return (index, document)
                }
            }
            index += 1
        }
        return nil
    }

    /// "line 1, column 7: …" from parsing one line, re-numbered to the file's line.
    static func relocate(_ error: JSONSyntaxError, line: Int) -> String {
        "column \(error.column): \(error.reason.explanation)"
    }

    static func firstNonSpace(_ line: UnsafeRawBufferPointer) -> Int? {
        var i = 0
        // A UTF-8 byte-order mark at the start of the file counts as space.
        if line.count >= 3, line[0] == 0xEF, line[1] == 0xBB, line[2] == 0xBF { i = 3 }
        while i < line.count {
            switch line[i] {
            case 0x20, 0x09, 0x0D, 0x0A: i += 1
            default: return i
            }
        }
        return nil
    }
}

/// Splits a JSON array into its elements' bytes as lines arrive, without parsing them: tracks
/// only nesting depth and string state, so an array of any size streams in the memory of its
/// largest element.
struct ArrayScanner {
    private var opened = false
    private var depth = 0
    private var inString = false
    private var escaped = false
    private var scalar = false
    private var element: [UInt8] = []
    private var elementLine = 0

    /// The unfinished element when input ended inside one.
    var openElement: (line: Int, bytes: Int)? { element.isEmpty ? nil : (elementLine, element.count) }

    /// Feeds one line (without its newline). Returns the offset just after the closing `]` when
    /// the array ends on this line, nil otherwise. `emit` gets each element and its first line.
    mutating func feed(_ line: UnsafeRawBufferPointer, line number: Int, emit: ([UInt8], Int) -> Bool) -> Int? {
        var i = 0
        if !element.isEmpty { element.append(10) }
        while i < line.count {
            let byte = line[i]
            i += 1
            if inString {
                element.append(byte)
                if escaped { escaped = false } else if byte == 0x5C { escaped = true } else if byte == 0x22 { inString = false }
                continue
            }
            if !opened {
                if byte == UInt8(ascii: "[") { opened = true }
                continue
            }
            if depth == 0 {
                let isSpace = byte == 0x20 || byte == 0x09 || byte == 0x0D
                if byte == UInt8(ascii: ",") || byte == UInt8(ascii: "]") || isSpace {
                    if scalar {
                        scalar = false
                        if !emit(finish(), elementLine) { return nil }
                    }
                    if byte == UInt8(ascii: "]") { return i }
                    continue
                }
                if !scalar {
                    elementLine = number
                    if byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") {
                        depth = 1
                    } else if byte == 0x22 {
                        inString = true
                        scalar = true
                    } else {
                        scalar = true
                    }
                    element.append(byte)
                    continue
                }
                element.append(byte)
                if byte == 0x22 { inString = true }
                continue
            }
            element.append(byte)
            switch byte {
            case 0x22: inString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                if depth == 0 {
                    if !emit(finish(), elementLine) { return nil }
                }
            default: break
            }
        }
        return nil
    }

    private mutating func finish() -> [UInt8] {
        let done = element
        element.removeAll(keepingCapacity: true)
        return done
    }
}
