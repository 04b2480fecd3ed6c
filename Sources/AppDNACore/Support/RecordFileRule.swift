/// What may be recorded to (`RecordFile`, and the plans of the commands that record, through
/// their files: `RecordPath`): a regular file, new or existing; never a symbolic link, a
/// device, a FIFO, a directory or a socket. The rule and its words, with no system call.
public enum RecordFileRule {
    /// Why `path` cannot be recorded to, given what is there (`lstat`; nil when nothing is):
    /// a symbolic link or anything but a regular file. A plan asks this before the command
    /// starts (issue 54.1), through its files; the open asks it again.
    public static func refusal(path: String, existing: FileStatus?) -> Failure? {
        guard let existing, existing.kind != .regular else { return nil }
        return existing.kind == .symbolicLink ? linkRefusal(path) : refusal(path, "is \(existing.kindName), not a regular file")
    }

    public static func linkRefusal(_ path: String) -> Failure {
        refusal(path, "is a symbolic link; record to the file it points to, by its own path")
    }

    public static func refusal(_ path: String, _ what: String) -> Failure {
        // The fact, not the flag: the CLI says which of its flags records (`FlagWording`).
        Failure(.cannotCreateOutput, "\(path) \(what): records are written only to a regular file",
                hint: "give the path of a new or existing regular file",
                settingFact: .recordFileNotRegular(path: path, what: what))
    }
}
