/// `bundle validate`: every rule of the contract over one bundle of either shape.
///
/// Input that is not JSON is a finding (E001/E002), not an error: for a validator, "this is not
/// a bundle" is the answer. Duplicate keys are parsed under `.record` so the rest of the file is
/// still checked; where a key repeats, the last value is the one checked (as most readers do).
public struct BundleValidator {
    public static let weightSumTolerance = VariantWeights.sumTolerance
    public static let statuses: Set<String> = ["running", "paused", "completed"]  // not an id: ASCII words, which no other bytes are canonically equal to
    /// 2^53: the largest integer every double-based reader holds exactly.
    public static let maxSafeInteger = "9007199254740992"
    /// The rules read nothing nested deeper than a trait rule's members in the API shape
    /// (content.experiments.experiments.ID.targeting.user_traits[i].value[j]: depth 9), so
    /// containers at depth 9 or more need no children on the tape; payloads are most of a
    /// bundle's values.
    static let childrenReadAboveDepth = 9
    /// Members of an experiment or a variant the rules never look into (an experiment is at
    /// depth 3 in the SDK shape, 4 in the API shape): in a bundle of many small experiments
    /// these are a good part of the values.
    static let unreadKeys = ["payload"]
    static let unreadKeysFromDepth = 4

    private var findings: [BundleFinding] = []
    /// Buffers `checkVariants` empties and refills for every experiment instead of allocating.
    private var scratchSeenIDs: [(node: Int, variant: Int)] = []
    private var scratchWeights: [Double] = []
    private let document: JSONDocument
    private let shift: LocationShift
    /// An experiments object of at least this many bytes is checked on two threads (when there
    /// is a second processor): below it, starting a thread costs more than it saves.
    private let parallelExperimentsBytes: Int
    static let defaultParallelExperimentsBytes = 1 << 20
    /// The thread checking experiments while the document was parsed, and where its runs' results are.
    private var whileParsing: (checker: ExperimentsWhileParsing, results: RunResults)?

    /// Leading lines and columns dropped before parsing (see `BundleInput`): every location,
    /// including those inside messages, is moved back by them.
    public struct LocationShift: Sendable {
        public var lines: Int
        public var columns: Int
        public init(lines: Int = 0, columns: Int = 0) {
            self.lines = lines
            self.columns = columns
        }
        public func apply(_ l: SourceLocation) -> SourceLocation {
            SourceLocation(line: l.line + lines, column: l.line == 1 ? l.column + columns : l.column)
        }
    }

    /// Validates `bytes`; findings are sorted by position in the file, then by code.
    public static func validate(bytes: [UInt8], shift: LocationShift = LocationShift()) -> [BundleFinding] {
        validate(source: ByteSource(bytes), shift: shift)
    }

    /// Validates the bytes of `bytes`, as `validate(bytes:shift:)`.
    public static func validate(source bytes: ByteSource, shift: LocationShift = LocationShift()) -> [BundleFinding] {
        validate(source: bytes, shift: shift, parallelExperimentsBytes: defaultParallelExperimentsBytes)
    }

    /// `validate(source:shift:)` with the size from which experiments are checked on a second
    /// thread: while the file is parsed (`ExperimentsWhileParsing`) from that many bytes of
    /// file, or after it, from that many bytes of experiments (a test forces each path with it).
    static func validate(source bytes: ByteSource, shift: LocationShift, parallelExperimentsBytes: Int) -> [BundleFinding] {
        let results = RunResults()
        let whileParsing = bytes.count >= parallelExperimentsBytes && ProcessControl.processorCount > 1
            ? ExperimentsWhileParsing(bytes: bytes, membersPerRun: experimentsPerRun) { view, runs, pointer in
                var other = BundleValidator(document: view, shift: shift, parallelExperimentsBytes: parallelExperimentsBytes)
                other.checkRuns(runs, in: pointer, into: results)
            }
            : nil
        // The thread is stopped before the document's tape can go: on a failed parse the tape
        // is freed only once the thread has left it (`JSONParseProgress.failed`); on a parsed
        // one, the document is kept alive until the thread is stopped, below.
        defer { whileParsing?.stop() }
        let document: JSONDocument
        do {
            var options = JSONParseOptions(duplicateKeys: .record, keepChildrenAboveDepth: childrenReadAboveDepth)
            options.unreadKeys = unreadKeys
            options.unreadKeysFromDepth = unreadKeysFromDepth
            document = try JSONDocument(source: bytes, options: options, progress: whileParsing?.progress)
        } catch {
            let rule: BundleRule
            var reason = error.reason
            switch reason {
            case let .unexpectedEndOfInput(expected, open?):
                let moved: JSONSyntaxError.OpenConstruct
                switch open {
                case let .string(at): moved = .string(shift.apply(at))
                case let .array(at): moved = .array(shift.apply(at))
                case let .object(at): moved = .object(shift.apply(at))
                }
                reason = .unexpectedEndOfInput(expected: expected, open: moved)
            case let .duplicateKey(key, firstAt):
                reason = .duplicateKey(key: key, firstAt: shift.apply(firstAt))
            default:
                break
            }
            var message = reason.explanation
            if case .invalidUTF8 = reason {
                rule = .invalidUTF8
                message = "not UTF-8: " + message
            } else {
                rule = .syntax
                message = "not JSON: " + message
            }
            var location = error.location
            if case .emptyInput = reason {
                // Point past the white space, where a value was expected.
                let bom = JSONDocument.startsWithByteOrderMark(bytes) ? 3 : 0
                location = bytes.withUnsafeBufferPointer { SourceLocation.scan($0, to: $0.count, contentStart: bom) }
            }
            let at = shift.apply(location)
            return [BundleFinding(rule: rule, message: message, pointer: .root,
                                  line: at.line, column: at.column, byteOffset: error.byteOffset)]
        }
        return withExtendedLifetime(document) {
            var validator = BundleValidator(document: document, shift: shift, parallelExperimentsBytes: parallelExperimentsBytes)
            validator.whileParsing = whileParsing.map { ($0, results) }
            let findings = validator.sortedFindings()
            whileParsing?.stop()
            return findings
        }
    }

