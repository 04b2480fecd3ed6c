import Foundation
@testable import AppDNACLI
import AppDNACore
@testable import AppDNANet

/// Walks a command table the way a user's fingers would, without a hand list: for every
/// command, its operands (each alternative a mode is chosen by: a choice word, '-', @remote),
/// alone and with each of its flags, and with every pair of its flags. Each line is planned
/// (only planned: `CommandRun.planOnly`) with files in memory and a network that records every
/// request, and judged (issue 54.1):
/// - the plan has no effect: nothing written to the files, no request sent;
/// - the plan read every flag given (a flag it does not read is checked by nobody, or read
///   later, outside the plan);
/// - the plan value holds no way back to the arguments (`ParsedArguments`, `Invocation`) and
///   no code (a closure could read them after the plan), so the perform, which is not given
///   the arguments, reads the plan only.
struct TableWalk {
    let table: CommandTable
    /// The files operands and flag values name, made once (a valid bundle, a queue, a key).
    let samples: Samples

    struct Samples {
        let directory: String
        let bundle: String
        let queue: String
        let body: String
        let keyFile: String
        let secretFile: String
        /// What a port flag is given (`--port`, `--inspect`): a port a listener of the test
        /// holds, in the end-to-end walk (a command that bound before refusing would say it is in use).
        var port: String? = nil

