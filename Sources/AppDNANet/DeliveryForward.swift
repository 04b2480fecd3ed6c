import AppDNACore

/// Forwarding a delivery to the handler under development: `webhook listen --forward-to`,
/// and the inspector's Replay. One Net step: the headers a proxy passes on (`ForwardedHeaders`),
/// the request through the client, the answer cut at `relayedAnswerBytes`, the outcome typed.
public enum DeliveryForward {
    /// The most of a handler's answer relayed to the sender: more is read and dropped as it
    /// arrives (the listener never holds a large answer), and the log says it was cut.
    public static let relayedAnswerBytes = 1 << 20

    /// What the handler made of a forwarded delivery: its answer, or why there is none.
    public struct Outcome: Sendable {
        public var answer: HTTPResponse?
        public var error: String?
        /// No answer within the forward's time limit (`webhook listen --forward-timeout`).
        public var timedOut = false
        public var milliseconds: Double
        public var status: Int? { answer?.status }

        /// `status` (null without an answer), `error` (null with one), `latency_ms`,
        /// `answer_cut` (more than `relayedAnswerBytes` came back): as `--json` and the
        /// inspector report a forward.
        public var fields: JSONObject {
            ["status": status.map { .integer($0) } ?? .null, "error": error.map { .string($0) } ?? .null,
             "latency_ms": .decimal(NumberText.tenths(milliseconds)), "answer_cut": .bool(answer?.bodyWasCut ?? false)]
        }
    }

    /// Sends a delivery (as received from `peer`) on to the handler at `target`, as a proxy
    /// does (see `ForwardedHeaders`): the one forwarding path, for each delivery and for the
    /// inspector's Replay.
    public static func send(method: String, headers: [(name: String, value: String)], body: [UInt8], peer: String, to target: String,
                        timeout: Double, client: HTTPClient) -> Outcome {
        let started = Deadline.now()
        do {
            var forwarded = HTTPRequest(method: method, url: target, headers: ForwardedHeaders.forwarded(headers, peer: peer), body: body,
                                        keepBodyBytes: relayedAnswerBytes)
            // A stop finishes the deliveries under way (within --forward-timeout); a second
            // signal quits at once.
            forwarded.abortsOnInterrupt = false
            let answer = try client.send(forwarded, deadline: Deadline(secondsFromNow: timeout))
            return Outcome(answer: answer, milliseconds: Double(Deadline.now() - started) / 1e6)
        } catch {
            // By the error's type, never its wording ("timeout" may be part of a host name).
            return Outcome(error: error.message, timedOut: error.deadlineExpired, milliseconds: Double(Deadline.now() - started) / 1e6)
        }
    }
}
