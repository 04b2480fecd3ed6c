import Foundation

/// Both server fuzzers' clients: eight threads, each sending the next request on a connection
/// of its own (`WebhookListenFuzzEndToEndTests.exchange`). The answers in the requests' order;
/// nil where the server neither answered nor closed within `seconds` (a hang).
enum ConcurrentExchanges {
    static func send(_ requests: [[UInt8]], port: Int, seconds: Int) -> [[UInt8]?] {
        final class Results: @unchecked Sendable {
            let lock = NSLock()
            var next = 0
            var answers: [[UInt8]?]
            init(_ count: Int) { answers = Array(repeating: nil, count: count) }
        }
        let results = Results(requests.count)
        let group = DispatchGroup()
        for _ in 0..<8 {
            group.enter()
            Thread {
                while true {
                    let index = results.lock.withLock { () -> Int in
                        defer { results.next += 1 }
                        return results.next
                    }
                    guard index < requests.count else { break }
                    let answer = WebhookListenFuzzEndToEndTests.exchange(requests[index], port: port, seconds: seconds)
                    results.lock.withLock { results.answers[index] = answer }
                }
                group.leave()
            }.start()
        }
        _ = group.wait(timeout: .now() + 900)
        return results.lock.withLock { results.answers }
    }
}
