import TestSupport

/// The request-line, header and framing mutations both server fuzzers apply
/// (`WebhookListenFuzzEndToEndTests`, `RouteFuzzEndToEndTests`): seeded, so a failing case
/// repeats from its seed.
enum RequestMutator {
    /// Pieces the mutator splices in: line ends, separators, framing headers, chunk sizes.
    static let dictionary: [[UInt8]] = ["\r\n", "\n", "\r", "\u{0}", " ", "\t", ":", ";", ",", "\r\n\r\n", "0\r\n\r\n", "ffffffffffffffff\r\n",
                                        "Transfer-Encoding: chunked\r\n", "Content-Length: 7\r\n", "Content-Length: 99999999\r\n",
                                        "Host: other\r\n", "Expect: 100-continue\r\n", "Connection: close\r\n", "HTTP/1.0", "HTTP/2.0",
                                        "GET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n", "\u{1B}[31m", "é", "%00", " HTTP/1.1"].map { Array($0.utf8) }

    static func mutate(_ input: [UInt8], _ random: inout SplitMix64) -> [UInt8] {
        var bytes = input
        for _ in 0..<(1 + random.below(4)) {
            let at = bytes.isEmpty ? 0 : random.below(bytes.count + 1)
            switch random.below(7) {
            case 0 where !bytes.isEmpty && at < bytes.count: bytes[at] = UInt8(truncatingIfNeeded: random.next())
            case 1: bytes.insert(contentsOf: dictionary[random.below(dictionary.count)], at: at)
            case 2 where at < bytes.count: bytes.removeSubrange(at..<min(bytes.count, at + 1 + random.below(16)))
            case 3 where at < bytes.count:
                // Duplicate a line (a second Host, Content-Length, Transfer-Encoding …).
                let start = bytes[..<at].lastIndex(of: 10).map { $0 + 1 } ?? 0
                let end = bytes[at...].firstIndex(of: 10).map { $0 + 1 } ?? bytes.count
                bytes.insert(contentsOf: bytes[start..<end], at: end)
            case 4: bytes = Array(bytes.prefix(at))   // cut off
            case 5 where at < bytes.count && (48...57).contains(bytes[at]): bytes[at] = UInt8(48 + random.below(10))  // a length or size digit
            default: bytes.insert(dictionary[1][0], at: at)
            }
        }
        return bytes
    }

}
