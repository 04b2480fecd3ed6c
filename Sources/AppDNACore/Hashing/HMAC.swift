/// HMAC (RFC 2104) over any `HashFunction`; `HMACSHA256` is the one AppDNA webhooks use.
///
/// The key is absorbed once at `init`: the inner and outer hashers are kept already keyed
/// (ipad / opad block processed), so a verifier trying several secrets pays for the key only
/// once and the padded key bytes are not kept around longer than needed.
public struct HMAC<Hash: HashFunction>: Sendable {
    @usableFromInline var inner: Hash
    @usableFromInline var outer: Hash

    /// Keys longer than the block size are hashed first, shorter ones zero-padded (RFC 2104 §2).
    public init(key: UnsafeRawBufferPointer) {
        let blockSize = Hash.blockByteCount
        var block = [UInt8](repeating: 0, count: blockSize)
        if key.count > blockSize {
            var keyHash = Hash()
            keyHash.update(key)
            let digest = keyHash.finalize()
            block.replaceSubrange(0..<digest.count, with: digest)
        } else if key.count > 0 {
            block.withUnsafeMutableBytes { $0.copyMemory(from: key) }
        }
        for index in 0..<blockSize { block[index] ^= 0x36 }
        inner = Hash()
        inner.update(block)
        // 0x36 ^ 0x5c turns the ipad block into the opad block without keeping the key twice.
        for index in 0..<blockSize { block[index] ^= 0x36 ^ 0x5c }
        outer = Hash()
        outer.update(block)
        // Do not leave the padded key in freed memory longer than necessary.
        for index in 0..<blockSize { block[index] = 0 }
    }

    @inlinable
    public init<Key: Collection>(key: Key) where Key.Element == UInt8 {
        self = Array(key).withUnsafeBytes { HMAC(key: $0) }
    }

    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        inner.update(bytes)
    }

    @inlinable
    public mutating func update<Bytes: Collection>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        inner.update(bytes)
    }

    /// The MAC: H(K ^ opad ‖ H(K ^ ipad ‖ message)).
    public consuming func finalize() -> [UInt8] {
        let innerDigest = inner.finalize()
        var outer = self.outer
        outer.update(innerDigest)
        return outer.finalize()
    }

    /// One-shot MAC of `message` under `key`.
    @inlinable
    public static func authenticationCode<Key: Collection, Message: Collection>(
        for message: Message, key: Key
    ) -> [UInt8] where Key.Element == UInt8, Message.Element == UInt8 {
        var mac = HMAC(key: key)
        mac.update(message)
        return mac.finalize()
    }
}

/// The webhook signature MAC.
public typealias HMACSHA256 = HMAC<SHA256>
