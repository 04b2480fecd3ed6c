/// `bundle validate`: every rule of the contract over one bundle of either shape.
///
/// Input that is not JSON is a finding (E001/E002), not an error: for a validator, "this is not
/// a bundle" is the answer. Duplicate keys are parsed under `.record` so the rest of the file is
/// still checked; where a key repeats, the last value is the one checked (as most readers do).
///
/// This type is the rules: they read a parsed bundle (`BundleModel`, and each experiment through
/// `ExperimentMembers`), and declare what they read (`BundleRuleReads`). How they run (the
/// parse, the threads, what the parse may leave off the tape, checking while parsing) is
/// `BundleValidationRunner`'s: the rules only hand it the experiments map to check in runs of
/// members (`checkMembers`).
public struct BundleValidator {
    public static let weightSumTolerance = VariantWeights.sumTolerance
    public static let statuses: Set<String> = ["running", "paused", "completed"]  // not an id: ASCII words, which no other bytes are canonically equal to
    /// 2^53: the largest integer every double-based reader holds exactly.
    public static let maxSafeInteger = "9007199254740992"

    /// What the rules have found so far (the runner takes a run's findings out as it goes).
    var findings: [BundleFinding] = []
    /// Buffers `checkVariants` empties and refills for every experiment instead of allocating.
    var scratchSeenIDs: [(node: Int, variant: Int)] = []
    var scratchWeights: [Double] = []
    let document: JSONDocument
    let shift: LocationShift
    /// Who checks the experiments map, and on how many threads.
    private let runner: BundleValidationRunner

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
        BundleValidationRunner.validate(source: bytes, shift: shift, parallelExperimentsBytes: BundleValidationRunner.defaultParallelExperimentsBytes)
    }

    /// `validate(source:shift:)` with the size from which the runner checks experiments on a
    /// second thread (a test forces each path with it).
    static func validate(source bytes: ByteSource, shift: LocationShift, parallelExperimentsBytes: Int) -> [BundleFinding] {
        BundleValidationRunner.validate(source: bytes, shift: shift, parallelExperimentsBytes: parallelExperimentsBytes)
    }

    public static func validate(document: JSONDocument, shift: LocationShift = LocationShift()) -> [BundleFinding] {
        validate(document: document, shift: shift, parallelExperimentsBytes: BundleValidationRunner.defaultParallelExperimentsBytes)
    }

    /// `validate(document:shift:)` with the size from which experiments are checked on two
    /// threads (a test forces either path with it).
    static func validate(document: JSONDocument, shift: LocationShift, parallelExperimentsBytes: Int) -> [BundleFinding] {
        var validator = BundleValidator(document: document, shift: shift, runner: BundleValidationRunner(parallelExperimentsBytes: parallelExperimentsBytes))
        return validator.sortedFindings()
    }

    /// Every rule over the document, findings sorted by position in the file, then by code.
    mutating func sortedFindings() -> [BundleFinding] {
        run()
        return findings.sorted { ($0.byteOffset, $0.code) < ($1.byteOffset, $1.code) }
    }

    init(document: JSONDocument, shift: LocationShift, runner: BundleValidationRunner) {
        self.document = document
        self.shift = shift
        self.runner = runner
    }

    /// E001/E002: input that is not JSON (or not UTF-8), as the one finding, at the place the
    /// parse stopped (moved back by `shift`).
    static func syntaxFinding(_ error: JSONSyntaxError, in bytes: ByteSource, shift: LocationShift) -> BundleFinding {
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
        return BundleFinding(rule: rule, message: message, pointer: .root,
                             line: at.line, column: at.column, byteOffset: error.byteOffset)
    }

    // MARK: - Reporting

    mutating func add(_ rule: BundleRule, _ message: String, at node: JSONNode, _ pointer: JSONPointer) {
        let offset = node.byteRange.lowerBound
        let location = shift.apply(document.location(ofByteOffset: offset))
        findings.append(BundleFinding(rule: rule, message: message, pointer: pointer,
                                      line: location.line, column: location.column, byteOffset: offset))
    }

    static func show(_ node: JSONNode) -> String {
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
    static func quoted(_ id: String) -> String { ShortenedText.quoted(id, limit: 40) }

    static func kindName(_ node: JSONNode) -> String {
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
            let runner = self.runner
            let nonASCIIIDs = runner.checkExperiments(experiments.node, pointer: experiments.pointer, rules: &self)
            checkLookalikes(nonASCIIIDs, what: "experiment id") { id, _ in experiments.pointer.appending(key: id) }
        }
        if let flags = bundle.flags, flags.node.kind == .object {
            let keys = flags.node.members.filter { Self.hasNonASCII($0.key) }.map { (text: $0.key, node: $0.keyNode, index: 0) }
            checkLookalikes(keys, what: "flag key") { key, _ in flags.pointer.appending(key: key) }
        }
        checkFlags(bundle)
        checkOnboarding(bundle)
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
