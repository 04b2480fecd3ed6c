import AppDNACore

/// The PATH operands of `queue inspect` and `queue replay`: each a queue file, or a directory
/// searched for queues by content.
enum QueueOperands {
    /// The queues behind every PATH operand (files, or directories searched by content). A
    /// PATH that cannot be read is reported at once and gives the status of its error; the
    /// others are still returned, so the caller decides whether partial input is enough.
    static func sources(_ paths: [String], io: CommandIO) -> (sources: [QueueSource], status: ExitStatus) {
        var status = ExitStatus.success
        var sources: [QueueSource] = []
        for path in paths {
            do throws(Failure) {
                let found = try QueueSource.sources(at: path)
                if found.isEmpty {
                    throw Failure(.inputMissing, "\(path): no event queue found in this directory",
                                  hint: "looked for pending_events.json, appdna_events.db and ai.appdna.sdk.xml by content")
                }
                sources += found
            } catch {
                Runner.report(error, io: io)
                if status == .success { status = ExitStatus(error.kind) }
            }
        }
        return (sources, status)
    }
}
