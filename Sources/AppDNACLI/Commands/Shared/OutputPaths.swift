import AppDNACore

/// What a plan checks of the files a command will write, before anything happens (issue 54.1),
/// through the command's files: an output that is there must be a regular file (a FIFO would
/// wait for a reader for ever, a device would swallow the bytes or never end), its directory
/// must be there and writable, and no file may be given in two roles (`--bundle X --write-bundled X` would
/// overwrite the source with what is served; `--key-file K -o K` the key with the bundle).
enum OutputPaths {
    /// `path` (the value of `flag`) can be written as a regular file: 73 when something other
    /// than a regular file is there, or, for a new file, when its directory is missing or not
    /// writable (`checkWritable`: the one wording and `mkdir -p` hint of every output).
    static func checkRegular(_ path: String?, flag: String, _ files: any FileAccess) throws(Failure) {
        guard let path, path != "-" else { return }
        guard let existing = try? files.status(path: path, followingLinks: true) else {
            try files.checkWritable(path: path)
            return
        }
        guard existing.kind == .regular else {
            throw Failure(.cannotCreateOutput, "\(path) is \(existing.kindName), not a regular file: \(flag) writes only to a regular file",
                          hint: "give the path of a new or existing regular file")
        }
    }

    /// Refuses (64) two roles given one file: `roles` are a flag (or operand name) and its path.
    static func refuseSameFile(_ roles: [(role: String, path: String?)]) throws(Failure) {
        let given = roles.compactMap { role in role.path.map { (role.role, Self.normalised($0)) } }.filter { $0.1 != "-" }
        for (index, first) in given.enumerated() {
            if let second = given[(index + 1)...].first(where: { ByteIdentity.same($0.1, first.1) }) {
                throw Failure(.usage, "\(first.0) and \(second.0) name the same file (\(first.1)): one would overwrite the other",
                              hint: "give each its own file")
            }
        }
    }

    /// `path` without a leading `./` and repeated slashes: the spellings of one file that a
    /// comparison by bytes would otherwise tell apart.
    static func normalised(_ path: String) -> String {
        var text = ""
        for character in path where !(character == "/" && text.hasSuffix("/")) { text.append(character) }
        while text.hasPrefix("./") && text.count > 2 { text.removeFirst(2) }
        return text
    }
}