    public static func validate(document: JSONDocument, shift: LocationShift = LocationShift()) -> [BundleFinding] {
        validate(document: document, shift: shift, parallelExperimentsBytes: defaultParallelExperimentsBytes)
    }

    /// `validate(document:shift:)` with the size from which experiments are checked on two
    /// threads (a test forces either path with it).
    static func validate(document: JSONDocument, shift: LocationShift, parallelExperimentsBytes: Int) -> [BundleFinding] {
        var validator = BundleValidator(document: document, shift: shift, parallelExperimentsBytes: parallelExperimentsBytes)
        return validator.sortedFindings()
    }

    private mutating func sortedFindings() -> [BundleFinding] {
        run()
        return findings.sorted { ($0.byteOffset, $0.code) < ($1.byteOffset, $1.code) }
    }

    private init(document: JSONDocument, shift: LocationShift, parallelExperimentsBytes: Int) {
        self.document = document
        self.shift = shift
        self.parallelExperimentsBytes = parallelExperimentsBytes
    }

    // MARK: - Reporting

    private mutating func add(_ rule: BundleRule, _ message: String, at node: JSONNode, _ pointer: JSONPointer) {
        let offset = node.byteRange.lowerBound
        let location = shift.apply(document.location(ofByteOffset: offset))
        findings.append(BundleFinding(rule: rule, message: message, pointer: pointer,
                                      line: location.line, column: location.column, byteOffset: offset))
    }

