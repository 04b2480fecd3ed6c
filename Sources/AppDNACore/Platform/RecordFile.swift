/// A file that a command appends records to (`webhook listen --record`, `api serve --record`),
/// opened so that it can never harm what the command does not own: a symbolic link is refused
/// (never followed to its target), anything but a regular file is refused (a device, a FIFO,
/// a directory, a socket), and a new file is created with mode 0600 by the open call itself;
/// an existing file keeps its mode. The refusals come before the command starts listening.
public enum RecordFile {
    /// Opens `path` for appending; the descriptor is blocking and closed on exec. Refusals and
    /// failures are `cannotCreateOutput` (73), saying why.
    public static func openForAppending(_ path: String) throws(Failure) -> Int32 {
        // Looked at before it is opened: opening is itself an act on a device (a watchdog
        // starts counting, a tape drive rewinds when closed) and on a FIFO (its reader sees a
        // writer come and go), so what is not a regular file is refused unopened. A path that
        // does not exist yet is created below; if the path changes in between, the open's own
        // checks (no link followed, a regular file by fstat) still refuse it.
        if let refused = RecordFileRule.refusal(path: path, existing: try? FileStatus.ofLink(path: path)) { throw refused }
        let fd: Int32
        do {
            // Non-blocking only for the open: a FIFO would otherwise wait here for a reader.
            fd = try SystemFile.open(path, [.write, .create, .append, .noFollow, .nonBlocking], permissions: 0o600)
        } catch {
            switch error {
            case .symbolicLinkLoop: throw RecordFileRule.linkRefusal(path)
            case .noReader: throw RecordFileRule.refusal(path, "is a FIFO (or another special file), not a regular file")
            default:
                throw Failure(.cannotCreateOutput, "\(path): cannot open for recording: \(error)",
                              hint: AtomicFile.directoryHint(for: path, error.code))
            }
        }
        let status: FileStatus
        do {
            status = try FileStatus.of(descriptor: fd)
        } catch {
            SystemFile.close(fd)
            throw Failure(.cannotCreateOutput, "\(path): cannot open for recording: \(error)")
        }
        guard status.kind == .regular else {
            SystemFile.close(fd)
            throw RecordFileRule.refusal(path, "is \(status.kindName), not a regular file")
        }
        SystemFile.setNonBlocking(fd, false)
        return fd
    }
}
