/// Reads Android's legacy `shared_prefs/ai.appdna.sdk.xml`: the text of
/// `<string name="event_queue">` is the events' JSON, XML-escaped and joined with newlines.
/// Streams line by line. A bad escape (`&` not starting `&amp;`, `&lt;`, `&gt;`, `&quot;`,
/// `&apos;` or `&#…;`) is reported with its line and column and kept as written, which is
/// usually what the writer meant, so the event may still be read.
struct SharedPrefsQueueReader {
    let path: String

    /// The longest XML line read: one event (at most the SDK's 5 MB queue) with its XML escapes
    /// (`"` becomes `&quot;`) fits twice over; a longer line is reported without being held.
    static let maxLineLength = 2 * QueueSourceSummary.byteCap

    func read(_ body: (QueueItem) -> Bool) throws(Failure) {
        enum State { case outside, inside, done }
        var state = State.outside
        var event: [UInt8] = []
        var eventLine = 0
        var stopped = false
        var openLine = 0
        // The newline ending a line inside event_queue separates events, unless the file ends
        // there: then the last event is cut off.
        var lineEndPending = false

        func emit(_ item: QueueItem) {
            if !stopped && !body(item) { stopped = true }
        }
        func flush(truncated: Bool = false) {
            defer { event.removeAll(keepingCapacity: true) }
            guard let first = IOSQueueReader.firstNonSpace(event.withUnsafeBytes { $0 }) else { return }
            var last = event.count
            while last > first, [0x20, 0x09, 0x0D, 0x0A].contains(event[last - 1]) { last -= 1 }
            let location = QueueLocation(path: path, line: eventLine)
            if truncated {
                emit(.problem(QueueProblem(.truncated, location, "the file ends inside event_queue (\(last - first) bytes of an unfinished event); skipped")))
                return
            }
            do {
                let document = try JSONDocument(bytes: Array(event[first..<last]))
                if document.root.kind == .object {
                    emit(.event(QueueEvent(document: document, location: location, cancelled: false)))
                } else {
                    emit(.problem(QueueProblem(.malformed, location, "a \(document.root.kind), not an event object")))
                }
            } catch {
                emit(.problem(QueueProblem(.malformed, location, "event JSON: \(error.reason.explanation)")))
            }
        }
        func append(_ byte: UInt8, line: Int) {
            if byte == 10 {
                flush()
                return
            }
            if event.isEmpty { eventLine = line }
            event.append(byte)
        }

        let fd = try ChunkReading.open(path: path)
        defer { SystemFile.close(fd) }
        let openTag = Array("<string".utf8)
        do throws(Failure) {
            try LineReader(fileDescriptor: fd, maxLineLength: Self.maxLineLength).forEachLine { line, number in
                var i = 0
                if state == .outside {
                    // Find <string name="event_queue"> (or '…') on this line.
                    while state == .outside, i < line.count,
                          let hit = ByteSearch.find(openTag, in: UnsafeRawBufferPointer(rebasing: line[i...])) {
                        let start = i + hit
                        guard let close = line[start...].firstIndex(of: UInt8(ascii: ">")) else { return true }
                        let tag = String(decoding: line[start..<close], as: UTF8.self)
                        i = close + 1
                        if tag.contains("name=\"event_queue\"") || tag.contains("name='event_queue'") {
                            if tag.hasSuffix("/") { state = .done; return true }
                            state = .inside
                            openLine = number
                        }
                    }
                    if state != .inside { return true }
                }
                guard state == .inside else { return false }
                if lineEndPending {
                    lineEndPending = false
                    append(10, line: number)
                }
                while i < line.count {
                    let byte = line[i]
                    if byte == UInt8(ascii: "<") {
                        flush()
                        state = .done
                        return false
                    }
                    if byte == UInt8(ascii: "&") {
                        if let (decoded, length) = Self.entity(line, at: i) {
                            for b in decoded { append(b, line: number) }
                            i += length
                            continue
                        }
                        var end = i + 1
                        while end < line.count, end - i < 12, line[end] != UInt8(ascii: ";"), line[end] != 0x20 { end += 1 }
                        let shown = String(decoding: line[i..<min(end + (end < line.count && line[end] == UInt8(ascii: ";") ? 1 : 0), line.count)], as: UTF8.self)
                        emit(.problem(QueueProblem(.badEscape, QueueLocation(path: path, line: number),
                                                   "column \(i + 1): bad XML escape '\(shown)'; kept as written")))
                    }
                    append(byte, line: number)
                    i += 1
                }
                lineEndPending = true
                return !stopped
            } oversized: { number, length in
                // Outside event_queue nothing is lost; inside, the line is one event.
                guard state == .inside else { return true }
                if lineEndPending { append(10, line: number) }
                flush()
                lineEndPending = false
                emit(.problem(.oversizedLine(QueueLocation(path: path, line: number), length: length, cap: Self.maxLineLength)))
                return !stopped
            }
        } catch {
            throw Failure(.ioError, "\(path): \(error.message)")
        }
        if state == .inside && !stopped {
            if lineEndPending && IOSQueueReader(path: path).endsWithNewline() { append(10, line: 0) }
            flush(truncated: true)
            emit(.problem(QueueProblem(.truncated, QueueLocation(path: path, line: openLine),
                                       "the file ends before </string> closes event_queue")))
        }
    }

    /// Decodes the entity at `index` (which holds `&`): its bytes and length, or nil if bad.
    static func entity(_ line: UnsafeRawBufferPointer, at index: Int) -> ([UInt8], Int)? {
        var end = index + 1
        while end < line.count, end - index <= 10, line[end] != UInt8(ascii: ";") { end += 1 }
        guard end < line.count, line[end] == UInt8(ascii: ";") else { return nil }
        let name = Array(line[(index + 1)..<end])
        let length = end - index + 1
        switch String(decoding: name, as: UTF8.self) {
        case "amp": return ([UInt8(ascii: "&")], length)
        case "lt": return ([UInt8(ascii: "<")], length)
        case "gt": return ([UInt8(ascii: ">")], length)
        case "quot": return ([UInt8(ascii: "\"")], length)
        case "apos": return ([UInt8(ascii: "'")], length)
        default: break
        }
        guard name.count >= 2, name[0] == UInt8(ascii: "#") else { return nil }
        let hex = name[1] == UInt8(ascii: "x") || name[1] == UInt8(ascii: "X")
        let digits = String(decoding: name.dropFirst(hex ? 2 : 1), as: UTF8.self)
        guard !digits.isEmpty, let value = UInt32(digits, radix: hex ? 16 : 10), value != 0,
              let scalar = Unicode.Scalar(value) else { return nil }
        return (Array(String(Character(scalar)).utf8), length)
    }
}
