import AppDNACore

/// `webhook listen --record FILE`: appends each delivery as one NDJSON line (see
/// `RecordedDelivery`), fsynced before the sender gets its answer, so a delivery that was
/// acknowledged is on disk even if the listener is killed right after. A new file is created
/// with mode 0600: it holds signatures and payloads (never the secret). Only a regular file is
/// recorded to, never through a symbolic link (`RecordFile`): status 73 before listening.
public final class DeliveryRecorder: Sendable {
    public let path: String
    private let fd: Int32
    /// Held while a line is written and synced, so lines never interleave.
    private let writing = Locked(())

    public init(path: String) throws {
        fd = try RecordFile.openForAppending(path)
        self.path = path
    }

    deinit { SystemFile.close(fd) }

    /// Appends and fsyncs one record; nil on success, else what went wrong.
    public func append(_ delivery: RecordedDelivery) -> String? {
        append(line: delivery.jsonLine())
    }

    /// Appends and fsyncs one NDJSON line (ending in a newline), whole, under the lock; nil
    /// on success. `api serve --record` writes its events through this too.
    public func append(line: [UInt8]) -> String? {
        writing.withLock { _ in
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
}
