/// A file that a command appends records to (`webhook listen --record`, `api serve --record`),
/// opened so that it can never harm what the command does not own: a symbolic link is refused
/// (never followed to its target), anything but a regular file is refused (a device, a FIFO,
/// a directory, a socket), and a new file is created with mode 0600 by the open call itself;
/// an existing file keeps its mode. The refusals come before the command starts listening.
public enum RecordFile {
    /// Opens `path` for appending; the descriptor is blocking and closed on exec. Refusals and
    /// failures are `cannotCreateOutput` (73), saying why.
    public static func openForAppending(_ path: String) throws(Failure) -> Int32 {
        // O_NONBLOCK only for the open: a FIFO would otherwise wait here for a reader.
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0o600)
        guard fd >= 0 else {
            let code = errno
            switch code {
            case ELOOP:
                throw refusal(path, "is a symbolic link; record to the file it points to, by its own path")
            case ENXIO:
                throw refusal(path, "is a FIFO (or another special file), not a regular file")
            default:
                throw Failure(.cannotCreateOutput, "\(path): cannot open for recording: \(SystemError.describe(code))")
            }
        }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let code = errno
            close(fd)
            throw Failure(.cannotCreateOutput, "\(path): cannot open for recording: \(SystemError.describe(code))")
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw refusal(path, "is \(kind(info.st_mode)), not a regular file")
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        return fd
    }

    static func refusal(_ path: String, _ what: String) -> Failure {
        Failure(.cannotCreateOutput, "\(path) \(what): --record writes only to a regular file",
                hint: "give the path of a new or existing regular file")
    }

    /// "a character device", "a FIFO", "a directory" …
    static func kind(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFCHR: return "a character device"
        case S_IFBLK: return "a block device"
        case S_IFIFO: return "a FIFO"
        case S_IFDIR: return "a directory"
        case S_IFSOCK: return "a socket"
        case S_IFLNK: return "a symbolic link"
        default: return "a special file"
        }
    }
}
