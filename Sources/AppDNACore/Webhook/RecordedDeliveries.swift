/// The contents of a record file (`webhook listen --record`), as `webhook trigger --replay`
/// reads it: the deliveries that can be sent, each with its line, and the lines that cannot,
/// each with why. A record file is data from disk, so every record is checked as a request
/// would be on arrival (`RecordedDelivery.wireProblem`) before any of its bytes go on the wire,
/// and a bad or torn line costs that line only.
public struct RecordedDeliveries: Sendable {
    public struct Skipped: Sendable, Equatable {
        /// 1-based.
        public let line: Int
        public let reason: String
        /// The file ends inside this line (the writer was killed, or the disk filled).
        public let torn: Bool
    }

    /// In file order, with their 1-based lines.
    public let deliveries: [(line: Int, delivery: RecordedDelivery)]
    public let skipped: [Skipped]

    public init(fileBytes bytes: [UInt8]) {
        var deliveries: [(line: Int, delivery: RecordedDelivery)] = []
        var skipped: [Skipped] = []
        let lines = bytes.split(separator: 10, omittingEmptySubsequences: false)
        for (index, line) in lines.enumerated() where !line.allSatisfy({ $0 == 13 || $0 == 32 }) {
            // Every record ends in a newline: a last line without one was cut off while written.
            let unterminated = index == lines.count - 1
            do {
                let delivery = try RecordedDelivery.parse(line: Array(line))
                if let problem = delivery.wireProblem() {
                    skipped.append(Skipped(line: index + 1, reason: problem, torn: false))
                } else {
                    deliveries.append((index + 1, delivery))
                }
            } catch {
                let reason = unterminated ? "the file ends inside this record (torn: the listener was stopped or the disk filled while writing it)" : error.message
                skipped.append(Skipped(line: index + 1, reason: reason, torn: unterminated))
            }
        }
        self.deliveries = deliveries
        self.skipped = skipped
    }
}

extension RecordedDelivery {
    /// Why this record cannot go on the wire as it is, checked as a server checks a request on
    /// arrival (`RequestLine`, `HeaderField`): a method that is not a token, a target with a
    /// space or control character, a header name that is not a token, a value holding CR, LF,
    /// NUL or another control character. nil when it can be sent. Such bytes in a record would
    /// end the request early or add a second, smuggled one.
    public func wireProblem() -> String? {
        if let problem = RequestLine.check(method: method, target: target) {
            switch problem {
            case .notAMethod: return "the method '\(HeaderText.excerpt(method))' is not a token"
            case .emptyTarget: return "the target is empty"
            default: return problem.message
            }
        }
        for header in headers {
            if let problem = HeaderField.check(name: header.name, value: header.value) {
                return problem.describe(section: "header")
            }
        }
        return nil
    }
}
