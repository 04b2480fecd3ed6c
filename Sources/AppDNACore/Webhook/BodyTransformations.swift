/// The byte-level edits that commonly happen to a webhook body between the sender signing it
/// and the receiver verifying it (editors, `echo`, Windows tools, copy-paste). Each returns nil
/// when it would not change the body, so the explainer never reports a no-op as a cause.
enum BodyTransformations {
    static let lf: UInt8 = 0x0a
    static let cr: UInt8 = 0x0d
    static let bom: [UInt8] = [0xef, 0xbb, 0xbf]

    /// Drops a final bare LF (not one that ends a CRLF: that is `removingTrailingCRLF`).
    static func removingTrailingLF(_ body: [UInt8]) -> [UInt8]? {
        guard body.last == lf, body.dropLast().last != cr else { return nil }
        return Array(body.dropLast())
    }

    static func removingTrailingCRLF(_ body: [UInt8]) -> [UInt8]? {
        guard body.count >= 2, body.suffix(2) == [cr, lf] else { return nil }
        return Array(body.dropLast(2))
    }

    static func appendingLF(_ body: [UInt8]) -> [UInt8]? { body + [lf] }

    static func appendingCRLF(_ body: [UInt8]) -> [UInt8]? { body + [cr, lf] }

    /// Every bare LF becomes CRLF (existing CRLFs are left alone).
    static func lfToCRLF(_ body: [UInt8]) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(body.count + body.count / 16)
        var changed = false
        var previous: UInt8 = 0
        for byte in body {
            if byte == lf && previous != cr {
                out.append(cr)
                changed = true
            }
            out.append(byte)
            previous = byte
        }
        return changed ? out : nil
    }

    /// Every CRLF becomes LF.
    static func crlfToLF(_ body: [UInt8]) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(body.count)
        var changed = false
        var index = 0
        while index < body.count {
            if body[index] == cr && index + 1 < body.count && body[index + 1] == lf {
                changed = true
                index += 1
                continue
            }
            out.append(body[index])
            index += 1
        }
        return changed ? out : nil
    }

    static func removingBOM(_ body: [UInt8]) -> [UInt8]? {
        guard body.starts(with: bom) else { return nil }
        return Array(body.dropFirst(3))
    }

    static func addingBOM(_ body: [UInt8]) -> [UInt8]? {
        guard !body.starts(with: bom) else { return nil }
        return bom + body
    }
}

/// The same for secrets: what a sender's copy of the secret might differ by.
enum SecretTransformations {
    static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0a || byte == 0x0d || byte == 0x0b || byte == 0x0c
    }

    /// Leading and trailing ASCII whitespace removed; nil if there was none (or nothing else).
    static func trimmed(_ secret: [UInt8]) -> [UInt8]? {
        guard let first = secret.firstIndex(where: { !isWhitespace($0) }),
              let last = secret.lastIndex(where: { !isWhitespace($0) }) else { return nil }
        let result = Array(secret[first...last])
        return result.count == secret.count ? nil : result
    }

    /// The secret as it would be if the sender did not strip its file's final newline.
    static func withTrailingNewlines(_ secret: [UInt8]) -> [[UInt8]] {
        [secret + [0x0a], secret + [0x0d, 0x0a]]
    }
}
