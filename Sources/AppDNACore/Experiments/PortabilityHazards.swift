/// What broken MurmurHash3 ports, and ids that look alike but are different bytes, would do
/// to one user's bucket. `bucket --explain` prints these so "why does Android disagree?" has an
/// answer on screen. Each hazard is only reported when it changes something.
public struct PortabilityHazard: Sendable, Equatable {
    public let code: String
    public let message: String
}

public enum PortabilityHazards {
    public static func check(user: String, experiment: String, salt: String,
                             scheme: BucketingScheme) -> [PortabilityHazard] {
        var hazards: [PortabilityHazard] = []
        let hashed = scheme.hashedString(user: user, experiment: experiment, salt: salt)
        let correct = scheme.assign(user: user, experiment: experiment, salt: salt)
        let buckets = scheme.bucketCount

        if scheme == .sdk && BucketingScheme.isBlank(salt) {
            let legacy = "\(experiment).\(salt).\(user)"
            let legacyBucket = MurmurHash3.x86_32(utf8: legacy) % buckets
            hazards.append(PortabilityHazard(code: "blank-salt", message:
                "the salt is blank: current SDKs hash \"\(hashed)\" (bucket \(correct.bucket)), but iOS <= 1.0.69 hashes \"\(legacy)\" (bucket \(legacyBucket))"))
        }

        // A blank id is almost always a bug upstream (an unset variable, a field read from the
        // wrong place); devices never hash a blank user id (they send the anonymous id).
        for (name, value, consequence) in [("user id", user, "devices never hash a blank user id (the SDKs use the anonymous id instead), so no device gets this bucket"),
                                           ("experiment id", experiment, "no one names an experiment so; check where the id comes from")]
        where trimWhitespace(value).isEmpty {
            let what = value.isEmpty ? "empty" : "only white space (\"\(value)\")"
            hazards.append(PortabilityHazard(code: "blank-id", message: "the \(name) is \(what): \(consequence)"))
        }

        for (name, value) in [("user id", user), ("experiment id", experiment), ("salt", salt)] {
            let trimmed = trimWhitespace(value)
            if trimmed != value && !trimmed.isEmpty {
                var parts = (user: user, experiment: experiment, salt: salt)
                switch name {
                case "user id": parts.user = trimmed
                case "experiment id": parts.experiment = trimmed
                default: parts.salt = trimmed
                }
                let other = scheme.assign(user: parts.user, experiment: parts.experiment, salt: parts.salt)
                hazards.append(PortabilityHazard(code: "whitespace", message:
                    "the \(name) has leading or trailing white space; without it the bucket would be \(other.bucket)"))
            }
        }

        for (form, transform) in [("NFC", UnicodeForms.nfc), ("NFD", UnicodeForms.nfd)] {
            let other = transform(hashed)
            if Array(other.utf8) != Array(hashed.utf8) {
                let bucket = MurmurHash3.x86_32(utf8: other) % buckets
                hazards.append(PortabilityHazard(code: "unicode-\(form.lowercased())", message:
                    "the input is not in \(form); its \(form) form (\(other.utf8.count) UTF-8 bytes) hashes to bucket \(bucket)"))
            }
        }

        if hashed.utf8.contains(where: { $0 >= 0x80 }) {
            let utf16LE = hashed.utf16.flatMap { [UInt8(truncatingIfNeeded: $0), UInt8($0 >> 8)] }
            let lowBytes = hashed.utf16.map { UInt8(truncatingIfNeeded: $0) }
            let signedTail = signExtendedTailHash(Array(hashed.utf8))
            hazards.append(PortabilityHazard(code: "non-ascii", message:
                "non-ASCII input: a port hashing UTF-16LE bytes gets bucket \(MurmurHash3.x86_32(utf16LE) % buckets), one hashing the low byte of each UTF-16 unit gets \(MurmurHash3.x86_32(lowBytes) % buckets)"
                + (signedTail != correct.hash ? ", one sign-extending tail bytes (Java) gets \(signedTail % buckets)" : "")))
        }

        let signed = Int32(bitPattern: correct.hash)
        if signed < 0 {
            let remainder = signed % Int32(buckets)
            let absolute = Int64(signed).magnitude % UInt64(buckets)
            hazards.append(PortabilityHazard(code: "signed-modulo", message:
                "the hash is negative as a signed 32-bit integer (\(signed)): a port using signed % gets \(remainder), one using abs(hash) % \(buckets) gets \(absolute)"))
        }
        return hazards
    }

    /// MurmurHash3 as Java ports that forget `& 0xff` on tail bytes compute it.
    static func signExtendedTailHash(_ bytes: [UInt8]) -> UInt32 {
        let tailCount = bytes.count & 3
        guard tailCount > 0, bytes.suffix(tailCount).contains(where: { $0 >= 0x80 }) else {
            return MurmurHash3.x86_32(bytes)
        }
        // Hash the whole blocks normally, then redo the tail with sign-extended bytes.
        let blocks = bytes.count - tailCount
        var h1: UInt32 = 0
        bytes.withUnsafeBytes { raw in
            var index = 0
            while index < blocks {
                let k1 = MurmurHash3.mixKey(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: index, as: UInt32.self)))
                h1 ^= k1
                h1 = ((h1 << 13) | (h1 >> 19)) &* 5 &+ 0xe654_6b64
                index += 4
            }
        }
        var k1: UInt32 = 0
        for offset in stride(from: tailCount - 1, through: 0, by: -1) {
            k1 ^= UInt32(bitPattern: Int32(Int8(bitPattern: bytes[blocks + offset]))) << (8 * UInt32(offset))
        }
        h1 ^= MurmurHash3.mixKey(k1)
        h1 ^= UInt32(truncatingIfNeeded: bytes.count)
        return MurmurHash3.finalMix(h1)
    }

    static func trimWhitespace(_ text: String) -> String {
        let scalars = text.unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
              let last = scalars.lastIndex(where: { !$0.properties.isWhitespace }) else { return "" }
        return String(scalars[first...last])
    }
}