    private static func show(_ node: JSONNode) -> String {
        switch node.kind {
        case .string:
            var out: [UInt8] = []
            JSONWriter.appendQuoted(node.string ?? "", to: &out)
            return ShortenedText.shortened(String(decoding: out, as: UTF8.self), limit: 40)
        case .number: return ShortenedText.shortened(node.numberText ?? "?", limit: 40)
        case .bool: return node.bool == true ? "true" : "false"
        case .null: return "null"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    /// An id (experiment, flag) in quotes, shortened when long.
    private static func quoted(_ id: String) -> String { ShortenedText.quoted(id, limit: 40) }

    private static func kindName(_ node: JSONNode) -> String {
        switch node.kind {
        case .string: return "a string"
        case .number: return "a number"
        case .bool: return "a boolean"
        case .null: return "null"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    // MARK: - Rules

    private mutating func run() {
        for duplicate in document.duplicateKeys {
            let pointer = duplicate.objectPointer.appending(key: duplicate.key)
            let location = shift.apply(duplicate.duplicate)
            let first = shift.apply(duplicate.first)
            var out: [UInt8] = []
            JSONWriter.appendQuoted(duplicate.key, to: &out)
            findings.append(BundleFinding(
                rule: .duplicateKey,
                message: "duplicate key \(String(decoding: out, as: UTF8.self)) (first at line \(first.line), column \(first.column)); readers disagree which value wins",
                pointer: pointer, line: location.line, column: location.column, byteOffset: duplicate.duplicateByteOffset))
        }
        checkIntegers()
        let root = document.root
        guard root.kind == .object else {
            add(.rootNotObject, "the top-level value is \(Self.kindName(root)), not an object", at: root, .root)
            return
        }
        let bundle = BundleModel(root: root)
        checkBundleVersion(bundle)
        if bundle.shape == .api {
            add(.contentWrapper, "the bundle has a \"content\" wrapper (API response shape): the SDK does not look under it and loads only bundle_version; write the file with 'appdna bundle fetch'",
                at: bundle.sections.node, bundle.sections.pointer)
        }
        checkSectionTypes(bundle)
        if let experiments = bundle.experiments, experiments.node.kind == .object {
            let nonASCIIIDs = checkExperiments(experiments.node, pointer: experiments.pointer)
            checkLookalikes(nonASCIIIDs, what: "experiment id") { id, _ in experiments.pointer.appending(key: id) }
        }
        if let flags = bundle.flags, flags.node.kind == .object {
            let keys = flags.node.members.filter { Self.hasNonASCII($0.key) }.map { (text: $0.key, node: $0.keyNode, index: 0) }
            checkLookalikes(keys, what: "flag key") { key, _ in flags.pointer.appending(key: key) }
        }
        checkFlags(bundle)
        checkOnboarding(bundle)
    }


    /// Checks every member of the experiments object; returns the ids with non-ASCII bytes
    /// (the only ones that can have look-alikes). A big object is checked on two threads at
    /// once, in runs of experiments each thread takes in turn (`JSONMemberRuns`); the second
    /// thread has a validator of its own over a view of the document (`JSONDocument.view()`).
    /// The runs' findings are put back in document order, so they are the same findings in
    /// the same order as one pass makes.
    private mutating func checkExperiments(_ experiments: JSONNode, pointer: JSONPointer) -> [(text: String, node: JSONNode, index: Int)] {
        let results: RunResults
        if let (checker, found) = whileParsing, checker.runs.confirm(object: experiments.index) {
            // The thread that started while parsing took this very object: share what is left.
            checkRuns(checker.runs, in: pointer, into: found)
            checker.stop()
            results = found
        } else {
            whileParsing?.checker.stop()
            guard experiments.byteRange.count >= parallelExperimentsBytes && ProcessControl.processorCount > 1 else {
                return checkMembers(from: experiments.index + 1, to: experiments.subtreeEnd, in: pointer)
            }
            let runs = JSONMemberRuns(object: experiments, membersPerRun: Self.experimentsPerRun)
            results = RunResults()
            var other = BundleValidator(document: document.view(), shift: shift, parallelExperimentsBytes: parallelExperimentsBytes)
            // A pointer of the worker's own too (new storage): a shared one is a shared reference count.
            let otherPointer = JSONPointer(tokens: pointer.tokens.map { String(decoding: Array($0.utf8), as: UTF8.self) })
            let worker = ThreadSpawner.trySpawn { other.checkRuns(runs, in: otherPointer, into: results) }
            checkRuns(runs, in: pointer, into: results)
            worker?.join()
        }
        var nonASCIIIDs: [(text: String, node: JSONNode, index: Int)] = []
        for run in results.byNumber.keys.sorted() {
            let result = results.byNumber[run]!
            findings += result.findings
            // As nodes of this document (a worker's are of its view).
            nonASCIIIDs += result.nonASCIIIDs.map { ($0.text, JSONNode(document: document, index: $0.nodeIndex), 0) }
        }
        return nonASCIIIDs
    }

    /// Experiments per run handed to a thread: enough that taking a run costs nothing next to
    /// checking it, few enough that the threads finish close together.
    static let experimentsPerRun = 256

    /// What each run of experiments found, by run number (filled by both threads). Ids are
    /// kept by tape index (a `JSONNode` of a thread's own view is not Sendable), made nodes of
    /// the caller's document again when read.
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

    /// Takes runs of experiments until none is left, checking each and storing what it found.
    private mutating func checkRuns(_ runs: JSONMemberRuns, in pointer: JSONPointer, into results: RunResults) {
        while let run = runs.next() {
            let before = findings.count
            let ids = checkMembers(from: run.start, to: run.stop, in: pointer)
            results.store(run.number, findings: Array(findings[before...]), nonASCIIIDs: ids)
            findings.removeSubrange(before...)
        }
    }

    /// Checks the experiments whose keys are at tape indexes `start..<stop` of an experiments
    /// object, straight over the members, not `experimentList`: that builds a pointer per
    /// experiment, and only the few with findings need one. Returns the ids with non-ASCII
    /// bytes.
    private mutating func checkMembers(from start: Int, to stop: Int, in pointer: JSONPointer) -> [(text: String, node: JSONNode, index: Int)] {
        var nonASCIIIDs: [(text: String, node: JSONNode, index: Int)] = []
        for member in JSONNode.MemberRun(document: document, keysFrom: start, to: stop) {
            checkExperiment(id: member.key, node: member.value, in: pointer)
            if Self.hasNonASCII(member.key) { nonASCIIIDs.append((member.key, member.keyNode, 0)) }
        }
        return nonASCIIIDs
    }

    /// W009: ids that read the same but are different bytes (NFC and NFD spellings). Devices
    /// hash and compare the bytes, so these are two experiments, variants or flags; people (and
    /// Swift's ==) see one. Only ids with non-ASCII bytes can differ this way: callers pass
    /// only those (most bundles have none), and `pointer` (of an id and the index given with
    /// it) is built only for a finding.
    private mutating func checkLookalikes(_ ids: [(text: String, node: JSONNode, index: Int)], what: String, of owner: @autoclosure () -> String = "",
                                          pointer: (String, Int) -> JSONPointer) {
        guard ids.count > 1 else { return }
        var firstByForm: [ByteKey: String] = [:]
        for (text, node, index) in ids {
            let form = ByteKey(UnicodeForms.nfc(text))
            guard let first = firstByForm[form] else {
                firstByForm[form] = text
                continue
            }
            if let difference = ByteIdentity.normalisationDifference(text, from: first) {
                add(.lookalikeID, "\(what) \(Self.quoted(text))\(owner()) \(difference): devices treat them as two", at: node, pointer(text, index))
            }
        }
    }

    /// Whether a string is written without escapes, upper-case letters or non-ASCII bytes (so
    /// it is its own lower case, without making a String: this runs per platform name).
    private static func isPlainLowercase(_ node: JSONNode) -> Bool {
        rawUnescaped(node) { raw in !raw.contains { $0 >= 0x80 || ($0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z")) } }
    }

    /// Whether a string is written as digit runs of 1 to 18 digits joined by single dots, with
    /// no escape: a version `Targeting.versionParts` reads, found without making a String (this
    /// runs per experiment). Anything else takes the full check.
    private static func isPlainVersion(_ node: JSONNode) -> Bool {
        rawUnescaped(node) { raw in
            var digits = 0
            for byte in raw {
                if byte == UInt8(ascii: ".") {
                    guard digits > 0 else { return false }
                    digits = 0
                } else if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") && digits < 18 {
                    digits += 1
                } else {
                    return false
                }
            }
            return digits > 0
        }
    }

    /// `test` of a string node's bytes between its quotes; false for anything else, or a
    /// string written with escapes.
    private static func rawUnescaped(_ node: JSONNode, _ test: (UnsafeBufferPointer<UInt8>) -> Bool) -> Bool {
        let n = node.node
        guard n.kind == JSONKind.string.rawValue, n.flags & JSONTapeFlag.escaped == 0 else { return false }
        return node.document.withBytes { bytes in test(UnsafeBufferPointer(rebasing: bytes[(Int(n.start) + 1)..<(Int(n.end) - 1)])) }
    }

    /// Stores `value` at `index` of `list`, which holds at least `index` values (the rest are
    /// left from an earlier experiment: writing over them keeps the list's storage).
    @inline(__always)
    private static func put<T>(_ value: T, at index: Int, in list: inout [T]) {
        if index < list.count { list[index] = value } else { list.append(value) }
    }

    /// Whether a string node is `""` (written with or without escapes).
    private static func isEmptyString(_ node: JSONNode) -> Bool {
        let n = node.node
        return n.end - n.start == 2
    }

    /// The unescaped bytes of the string at tape index `index`.
    private func stringBytes(_ index: Int) -> [UInt8] {
        let n = document.tape[index]
        return document.withBytes { bytes in
            var out: [UInt8] = []
            JSONStringDecoding.appendUnescaped(bytes, from: Int(n.start) + 1, to: Int(n.end) - 1, into: &out)
            return out
        }
    }

    /// The variant whose id is the same bytes as `idNode`'s, among the first `count` in
    /// `scratchSeenIDs`, or in `dictionary` once that is in use.
    private func firstEarlierVariant(withIDOf idNode: JSONNode, among count: Int, dictionary: [[UInt8]: Int]) -> Int? {
        if !dictionary.isEmpty { return dictionary[stringBytes(idNode.index)] }
        let n = idNode.node
        for entry in scratchSeenIDs[..<count] {
            let other = document.tape[entry.node]
            if (n.flags | other.flags) & JSONTapeFlag.escaped != 0 {
                if stringBytes(idNode.index) == stringBytes(entry.node) { return entry.variant }
                continue
            }
            guard n.end - n.start == other.end - other.start, n.tag == other.tag else { continue }
            let same = document.withBytes { bytes in
                let a = bytes.baseAddress! + Int(n.start), b = bytes.baseAddress! + Int(other.start)
                for k in 0..<Int(n.end - n.start) where a[k] != b[k] { return false }
                return true
            }
            if same { return entry.variant }
        }
        return nil
    }

    /// Whether a string is written without escapes and only ASCII bytes.
    private static func isPlainASCII(_ node: JSONNode) -> Bool {
        rawUnescaped(node) { raw in !raw.contains { $0 >= 0x80 } }
    }

    /// Whether an id has a byte beyond ASCII (only such ids can have look-alikes).
    @inline(__always)
    private static func hasNonASCII(_ text: String) -> Bool {
        text.utf8.contains { $0 >= 0x80 }
    }

    /// E017, E018, W010, W011, W012: platform and targeting rules that devices fail closed, so no user is
    /// assigned (the same judgement as `Eligibility`, which `bucket` and the audit use).
    private mutating func checkEligibilityRules(id: String, members: ExperimentMembers, pointer: @autoclosure () -> JSONPointer) {
        if let platforms = members.platforms, platforms.kind != .null {
            if platforms.kind != .array || platforms.elements.contains(where: { $0.kind != .string }) {
                add(.platformsType, "platforms of \(Self.quoted(id)) must be a list of platform names, not \(Self.show(platforms)): devices run it nowhere",
                    at: platforms, pointer().appending(key: "platforms"))
            } else {
                for (index, name) in platforms.elements.enumerated() where !Self.isPlainLowercase(name) {
                    if let text = name.string, text != text.lowercased() {  // not an id: a platform name's case
                        add(.platformCase, "platform \(Self.show(name)) of \(Self.quoted(id)) is not lower case: write \"\(text.lowercased())\" (devices compare without case; other tools may not)",
                            at: name, pointer().appending(key: "platforms").appending(index: index))
                    }
                }
            }
        }
        guard let targeting = members.targeting, targeting.kind != .null else { return }
        var targetingPointer: JSONPointer { pointer().appending(key: "targeting") }
        guard targeting.kind == .object else {
            add(.targetingRule, "targeting of \(Self.quoted(id)) must be an object, not \(Self.kindName(targeting)): devices assign no one", at: targeting, targetingPointer)
            return
        }
        let rules = TargetingMembers(targeting)
        if let countries = rules.countries, countries.kind != .null {
            if countries.kind != .array {
                add(.targetingRule, "targeting.countries of \(Self.quoted(id)) must be a list, not \(Self.show(countries)): devices assign no one", at: countries, targetingPointer.appending(key: "countries"))
            } else {
                for (index, code) in countries.elements.enumerated() where !Self.isCountryCode(code) {
                    // Not a string: the list is not the SDK's list of codes, so the whole rule
                    // fails closed (`Targeting.countryCodes`), as platforms: ["ios", 5] does.
                    guard code.kind == .string else {
                        add(.targetingRule, "targeting.countries of \(Self.quoted(id)) must be a list of country codes, not one holding \(Self.show(code)): devices assign no one",
                            at: code, targetingPointer.appending(key: "countries").appending(index: index))
                        continue
                    }
                    add(.countryCode, "country \(Self.show(code)) of \(Self.quoted(id)) is not two upper-case letters (ISO 3166-1 alpha-2, as devices report it): codes are compared exactly, so it matches no device",
                        at: code, targetingPointer.appending(key: "countries").appending(index: index))
                }
            }
        }
        if let version = rules.minAppVersion, version.kind != .null, !Self.isPlainVersion(version),
           version.string.flatMap(Targeting.versionParts) == nil {
            add(.targetingRule, "targeting.min_app_version of \(Self.quoted(id)) must be a version such as \"2.1.0\", not \(Self.show(version)): devices assign no one",
                at: version, targetingPointer.appending(key: "min_app_version"))
        }
        if let newUsers = rules.newUsersOnly, newUsers.kind != .null, newUsers.kind != .bool {
            add(.targetingRule, "targeting.new_users_only of \(Self.quoted(id)) must be true or false, not \(Self.show(newUsers)): devices assign no one",
                at: newUsers, targetingPointer.appending(key: "new_users_only"))
        }
        if let traits = rules.userTraits, traits.kind != .null {
            guard traits.kind == .array else {
                add(.targetingRule, "targeting.user_traits of \(Self.quoted(id)) must be a list, not \(Self.kindName(traits)): devices assign no one", at: traits, targetingPointer.appending(key: "user_traits"))
                return
            }
            for (index, rule) in traits.elements.enumerated() {
                if let why = TraitRule.unsatisfiable(rule.value) {
                    add(.targetingRule, "trait rule \(index) of \(Self.quoted(id)): \(why): no user can pass it, devices assign no one",
                        at: rule, targetingPointer.appending(key: "user_traits").appending(index: index))
                } else if let why = TraitRule.textComparison(rule.value) {
                    add(.textComparison, "trait rule \(index) of \(Self.quoted(id)): \(why)",
                        at: rule, targetingPointer.appending(key: "user_traits").appending(index: index))
                }
            }
        }
    }

    /// Two ASCII upper-case letters: an ISO 3166-1 alpha-2 code as devices report it.
    static func isCountryCode(_ text: String?) -> Bool {
        guard let text else { return false }
        return isCountryCode(text.utf8)
    }

    /// The same for a country node, read off the document's bytes: this runs per country of
    /// every experiment (a String per code cost validate 3 %). Only a code written with
    /// escapes, or one that is not a code, makes a String.
    private static func isCountryCode(_ node: JSONNode) -> Bool {
        rawUnescaped(node) { isCountryCode($0) } || isCountryCode(node.string)
    }

    private static func isCountryCode<Bytes: Collection>(_ bytes: Bytes) -> Bool where Bytes.Element == UInt8 {
        bytes.count == 2 && bytes.allSatisfy { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }
    }

    private mutating func checkBundleVersion(_ bundle: BundleModel) {
        guard let version = bundle.bundleVersion else {
            add(.bundleVersionMissing, "bundle_version is missing: the SDK cannot tell this bundle from another", at: bundle.root, .root)
            return
        }
        let node = version.node
        if node.kind != .number || !node.isInteger {
            add(.bundleVersion, "bundle_version must be an integer >= 0, not \(Self.show(node))", at: node, version.pointer)
        } else if node.numberText?.hasPrefix("-") == true && node.numberText != "-0" {
            add(.bundleVersion, "bundle_version must be an integer >= 0, not \(Self.show(node))", at: node, version.pointer)
        } else if node.int64 == nil {
            // The SDKs keep currentBundleVersion in an Int (64 bits): a larger value does not load.
            add(.bundleVersion, "bundle_version \(Self.show(node)) is beyond the 64-bit range the SDK reads (at most \(Int64.max))", at: node, version.pointer)
        }
    }

    private mutating func checkSectionTypes(_ bundle: BundleModel) {
        let parent = bundle.sections
        for name in BundleModel.sdkSections + BundleModel.apiSectionRenames.map(\.0) {
            guard let raw = parent.node[name] else { continue }
            let pointer = parent.pointer.appending(key: name)
            if raw.kind != .object {
                let hint = name == "experiments" && raw.kind == .array ? " keyed by experiment id" : ""
                add(.sectionType, "\(name) must be an object\(hint), not \(Self.kindName(raw))", at: raw, pointer)
                continue
            }
            if BundleModel.wrappedMapSections.contains(name), let inner = raw[name], inner.kind != .object {
                add(.sectionType, "\(name).\(name) must be an object, not \(Self.kindName(inner))", at: inner, pointer.appending(key: name))
            }
        }
        for (apiName, sdkName) in BundleModel.apiSectionRenames {
            guard let node = parent.node[apiName] else { continue }
            add(.apiSectionName, "section \"\(apiName)\" is the API's name: the SDK reads \"\(sdkName)\"",
                at: node, parent.pointer.appending(key: apiName))
        }
    }

    private mutating func checkExperiment(id: String, node: JSONNode, in experimentsPointer: JSONPointer) {
        // Built only for a finding (this runs per experiment).
        var pointer: JSONPointer { experimentsPointer.appending(key: id) }
        guard node.kind == .object else {
            add(.experimentType, "experiment \(Self.quoted(id)) must be an object, not \(Self.kindName(node))", at: node, pointer)
            return
        }
        let members = ExperimentMembers(node)
        checkEligibilityRules(id: id, members: members, pointer: pointer)
        // Status.
        if let status = members.status {
            if Self.isKnownStatus(status) {
                // fine (the common case, without making a String)
            } else if let text = status.string, Self.statuses.contains(text) {
                // fine
            } else {
                add(.status, "status of \(Self.quoted(id)) is \(Self.show(status)), not running, paused or completed: devices assign no one",
                    at: status, pointer.appending(key: "status"))
            }
        } else {
            add(.status, "experiment \(Self.quoted(id)) has no status: devices assign no one (status must be \"running\")", at: node, pointer)
        }
        // Salt.
        let salt = members.salt
        if salt == nil || salt?.kind == .null || (!Self.hasPrintableASCII(salt!) && (salt?.string).map(BucketingScheme.isBlank) == true) {
            let what = salt == nil ? "no salt" : (salt?.kind == .null ? "a null salt" : "a blank salt")
            add(.blankSalt, "experiment \(Self.quoted(id)) has \(what): iOS <= 1.0.69 hashes it literally, newer iOS and Android use the experiment id, so they assign differently",
                at: salt ?? node, salt == nil ? pointer : pointer.appending(key: "salt"))
        }
        // Traffic allocation.
        if let allocation = members.trafficAllocation {
            let value = allocation.double
            if allocation.kind != .number || value == nil || !(0...1).contains(value!) {
                add(.trafficAllocation, "traffic_allocation of \(Self.quoted(id)) must be a number from 0 to 1, not \(Self.show(allocation))",
                    at: allocation, pointer.appending(key: "traffic_allocation"))
            }
        }
        checkVariants(id: id, node: node, variants: members.variants, pointer: pointer)
    }

    /// Whether `node` is written exactly as one of the statuses, byte for byte (an all-ASCII
    /// word: no other spelling is canonically equivalent, so this agrees with the Set lookup).
    private static func isKnownStatus(_ node: JSONNode) -> Bool {
        rawUnescaped(node) { raw in
            switch raw.count {
            case 7: return JSONNode.isKey(raw, "running")
            case 6: return JSONNode.isKey(raw, "paused")
            case 9: return JSONNode.isKey(raw, "completed")
            default: return false
            }
        }
    }

    /// Whether a string is written without escapes and holds a printable ASCII character: then
    /// it is not blank (no such character is white space), known without making a String.
    private static func hasPrintableASCII(_ node: JSONNode) -> Bool {
        rawUnescaped(node) { raw in raw.contains { $0 > 0x20 && $0 < 0x7F } }
    }

    private mutating func checkVariants(id: String, node: JSONNode, variants: JSONNode?, pointer experimentPointer: @autoclosure () -> JSONPointer) {
        guard let variants else {
            add(.variantsMissing, "experiment \(Self.quoted(id)) has no variants", at: node, experimentPointer())
            return
        }
        // Built only for a finding (this runs per experiment).
        var variantsPointer: JSONPointer { experimentPointer().appending(key: "variants") }
        guard variants.kind == .array else {
            add(.variantsMissing, "variants of \(Self.quoted(id)) must be an array, not \(Self.kindName(variants))", at: variants, variantsPointer)
            return
        }
        guard variants.index + 1 < variants.subtreeEnd else {
            add(.variantsMissing, "experiment \(Self.quoted(id)) has an empty variants list", at: variants, variantsPointer)
            return
        }
        // Ids are compared by their bytes, as JSON does (Swift's String == would merge NFC and
        // NFD), straight from the document: no String per variant (this runs per variant). A
        // few earlier ids are kept in a list the validator reuses, many in a dictionary.
        var seenCount = 0
        var seen: [[UInt8]: Int] = [:]
        var weightsUsable = true
        var weightCount = 0
        // W009 is checked on the few with non-ASCII bytes.
        var nonASCIIIDs: [(text: String, node: JSONNode, index: Int)] = []
        defer {
            checkLookalikes(nonASCIIIDs, what: "variant id", of: " of \(Self.quoted(id))") { _, index in
                variantsPointer.appending(index: index).appending(key: "id")
            }
        }
        for (index, variant) in variants.elements.enumerated() {
            // Built only for a finding: most variants have none, and this loop runs per variant.
            var vp: JSONPointer { variantsPointer.appending(index: index) }
            guard variant.kind == .object else {
                add(.variantType, "variant \(index) of \(Self.quoted(id)) must be an object, not \(Self.kindName(variant))", at: variant, vp)
                weightsUsable = false
                continue
            }
            let fields = VariantMembers(variant)
            // The variant's name in messages: built only for a finding.
            var name: String {
                if let idNode = fields.id, let text = idNode.string, !text.isEmpty { return text }
                return "#\(index)"
            }
            if let idNode = fields.id, idNode.kind == .string, !Self.isEmptyString(idNode) {
                if !Self.isPlainASCII(idNode), let text = idNode.string, Self.hasNonASCII(text) { nonASCIIIDs.append((text, idNode, index)) }
                if let first = firstEarlierVariant(withIDOf: idNode, among: seenCount, dictionary: seen) {
                    add(.duplicateVariantID, "variant id \(Self.show(idNode)) of \(Self.quoted(id)) is also variant \(first)'s: the second can never be told apart",
                        at: idNode, vp.appending(key: "id"))
                } else if seen.isEmpty && seenCount < 16 {
                    Self.put((node: idNode.index, variant: index), at: seenCount, in: &scratchSeenIDs)
                    seenCount += 1
                } else {
                    if seen.isEmpty {
                        for entry in scratchSeenIDs[..<seenCount] { seen[stringBytes(entry.node)] = entry.variant }
                    }
                    seen[stringBytes(idNode.index)] = index
                }
            } else if let idNode = fields.id {
                add(.variantID, "variant \(index) of \(Self.quoted(id)): id must be a non-empty string, not \(Self.show(idNode))", at: idNode, vp.appending(key: "id"))
            } else {
                add(.variantID, "variant \(index) of \(Self.quoted(id)) has no id", at: variant, vp)
            }
            guard let weightNode = fields.weight else {
                add(.weightType, "variant \(name) of \(Self.quoted(id)) has no weight", at: variant, vp)
                weightsUsable = false
                continue
            }
            guard weightNode.kind == .number, let weight = weightNode.double, weight.isFinite else {
                let what = weightNode.kind == .number ? "\(Self.show(weightNode)), too large for a double" : Self.show(weightNode)
                add(.weightType, "weight of variant \(name) of \(Self.quoted(id)) must be a number, not \(what)", at: weightNode, vp.appending(key: "weight"))
                weightsUsable = false
                continue
            }
            guard (0...1).contains(weight) else {
                add(.weightRange, "weight of variant \(name) of \(Self.quoted(id)) is \(Self.show(weightNode)); weights are from 0 to 1",
                    at: weightNode, vp.appending(key: "weight"))
                weightsUsable = false
                continue
            }
            Self.put(weight, at: weightCount, in: &scratchWeights)
            weightCount += 1
        }
        guard weightsUsable else { return }
        let weights = scratchWeights[..<weightCount]
        let sum = weights.reduce(0.0, +)
        guard abs(sum - 1) <= Self.weightSumTolerance else {
            add(.weightSum, "weights of \(Self.quoted(id)) sum to \(sum), not 1", at: variants, variantsPointer)
            return
        }
        // The intended split is each weight × 10000 rounded; it is only a promise the SDK could
        // keep when those whole numbers add up to 10000 (thirds cannot, whatever the rounding).
        // When every weight × 10000 truncates to its rounding and those add up to 10000, each
        // range is exactly its intended size: the usual case needs no allocation computed.
        var intendedSum = 0
        var everyShareExact = true
        for weight in weights {
            let intended = Int((weight * 10_000).rounded())
            intendedSum += intended
            if VariantAllocation.truncatedShare(weight) != UInt64(max(intended, 0)) { everyShareExact = false }
        }
        guard intendedSum == 10_000 && !everyShareExact else { return }
        // Every variant has an id or a number here (weights are usable): name them for the message.
        let named = variants.elements.enumerated().map { index, variant -> (variant: String, weight: Double) in
            let fields = VariantMembers(variant)
            let text = fields.id?.string ?? ""
            return (text.isEmpty ? "#\(index)" : text, fields.weight?.double ?? 0)
        }
        let allocation = VariantAllocation(weights: named)
        let intended = named.map { Int(($0.weight * 10_000).rounded()) }
        let differs = zip(allocation.ranges, intended).contains { Int($0.bucketCount) != $1 }
        if differs {
            let detail = allocation.ranges.map { range in
                "\(range.variant) \(Self.formatWeight(range.weight)) → \(range.bucketCount) buckets (intended \(Int((range.weight * 10_000).rounded())))"
            }.joined(separator: ", ")
            add(.weightTruncation, "devices truncate weight × 10000, so \(Self.quoted(id)) splits \(detail)", at: variants, variantsPointer)
        }
    }

    static func formatWeight(_ weight: Double) -> String {
        "\(weight)"
    }

    private mutating func checkFlags(_ bundle: BundleModel) {
        for name in ["remote_config", "feature_flags"] {
            guard let section = bundle.sections.node[name], section.kind == .object else { continue }
            let pointer = bundle.sections.pointer.appending(key: name)
            for member in section.members where member.value.kind == .object {
                let value = member.value
                guard value["value"] != nil, value["type"] != nil, value.count <= 3 else { continue }
                add(.flagWrapper, "flag \(Self.quoted(member.key)) is a {value, type} wrapper: the app receives the dictionary, not the value; store the raw value",
                    at: value, pointer.appending(key: member.key))
            }
        }
    }

    private mutating func checkOnboarding(_ bundle: BundleModel) {
        guard let onboarding = bundle.onboarding, onboarding.node.kind == .object else { return }
        let flows = onboarding.node["flows"]
        if let flows, flows.kind != .object {
            add(.sectionType, "onboarding flows must be an object keyed by flow id, not \(Self.kindName(flows))",
                at: flows, onboarding.pointer.appending(key: "flows"))
        }
        guard let active = onboarding.node["active_flow_id"], active.kind != .null else { return }
        let activePointer = onboarding.pointer.appending(key: "active_flow_id")
        guard let name = active.string else {
            add(.activeFlow, "active_flow_id must be a flow id (a string), not \(Self.show(active))", at: active, activePointer)
            return
        }
        guard let flows, flows.kind == .object else {
            add(.activeFlow, "active_flow_id \(Self.show(active)) names a flow, but onboarding has no flows", at: active, activePointer)
            return
        }
        if flows[name] == nil {
            let known = flows.members.map(\.key)
            let listing = known.isEmpty ? "there are none" : "flows are " + known.prefix(5).map { "\"\($0)\"" }.joined(separator: ", ") + (known.count > 5 ? ", …" : "")
            add(.activeFlow, "active_flow_id \(Self.show(active)) names no flow in onboarding.flows; \(listing)", at: active, activePointer)
        }
    }

    /// W008: every integer-written number whose magnitude exceeds 2^53, anywhere in the file.
    private mutating func checkIntegers() {
        guard document.longIntegerCount > 0 else { return }
        let tape = document.tape
        let limit = Array(Self.maxSafeInteger.utf8)
        var hits: [Int] = []
        document.withBytes { bytes in
            for i in 0..<tape.count {
                let n = tape[i]
                guard n.kind == JSONKind.number.rawValue, n.flags & JSONTapeFlag.nonInteger == 0 else { continue }
                var start = Int(n.start)
                let end = Int(n.end)
                if bytes[start] == UInt8(ascii: "-") { start += 1 }
                let length = end - start
                if length < limit.count { continue }
                if length > limit.count { hits.append(i); continue }
                var k = 0
                while k < length && bytes[start + k] == limit[k] { k += 1 }
                if k < length && bytes[start + k] > limit[k] { hits.append(i) }
            }
        }
        let pointers = document.pointers(toNodes: hits)
        for i in hits {
            let node = JSONNode(document: document, index: i)
            add(.unsafeInteger, "integer \(Self.show(node)) is beyond 2^53: Android and JavaScript read it as a double and lose precision",
                at: node, pointers[i] ?? .root)
        }
    }
}
