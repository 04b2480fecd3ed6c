/// How `bundle validate` runs its rules (`BundleValidator`): the parse, what the parse may
/// leave off the tape, and the threads. The rules read a parsed bundle and declare what they
/// read (`BundleRuleReads`); this runner derives the parse's pruning from that declaration
/// (`parseOptions`), checks a big experiments map on two threads, and starts checking it while
/// the file is still being parsed (`ExperimentsWhileParsing`). Whatever it does, the findings
/// are those of one pass over the whole document, in the same order.
struct BundleValidationRunner {
    /// An experiments object of at least this many bytes is checked on two threads (when there
    /// is a second processor): below it, starting a thread costs more than it saves.
    let parallelExperimentsBytes: Int
    static let defaultParallelExperimentsBytes = 1 << 20
    /// The thread checking experiments while the document was parsed, and where its runs' results are.
    var whileParsing: (checker: ExperimentsWhileParsing, results: RunResults)?

    init(parallelExperimentsBytes: Int, whileParsing: (checker: ExperimentsWhileParsing, results: RunResults)? = nil) {
        self.parallelExperimentsBytes = parallelExperimentsBytes
        self.whileParsing = whileParsing
    }

    /// The parse options for rules that read `reads`: containers deeper than anything read keep
    /// no children (`keepChildrenAboveDepth`), nor do the contract's members of an experiment
    /// or a variant that hold objects or arrays no rule reads (`unreadKeys`: payloads, most of
    /// a bundle's values), from the depth of a variant's members in the shallowest shape (an
    /// experiment whose id is `payload` is above it, and is read). A rule reading inside what is left off trips `JSONDocument.droppedChildrenReads`.
    static func parseOptions(reading reads: BundleRuleReads = .rules) -> JSONParseOptions {
        var options = JSONParseOptions(duplicateKeys: .record, keepChildrenAboveDepth: reads.deepestReadDepth)
        options.unreadKeys = reads.unreadContractMembers
        options.unreadKeysFromDepth = BundleRuleReads.variantMemberDepth
        return options
    }

    /// Parses `bytes` and runs the rules; the experiments are checked on a second thread while
    /// the file is parsed (`ExperimentsWhileParsing`) from `parallelExperimentsBytes` of file,
    /// or after it, from that many bytes of experiments (a test forces each path with it).
    static func validate(source bytes: ByteSource, shift: BundleValidator.LocationShift, parallelExperimentsBytes: Int,
                         reads: BundleRuleReads = .rules) -> [BundleFinding] {
        let results = RunResults()
        let whileParsing = bytes.count >= parallelExperimentsBytes && ProcessControl.processorCount > 1
            ? ExperimentsWhileParsing(bytes: bytes, membersPerRun: experimentsPerRun) { view, runs, pointer in
                var other = BundleValidator(document: view, shift: shift, runner: BundleValidationRunner(parallelExperimentsBytes: parallelExperimentsBytes))
                checkRuns(runs, in: pointer, into: results, rules: &other)
                checkDeclaredReads(of: view)
            }
            : nil
        // The thread is stopped before the document's tape can go: on a failed parse the tape
        // is freed only once the thread has left it (`JSONParseProgress.failed`); on a parsed
        // one, the document is kept alive until the thread is stopped, below.
        defer { whileParsing?.stop() }
        let document: JSONDocument
        do {
            document = try JSONDocument(source: bytes, options: parseOptions(reading: reads), progress: whileParsing?.progress)
        } catch {
            return [BundleValidator.syntaxFinding(error, in: bytes, shift: shift)]
        }
        return withExtendedLifetime(document) {
            let runner = BundleValidationRunner(parallelExperimentsBytes: parallelExperimentsBytes, whileParsing: whileParsing.map { ($0, results) })
            var validator = BundleValidator(document: document, shift: shift, runner: runner)
            let findings = validator.sortedFindings()
            whileParsing?.stop()
            checkDeclaredReads(of: document)
            return findings
        }
    }

    /// In a debug build (every test), a rule that read inside a container the parse left
    /// without children (it read what `BundleRuleReads` does not declare, and saw nothing)
    /// stops the program: its findings would be silently wrong.
    static func checkDeclaredReads(of document: JSONDocument) {
        #if DEBUG
        if let node = document.droppedChildrenReads.first {
            preconditionFailure("a bundle rule read inside the container at byte \(document.tape[node].start), which the parse kept without its children: declare what the rule reads in BundleRuleReads")
        }
        #endif
    }

