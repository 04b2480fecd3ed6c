import AppDNACore

/// `appdna bundle diff OLD NEW`: what changed between two bundles and what it does to users.
enum BundleDiffCommand {
    static let operands = [
        OperandSpec("OLD", "The bundle before: a file, '-' for standard input, or @remote for the live bundle", completion: .file),
        OperandSpec("NEW", "The bundle after: a file, '-' for standard input, or @remote for the live bundle", completion: .file),
    ]

    static let flags = BundleDiffFlags.all

    typealias Plan = BundleDiffPlan

    @Sendable static func plan(_ arguments: ParsedArguments, _ invocation: Invocation) throws -> Plan {
        try BundleDiffPlan.make(arguments, invocation.io)
    }

    static let run = CommandRun.planned(plan: plan, perform: perform)

    @Sendable static func perform(_ plan: Plan, _ invocation: Invocation) throws -> ExitStatus {
        // The local side first: one that is not JSON (65) is found before the live bundle is
        // downloaded.
        func read(_ side: BundleOperand) throws -> JSONDocument {
            try side.document(invocation, live: plan.live, sdkShape: plan.againstRemote)
        }
        let old: JSONDocument, new: JSONDocument
        if plan.old == .remote {
            new = try read(plan.new)
            old = try read(plan.old)
        } else {
            old = try read(plan.old)
            new = try read(plan.new)
        }
        let diff = BundleDiff(old: old.root, new: new.root, ignore: plan.ignore)
        let switching = SwitchingShare.all(in: diff, old: old.root, new: new.root)
        let out = invocation.stdout
        switch plan.output {
        case .stat: writeStat(diff, to: out)
        case .changes(.json): writeJSON(diff, gate: plan.threshold.map { BundleDiffGate.Verdict(switching, threshold: $0) }, to: out)
        case .changes(.patch): writePatch(diff, to: out)
        case .changes(.markdown):
            DiffMarkdown.write(diff, switching: switching, oldName: plan.old.argument, newName: plan.new.argument, threshold: plan.threshold, to: out)
        case .changes(.text): writeText(diff, style: invocation.options.stdoutStyle, to: out)
        }
        if let threshold = plan.threshold {
            // An experiment that moves users is pointed at in NEW, when NEW is a file; at its
            // line when the file was read as it is (against @remote it was laid out anew).
            let experiments = BundleExperiments.map(in: new.root)
            return BundleDiffGate.status(switching, threshold: threshold, invocation: invocation) { experiment in
                guard case .file(let path) = plan.new else { return nil }
                return GitHubWorkflowText.Place(file: path, line: plan.againstRemote ? nil : experiments?[experiment]?.location.line)
            }
        }
        if diff.isEmpty { return .success }
        // Exit 1 like diff(1); the contract wants a line on stderr for every non-zero exit.
        invocation.io.stderr.writeLine("appdna: the bundles differ (\(diff.changes.count) change\(diff.changes.count == 1 ? "" : "s"))")
        return .negative
    }

    static func writeText(_ diff: BundleDiff, style: Styler, to out: OutputSink) {
        for change in diff.changes {
            switch change.kind {
            case .add: out.writeLine(style.apply(.green, "+ \(change.path)") + "  \(DiffValueText.of(change.new))")
            case .remove: out.writeLine(style.apply(.red, "- \(change.path)") + "  \(DiffValueText.of(change.old))")
            case .replace: out.writeLine(style.apply(.yellow, "~ \(change.path)") + "  \(DiffValueText.of(change.old)) → \(DiffValueText.of(change.new))")
            case .move: out.writeLine(style.apply(.cyan, "> \(change.from!) → \(change.path)") + "  (moved)")
            }
        }
        for note in diff.notes {
            out.writeLine(style.apply(.bold, "note:") + " \(note.message)")
        }
    }

    /// Counts per top-level section (`content/…` counts one level deeper).
    static func writeStat(_ diff: BundleDiff, to out: OutputSink) {
        var order: [String] = []
        var counts: [String: [JSONDiff.Change.Kind: Int]] = [:]
        for change in diff.changes {
            let tokens = (change.from ?? change.path).tokens
            let section = tokens.first == "content" && tokens.count > 1 ? "content/" + tokens[1] : (tokens.first ?? "(root)")
            if counts[section] == nil { order.append(section) }
            counts[section, default: [:]][change.kind, default: 0] += 1
        }
        let width = order.map(\.count).max() ?? 0
        for section in order {
            let c = counts[section]!
            let total = c.values.reduce(0, +)
            let parts = [(JSONDiff.Change.Kind.add, "added"), (.remove, "removed"), (.replace, "changed"), (.move, "moved")]
                .compactMap { kind, word in c[kind].map { "\($0) \(word)" } }
            out.writeLine(" \(section)\(String(repeating: " ", count: width - section.count)) | \(total) (\(parts.joined(separator: ", ")))")
        }
        let kinds = diff.changes.reduce(into: [JSONDiff.Change.Kind: Int]()) { $0[$1.kind, default: 0] += 1 }
        out.writeLine(" \(order.count) section\(order.count == 1 ? "" : "s") changed, \(diff.changes.count) change\(diff.changes.count == 1 ? "" : "s"): \(kinds[.add] ?? 0) added, \(kinds[.remove] ?? 0) removed, \(kinds[.replace] ?? 0) changed, \(kinds[.move] ?? 0) moved; \(diff.notes.count) note\(diff.notes.count == 1 ? "" : "s")")
    }

    static func writePatch(_ diff: BundleDiff, to out: OutputSink) {
        out.writeVerbatim("[")
        var first = true
        for op in diff.structure.patch {
            var object = JSONObject()
            object["op"] = .string(op.op.rawValue)
            if let from = op.from { object["from"] = .string(from.description) }
            object["path"] = .string(op.path.description)
            if let value = op.value { object["value"] = value.value }
            out.writeVerbatim(first ? "\n  " : ",\n  ")
            out.write(JSONWriter().write(.object(object)))
            first = false
        }
        out.writeVerbatimLine(first ? "]" : "\n]")
    }

    /// `{"same", "changes": [{op, path, from?, old?, new?}], "notes": [{kind, path, message, share?, buckets?, experiment?}],
    /// "gate"?}` (`gate` with `--fail-on-switch`: the threshold, whether it passed, each experiment judged).
    static func writeJSON(_ diff: BundleDiff, gate: BundleDiffGate.Verdict?, to out: OutputSink) {
        let changes: [JSONValue] = diff.changes.map { change in
            var object = JSONObject()
            object["op"] = .string(change.kind.rawValue)
            object["path"] = .string(change.path.description)
            if let from = change.from { object["from"] = .string(from.description) }
            if change.kind != .move {
                if let old = change.old { object["old"] = old.value }
                if let new = change.new { object["new"] = new.value }
            }
            return .object(object)
        }
        let notes: [JSONValue] = diff.notes.map { note in
            var object = JSONObject()
            object["kind"] = .string(note.kind.rawValue)
            object["path"] = .string(note.path.description)
            object["message"] = .string(note.message)
            if let share = note.share { object["share"] = .decimal(share) }
            if let buckets = note.buckets { object["buckets"] = .integer(buckets) }
            if let experiment = note.experiment { object["experiment"] = .string(experiment) }
            return .object(object)
        }
        var document = JSONObject([("same", .bool(diff.isEmpty)), ("changes", .array(changes)), ("notes", .array(notes))])
        if let gate { document["gate"] = gate.json }
        out.write(JSONWriter(indent: 2).write(.object(document)))
        out.writeLine()
    }
}
