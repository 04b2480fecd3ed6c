import AppDNACore

/// `webhook verify --recorded FILE [--line N]`: one delivery of a `webhook listen --record`
/// file, checked as the request it was (its body, and its X-AppDNA-Signature unless
/// --signature or --header is given). The record is turned back into the request's bytes and
/// read by the request-dump parser, so a recorded delivery and a captured one are verified by
/// the same code.
enum RecordedVerifyInput {
    /// The delivery on `line` (1-based), or the file's only one; the request it was.
    /// `skipped`: the file's unreadable lines when no --line picked the delivery (the caller
    /// warns of them: a torn or junk line is never passed over in silence).
    static func request(path: String, line: Int?, io: CommandIO) throws -> (line: Int, request: RawHTTPRequest, skipped: String?) {
        let file = RecordedDeliveries(fileBytes: try recordBytes(path, io: io))
        let path = name(path)
        let chosen: (line: Int, delivery: RecordedDelivery)
        if let line {
            if let skipped = file.skipped.first(where: { $0.line == line }) {
                throw Failure(.malformedInput, "\(path):\(line): \(skipped.reason)")
            }
            guard let found = file.deliveries.first(where: { $0.line == line }) else {
                throw Failure(.usage, "\(path): line \(line) holds no delivery (\(summary(file)))",
                              hint: lines(file).map { "--line takes one of \($0)" })
            }
            chosen = found
        } else {
            guard file.deliveries.count == 1, let only = file.deliveries.first else {
                if file.deliveries.isEmpty {
                    throw Failure(.malformedInput, "\(path): no delivery recorded (\(summary(file)))",
                                  hint: file.skipped.first.map { "line \($0.line): \($0.reason)" })
                }
                throw Failure(.usage, "\(path) holds \(file.deliveries.count) deliveries: pick one with --line N",
                              hint: lines(file).map { "--line takes one of \($0)" })
            }
            chosen = only
        }
        do {
            let skipped = line != nil || file.skipped.isEmpty ? nil
                : "\(path): \(file.skipped.count) unreadable line\(file.skipped.count == 1 ? "" : "s") skipped (\(file.skipped.prefix(5).map { "line \($0.line): \($0.reason)" }.joined(separator: "; "))\(file.skipped.count > 5 ? "; …" : ""))"
            return (chosen.line, try RawHTTPRequest.parse(wireBytes(chosen.delivery)), skipped)
        } catch {
            throw Failure(.malformedInput, "\(path):\(chosen.line): \(error.message)", hint: error.hint, remedy: error.remedy)
        }
    }

    /// The record file's bytes, through `io.files`. Only a regular file (or standard input
    /// that is one, or a pipe) is read: a device (/dev/zero) would be read until memory runs
    /// out and a FIFO with no writer would block forever, so both are refused (66) before any read.
    static func recordBytes(_ path: String, io: CommandIO) throws -> [UInt8] {
        let name = name(path)
        let status: FileStatus
        do {
            status = path == "-" ? try io.files.status(fileDescriptor: io.stdinDescriptor) : try io.files.status(path: path)
        } catch {
            throw Failure(.inputMissing, "\(name): \(error.description)")
        }
        let acceptable = status.kind == .regular || (path == "-" && status.kind == .fifo)
        guard acceptable else {
            throw Failure(.inputMissing, "\(name) is \(status.kindName), not a webhook listen --record file",
                          hint: "--recorded takes the regular file webhook listen --record wrote")
        }
        return path == "-" ? try io.files.readAll(fileDescriptor: io.stdinDescriptor, name: name) : try io.files.readAll(path: path)
    }

    /// `--recorded -` is standard input, and is called that in messages.
    static func name(_ path: String) -> String { path == "-" ? "standard input" : path }

    /// Whether a file given as BODY is a record file instead: its first line reads as a
    /// recorded delivery (a body of AppDNA's is a webhook event, never that). Only a regular
    /// file is looked at, and only its first `sniffBytes`: a pipe or FIFO (`<(cat body.json)`)
    /// is never read here, so verify hashes every byte of it, and a huge body costs no memory.
    static func isRecordFile(_ path: String, files: any FileAccess) -> Bool {
        guard let prefix = files.regularFilePrefix(path: path, count: sniffBytes) else { return false }
        let start = prefix.firstIndex { ![9, 10, 13, 32].contains($0) } ?? prefix.endIndex
        if let end = prefix[start...].firstIndex(of: 10) {
            return (try? RecordedDelivery.parse(line: Array(prefix[start..<end]))) != nil
        }
        if prefix.count < sniffBytes {  // the whole file, one line without its newline
            return (try? RecordedDelivery.parse(line: Array(prefix[start...]))) != nil
        }
        // A first line longer than the prefix (a large recorded body): the listener's own
        // opening, which no webhook event body has.
        return prefix[start...].starts(with: Array(#"{"received_at":""#.utf8))
    }

    /// How much of a BODY file `isRecordFile` reads.
    static let sniffBytes = 8 * 1024

    /// The request a record stands for: its method, target and headers as received, with the
    /// framing of its exact body (a recorded Content-Length or Transfer-Encoding described the
    /// bytes on the wire, which the record no longer has).
    static func wireBytes(_ delivery: RecordedDelivery) -> [UInt8] {
        var head = "\(delivery.method) \(delivery.target) HTTP/1.1\r\n"
        for header in delivery.headers where !["content-length", "transfer-encoding"].contains(header.name.lowercased()) {
            head += "\(header.name): \(header.value)\r\n"
        }
        head += "Content-Length: \(delivery.body.count)\r\n\r\n"
        return Array(head.utf8) + delivery.body
    }

    static func summary(_ file: RecordedDeliveries) -> String {
        let count = file.deliveries.count
        return "\(count) deliver\(count == 1 ? "y" : "ies")" + (file.skipped.isEmpty ? "" : ", \(file.skipped.count) unreadable line\(file.skipped.count == 1 ? "" : "s")")
    }

    /// The lines that hold deliveries, for the hint ("2, 3, 5"; the first and last of many).
    static func lines(_ file: RecordedDeliveries) -> String? {
        let lines = file.deliveries.map(\.line)
        guard let first = lines.first, let last = lines.last else { return nil }
        return lines.count <= 6 ? lines.map(String.init).joined(separator: ", ") : "\(first)–\(last) (\(lines.count) lines)"
    }
}