        static func make() throws -> Samples {
            let directory = NSTemporaryDirectory() + "appdna-walk-\(UUID().uuidString)"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let bundle = directory + "/bundle.json", queue = directory + "/pending_events.json"
            let body = directory + "/body.json", keyFile = directory + "/key", secretFile = directory + "/secret"
            try Data("whsec_walk_secret\n".utf8).write(to: URL(fileURLWithPath: secretFile))
            try Data(Self.bundleJSON.utf8).write(to: URL(fileURLWithPath: bundle))
            try Data("[]".utf8).write(to: URL(fileURLWithPath: queue))
            try Data(#"{"type":"subscription.renewed","id":"evt_1"}"#.utf8).write(to: URL(fileURLWithPath: body))
            try Data("adn_test_walk\n".utf8).write(to: URL(fileURLWithPath: keyFile))
            return Samples(directory: directory, bundle: bundle, queue: queue, body: body, keyFile: keyFile, secretFile: secretFile)
        }

        static let bundleJSON = #"""
        {"bundle_version": 3, "api_version": 1, "config": {"greeting": "hi"},
         "experiments": {"onboarding": {"salt": "s1", "status": "running",
           "variants": [{"id": "control", "weight": 0.5}, {"id": "bold", "weight": 0.5}]}}}
        """#

        /// The sample files, in memory (the plans read through the door; readers below the
        /// commands read the same files on disk).
        func files() -> InMemoryFiles {
            var contents: [String: [UInt8]] = [:]
            for path in [bundle, queue, body, keyFile, secretFile] {
                contents[path] = (try? Array(Data(contentsOf: URL(fileURLWithPath: path)))) ?? []
            }
            return InMemoryFiles(contents, directories: [directory])
        }

        /// What a value-taking flag is given: its sample, or a file of the right kind when
        /// the flag names one.
        func value(for flag: FlagSpec) -> String {
            if let port, flag.long == "port" || flag.valueName == "PORT" { return port }
            // A signature header of the right shape (its check is the perform's).
            if flag.long == "signature" { return "sha256=" + String(repeating: "0", count: 64) }
            switch flag.completion {
            case .file:
                if flag.long.contains("key") { return keyFile }
                if flag.long.contains("secret") { return secretFile }
                if flag.long.contains("bundle") { return bundle }
                return body
            case .directory: return directory
            default: return flag.sampleValue
            }
        }

        /// The alternatives an operand is walked with: each choice word (a mode), else a
        /// sample and the special words its summary offers.
        func alternatives(for operand: OperandSpec) -> [String] {
            if let choices = operand.completion == .none ? nil : choicesOf(operand), operand.onlyChoices { return choices }
            var words: [String]
            switch operand.name {
            case "USER": words = ["u1"]
            case "EXPERIMENT": words = ["onboarding"]
            case "SALT": words = ["s1"]
            case "PATH": words = [queue]
            case "BODY": words = [body]
            case "TYPE": words = ["subscription.renewed"]
            case "OVERRIDE": words = ["config:greeting=hello"]
            default: words = operand.completion == .file ? [bundle] : ["word"]
            }
            if operand.summary.contains("'-'") { words.append("-") }
            if operand.summary.contains("@remote") { words.append("@remote") }
            return words
        }

        private func choicesOf(_ operand: OperandSpec) -> [String]? {
            if case .choices(let words) = operand.completion { return words }
            return nil
        }
    }

    /// One line's judgement.
    struct Verdict {
        let line: [String]
        /// Nil when the plan was built; else the refusal.
        let refusal: Failure?
        var faults: [String] = []
    }

    /// A network that records every request and answers none (a refused connection).
    final class RecordingTransport: HTTPTransport, @unchecked Sendable {
        private let lock = NSLock()
        private var seen: [String] = []
        var requests: [String] { lock.lock(); defer { lock.unlock() }; return seen }
        func perform(_ request: HTTPRequest, deadline: Deadline) throws(HTTPError) -> HTTPResponse {
            lock.lock(); seen.append("\(request.method) \(request.url)"); lock.unlock()
            throw CurlTransport().classify(code: 7, detail: "Connection refused (the walk sends nothing)", where_: "\(request.url)",
                                           deadline: deadline, expired: false, overLimit: false)
        }
    }

    /// Every line of every command: operands (one alternative varied at a time), alone, with
    /// each flag, with each pair of flags.
    func lines(for command: CommandSpec) -> [[String]] {
        let flags = command.flags.filter { !$0.hidden }
        var operandLines: [[String]] = []
        let firsts = command.operands.filter { !$0.optional }.map { samples.alternatives(for: $0)[0] }
        operandLines.append(firsts)
        for (index, operand) in command.operands.enumerated() where !operand.optional {
            for alternative in samples.alternatives(for: operand).dropFirst() {
                var line = firsts
                line[index] = alternative
                operandLines.append(line)
            }
        }
        operandLines.append([])  // no operands: a mode a flag selects (--self-test, --list)
        func words(_ flag: FlagSpec) -> [String] {
            flag.takesValue ? ["--" + flag.long, samples.value(for: flag)] : ["--" + flag.long]
        }
        var lines: [[String]] = []
        for operands in operandLines {
            lines.append(command.path + operands)
            for flag in flags { lines.append(command.path + operands + words(flag)) }
        }
        for (index, first) in flags.enumerated() {
            for second in flags[(index + 1)...] {
                lines.append(command.path + firsts + words(first) + words(second))
            }
        }
        var seen = Set<[String]>()
        return lines.filter { seen.insert($0).inserted }
    }

    /// Plans `line` (parsing it first; a line the parser refuses never reaches a plan) and
    /// judges the plan. Nil when the parser refused it.
    func judge(_ line: [String], environment: [String: String]) -> Verdict? {
        guard case .run(let command, let arguments)? = try? ArgumentParser(table: table).parse(line) else { return nil }
        let files = samples.files(), transport = RecordingTransport()
        let out = OutputSink(capturingAsTerminal: false), err = OutputSink(capturingAsTerminal: false)
        // Standard input is empty, as the end-to-end walk's /dev/null is.
        let stdin = open("/dev/null", O_RDONLY)
        defer { close(stdin) }
        let io = CommandIO(stdout: out, stderr: err, stdinDescriptor: stdin, stdinIsTerminal: false, environment: environment,
                           transport: transport, clock: SystemClock(), files: files)
        let invocation = Invocation(command: command, io: io, options: GlobalOptions(arguments, io: io))
        arguments.forgetReads()
        var verdict: Verdict
        do {
            let plan = try command.run.planOnly(arguments, invocation)
            verdict = Verdict(line: line, refusal: nil)
            for flag in command.flags where arguments.wasTyped(flag) && !arguments.flagsRead.contains(flag.id) {
                verdict.faults.append("its plan never read --\(flag.long), which was given")
            }
            verdict.faults += Self.waysBack(in: plan)
        } catch let failure as ClassifiedError {
            verdict = Verdict(line: line, refusal: Failure(failure.kind, failure.message))
        } catch {
            verdict = Verdict(line: line, refusal: Failure(.internalError, "\(error)"))
        }
        if !files.changes.isEmpty { verdict.faults.append("its plan wrote \(files.changes)") }
        if !transport.requests.isEmpty { verdict.faults.append("its plan sent \(transport.requests)") }
        if !out.capturedText.isEmpty { verdict.faults.append("its plan printed \(out.capturedText.debugDescription)") }
        return verdict
    }

    /// What in a plan value could read the arguments later: a `ParsedArguments`, an
    /// `Invocation`, or code (a closure), named by the path to it.
    static func waysBack(in plan: Any) -> [String] {
        var found: [String] = []
        var seen = Set<ObjectIdentifier>()
        func visit(_ value: Any, _ path: String, depth: Int) {
            guard depth < 16 else { return }
            if value is ParsedArguments { found.append("\(path) keeps the parsed arguments"); return }
            if value is Invocation { found.append("\(path) keeps the invocation (its arguments)"); return }
            // An HTTP client holds code of its own (retry notices, jitter), made by
            // `APIAccess.client` from values the plan decided, never from the arguments.
            if value is HTTPClient { return }
            let typeName = "\(type(of: value))"
            if typeName.contains("->") { found.append("\(path) is code (\(typeName)) that could read the arguments later"); return }
            let mirror = Mirror(reflecting: value)
            if mirror.displayStyle == .class {
                let id = ObjectIdentifier(value as AnyObject)
                if seen.contains(id) { return }
                seen.insert(id)
            }
            for (index, child) in mirror.children.enumerated() {
                visit(child.value, path + "." + (child.label ?? "\(index)"), depth: depth + 1)
            }
        }
        visit(plan, "plan", depth: 0)
        return found
    }
}
