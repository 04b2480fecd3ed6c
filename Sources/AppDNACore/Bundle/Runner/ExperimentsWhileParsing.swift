/// `bundle validate` on a big bundle checks experiments on a second thread while the main
/// thread is still parsing: the parse publishes how far its tape is final
/// (`JSONParseProgress`), this thread recognises the experiments map among the containers the
/// parse has open and takes runs of its finished experiments (`JSONMemberRuns`). Checking
/// after the parse took a third of the time on a bundle of 20,000 experiments; overlapped, it
/// mostly disappears behind the parse.
///
/// Which object is the experiments map is a guess made before the rest of the file is known (a
/// later top-level `experiments` wins over `content`; a later member `experiments` that is an
/// object is unwrapped). Once parsed, the runner `confirm`s the guess against the map
/// `BundleExperiments.located` finds; a wrong guess is abandoned and its results are dropped,
/// so the findings never depend on it.
final class ExperimentsWhileParsing {
    let progress = JSONParseProgress()
    let runs: JSONMemberRuns
    private var thread: SpawnedThread?

    /// Starts the thread, which calls `check` with a document over the tape being parsed, the
    /// runs and the map's pointer once it has recognised the map; nil when no thread can start.
    init?(bytes: ByteSource, membersPerRun: Int,
          check: @escaping @Sendable (JSONDocument, JSONMemberRuns, JSONPointer) -> Void) {
        runs = JSONMemberRuns(whileParsed: progress, membersPerRun: membersPerRun)
        let progress = progress, runs = runs
        progress.enter()
        thread = ThreadSpawner.trySpawn {
            Self.work(bytes: bytes, progress: progress, runs: runs, check: check)
            progress.leave()
        }
        guard thread != nil else {
            progress.leave()
            return nil
        }
    }

    /// Stops handing out runs and waits for the thread; call before the parsed document goes.
    func stop() {
        runs.abandon()
        thread?.join()
        thread = nil
    }

    private static func work(bytes: ByteSource, progress: JSONParseProgress, runs: JSONMemberRuns,
                             check: (JSONDocument, JSONMemberRuns, JSONPointer) -> Void) {
        var seen = -1
        var document: JSONDocument?
        while true {
            let now = progress.snapshot(after: seen)
            seen = now.generation
            guard now.state == .parsing, !runs.wasAbandoned else { return }
            guard let tape = now.tape else { continue }
            let view = document ?? JSONDocument(readingWhileParsed: bytes, tape: tape.base, capacity: tape.capacity)
            document = view
            if let (map, pointer) = experimentsMap(among: now.open, finalCount: now.count, in: view) {
                runs.choose(object: map, tape: tape.base)
                check(view, runs, pointer)
                return
            }
        }
    }

    /// The experiments map, if the parse is inside it: where `BundleExperiments.located` looks
    /// (the top-level `experiments`, else `content.experiments`; unwrapped once when its member
    /// `experiments` is an object), judged from the containers open at a publication.
    /// Nodes below `finalCount` other than the open ones are final.
    static func experimentsMap(among open: JSONParseProgress.OpenContainers, finalCount: Int, in document: JSONDocument) -> (Int, JSONPointer)? {
        // Keys are compared as bytes (unescaped), as `JSONNode`'s lookups compare them.
        func isKey(_ index: Int, _ name: String) -> Bool {
            JSONNode(document: document, index: index).string?.utf8.elementsEqual(name.utf8) == true
        }
        // The open container at `depth` is the member `name` of an object.
        func named(_ depth: Int, _ name: String) -> Bool {
            depth < open.count && open.isObject(depth - 1) && isKey(open.node(depth) - 1, name)
        }
        guard open.count >= 2, open.isObject(0) else { return nil }
        let sectionDepth: Int, path: [String]
        if named(1, "experiments") {
            (sectionDepth, path) = (1, ["experiments"])
        } else if named(1, "content"), named(2, "experiments") {
            (sectionDepth, path) = (2, ["content", "experiments"])
        } else {
            return nil
        }
        guard open.isObject(sectionDepth) else { return nil }
        if named(sectionDepth + 1, "experiments"), open.isObject(sectionDepth + 1) {
            return (open.node(sectionDepth + 1), JSONPointer(tokens: path + ["experiments"]))
        }
        if sectionDepth + 1 == open.count {
            // Between the section's members: a finished member `experiments` that is an
            // object is the map (its members are all final).
            let section = open.node(sectionDepth)
            var key = section + 1
            var found: Int?
            while key + 1 < finalCount {
                let value = document.tape[key + 1]
                if value.kind == JSONKind.object.rawValue && isKey(key, "experiments") { found = key + 1 }
                key = Int(value.next)
            }
            if let found { return (found, JSONPointer(tokens: path + ["experiments"])) }
        }
        return (open.node(sectionDepth), JSONPointer(tokens: path))
    }
}
