/// A file records are appended to, one whole line at a time (`FileAccess.openForAppending`):
/// `webhook listen --record` and `api serve --record` write through it.
public protocol AppendingFile: Sendable {
    /// Appends `line` (ending in a newline) whole and makes it durable before returning; nil
    /// on success, else what went wrong (the file then holds whole lines only). Callers
    /// serialise their calls.
    func append(line: [UInt8]) -> String?
}

/// The system's appending file: a descriptor `RecordFile` opened, written with `FileWriting`
/// and synced with `DiskSync` (fsync) before the line counts as written, so a record that was
/// acknowledged is on disk even if the process is killed right after.
final class SystemAppendingFile: AppendingFile {
    let path: String
    private let fd: Int32

    init(path: String) throws(Failure) {
        fd = try RecordFile.openForAppending(path)
        self.path = path
    }

    deinit { SystemFile.close(fd) }

    func append(line: [UInt8]) -> String? {
        // A write cut short (EFBIG past `ulimit -f`, ENOSPC) leaves part of a line: cut back
        // to the size before it, so the file holds whole lines only (issue 49).
        let before = try? FileStatus.of(descriptor: fd).size
        if let code = line.withUnsafeBytes({ FileWriting.writeAll(fd, $0) }) {
            if let before { try? SystemFile.truncate(fd, to: before) }
            return "\(path): cannot write: \(SystemError.describe(code))"
        }
        if DiskSync.file(fd) != 0 {
            return "\(path): cannot sync: \(SystemError.last)"
        }
        return nil
    }
}
