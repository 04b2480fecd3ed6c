import AppDNACore

/// `--record PATH` of `webhook listen` and `api serve`, checked by their plans (issue 54.1): a
/// path that is there and is not a regular file (a symbolic link, a device, a FIFO, a
/// directory) is refused (73) before anything else happens, in the words the open would use
/// (`RecordFileRule.refusal`), looked at through the command's files; the open checks again.
enum RecordPath {
    static func check(_ path: String?, _ files: any FileAccess) throws {
        guard let path else { return }
        if let refused = RecordFileRule.refusal(path: path, existing: try? files.status(path: path, followingLinks: false)) {
            throw refused
        }
    }
}
