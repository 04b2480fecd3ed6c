import AppDNACore

/// `webhook listen --record FILE`: appends each delivery as one NDJSON line (see
/// `RecordedDelivery`), fsynced before the sender gets its answer, so a delivery that was
/// acknowledged is on disk even if the listener is killed right after. A new file is created
/// with mode 0600: it holds signatures and payloads (never the secret). Only a regular file is
/// recorded to, never through a symbolic link (`RecordFile`): status 73 before listening. The
/// file is opened through the `FileAccess` the command hands over (`CommandIO.files`).
public final class DeliveryRecorder: Sendable {
    public var path: String { file.path }
    /// Written only under `writing`, so lines never interleave.
    private let file: any AppendingFile
    /// Held while a line is written and synced.
    private let writing = Locked(())

    public init(path: String, files: any FileAccess = SystemFileAccess()) throws(Failure) {
        file = try files.openRecordFile(path: path)
    }

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
            let before = file.size()
            if let error = file.append(line) {
                if let before { try? file.truncate(to: before) }
                return "\(path): cannot write: \(error)"
            }
            if let error = file.sync() {
                return "\(path): cannot sync: \(error)"
            }
            return nil
        }
    }
}
