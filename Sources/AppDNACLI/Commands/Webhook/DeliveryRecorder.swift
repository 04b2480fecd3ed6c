import AppDNACore

/// `webhook listen --record FILE`: appends each delivery as one NDJSON line (see
/// `RecordedDelivery`), fsynced before the sender gets its answer, so a delivery that was
/// acknowledged is on disk even if the listener is killed right after. The file is created
/// with mode 0600: it holds signatures and payloads (never the secret).
final class DeliveryRecorder: @unchecked Sendable {
    let path: String
    private let fd: Int32
    private let lock = PthreadLock()

    init(path: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw Failure(.cannotCreateOutput, "\(path): cannot open for recording: \(SystemError.describe(errno))")
        }
        // An existing file keeps its contents but gets the same protection.
        _ = fchmod(fd, 0o600)
        self.path = path
        self.fd = fd
    }

    deinit { close(fd) }

    /// Appends and fsyncs one record; nil on success, else what went wrong.
    func append(_ delivery: RecordedDelivery) -> String? {
        append(line: delivery.jsonLine())
    }

    /// Appends and fsyncs one NDJSON line (ending in a newline), whole, under the lock; nil
    /// on success. `api serve --record` writes its events through this too.
    func append(line: [UInt8]) -> String? {
        lock.locked {
            if let code = line.withUnsafeBytes({ FileWriting.writeAll(fd, $0) }) {
                return "\(path): cannot write: \(SystemError.describe(code))"
            }
            if DiskSync.file(fd) != 0 {
                return "\(path): cannot sync: \(SystemError.describe(errno))"
            }
            return nil
        }
    }
}