    /// Checks every member of the experiments object with `rules`; returns the ids with
    /// non-ASCII bytes (the only ones that can have look-alikes). A big object is checked on
    /// two threads at once, in runs of experiments each thread takes in turn
    /// (`JSONMemberRuns`); the second thread has rules of its own over a view of the document
    /// (`JSONDocument.view()`). The runs' findings are put back in document order, so they are
    /// the same findings in the same order as one pass makes.
    func checkExperiments(_ experiments: JSONNode, pointer: JSONPointer, rules: inout BundleValidator) -> [(text: String, node: JSONNode, index: Int)] {
        let results: RunResults
        if let (checker, found) = whileParsing, checker.runs.confirm(object: experiments.index) {
            // The thread that started while parsing took this very object: share what is left.
            Self.checkRuns(checker.runs, in: pointer, into: found, rules: &rules)
            checker.stop()
            results = found
        } else {
            whileParsing?.checker.stop()
            guard experiments.byteRange.count >= parallelExperimentsBytes && ProcessControl.processorCount > 1 else {
                return rules.checkMembers(from: experiments.index + 1, to: experiments.subtreeEnd, in: pointer)
            }
            let runs = JSONMemberRuns(object: experiments, membersPerRun: Self.experimentsPerRun)
            results = RunResults()
            let view = rules.document.view()
            var other = BundleValidator(document: view, shift: rules.shift, runner: BundleValidationRunner(parallelExperimentsBytes: parallelExperimentsBytes))
            // A pointer of the worker's own too (new storage): a shared one is a shared reference count.
            let otherPointer = JSONPointer(tokens: pointer.tokens.map { String(decoding: Array($0.utf8), as: UTF8.self) })
            let worker = ThreadSpawner.trySpawn {
                Self.checkRuns(runs, in: otherPointer, into: results, rules: &other)
                Self.checkDeclaredReads(of: view)
            }
            Self.checkRuns(runs, in: pointer, into: results, rules: &rules)
            worker?.join()
        }
        var nonASCIIIDs: [(text: String, node: JSONNode, index: Int)] = []
        for run in results.byNumber.keys.sorted() {
            let result = results.byNumber[run]!
            rules.findings += result.findings
            // As nodes of this document (a worker's are of its view).
            nonASCIIIDs += result.nonASCIIIDs.map { ($0.text, JSONNode(document: rules.document, index: $0.nodeIndex), 0) }
        }
        return nonASCIIIDs
    }

    /// Experiments per run handed to a thread: enough that taking a run costs nothing next to
    /// checking it, few enough that the threads finish close together.
    static let experimentsPerRun = 256

    /// What each run of experiments found, by run number (filled by both threads).
    /// Ids are kept by tape index (a `JSONNode` of a thread's own view is not Sendable), made
    /// nodes of the caller's document again when read.
    final class RunResults: Sendable {
        private let results = Locked<[Int: (findings: [BundleFinding], nonASCIIIDs: [(text: String, nodeIndex: Int)])]>([:])

        func store(_ run: Int, findings: [BundleFinding], nonASCIIIDs: [(text: String, node: JSONNode, index: Int)]) {
            let ids = nonASCIIIDs.map { (text: $0.text, nodeIndex: $0.node.index) }
            results.withLock { $0[run] = (findings, ids) }
        }

        /// Read once every thread is done.
        var byNumber: [Int: (findings: [BundleFinding], nonASCIIIDs: [(text: String, nodeIndex: Int)])] {
            results.withLock { $0 }
        }
    }

    /// Takes runs of experiments until none is left, checking each with `rules` and storing
    /// what it found.
    static func checkRuns(_ runs: JSONMemberRuns, in pointer: JSONPointer, into results: RunResults, rules: inout BundleValidator) {
        while let run = runs.next() {
            let before = rules.findings.count
            let ids = rules.checkMembers(from: run.start, to: run.stop, in: pointer)
            results.store(run.number, findings: Array(rules.findings[before...]), nonASCIIIDs: ids)
            rules.findings.removeSubrange(before...)
        }
    }
}
