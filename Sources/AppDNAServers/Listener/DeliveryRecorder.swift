import AppDNACore

/// `webhook listen --record FILE`: appends each delivery as one NDJSON line (see
/// `RecordedDelivery`), fsynced before the sender gets its answer, so a delivery that was
/// acknowledged is on disk even if the listener is killed right after. A new file is created
/// with mode 0600: it holds signatures and payloads (never the secret). Only a regular file is
/// recorded to, never through a symbolic link (`RecordFile`): status 73 before listening.
public final class DeliveryRecorder: Sendable {
    public let path: String
    /// The file, opened through the command's `FileAccess` (the system's, or a test's own).
    private let file: any AppendingFile
    /// Held while a line is written and synced, so lines never interleave.
    private let writing = Locked(())

    public init(path: String, files: any FileAccess = SystemFileAccess()) throws {
        file = try files.openForAppending(path: path)
        self.path = path
    }

    /// Appends and fsyncs one record; nil on success, else what went wrong.
    public func append(_ delivery: RecordedDelivery) -> String? {
        append(line: delivery.jsonLine())
    }

    /// Appends and fsyncs one NDJSON line (ending in a newline), whole, under the lock; nil
    /// on success. `api serve --record` writes its events through this too.
    public func append(line: [UInt8]) -> String? {
        writing.withLock { _ in file.append(line: line) }
    }
}
