/// The fields `queue inspect` counts, read straight from a parsed line's tape: no `JSONNode`,
/// no `String`. Only for the common case, an event `EventFields` would find nothing wrong
/// with; anything else (a schema finding, an escaped key or value, a tombstone) makes `scan`
/// return false and the line goes through the general path, so results are identical.
struct FastEventFields {
    /// Byte ranges are offsets into the line (without quotes).
    var idStart = 0, idLength = 0
    var nameStart = 0, nameLength = 0
    var anonStart = 0, anonLength = 0
    /// -1 when absent.
    var platformStart = 0, platformLength = -1
    var sdkStart = 0, sdkLength = -1
    var idHash: UInt64 = 0, anonHash: UInt64 = 0
    var userHash: UInt64 = 0, hasUser = false
    var sessionHash: UInt64 = 0, hasSession = false
    var timestamp: Int64 = 0
    var clientSeq: Int64 = 0, hasClientSeq = false
    /// -1 absent, 0 false, 1 true.
    var consent: Int8 = -1
    var propertiesCount: Int64 = 0, hasPropertiesCount = false

    // What the exposure audit (`queue inspect --bundle`) reads, so that it need not walk the
    // event again by key (`ExposureAudit+Tape.swift`).
    /// `user.user_id`, when `hasUser`.
    var userIDStart = 0, userIDLength = 0
    /// -1 when absent.
    var countryStart = 0, countryLength = -1
    var appVersionStart = 0, appVersionLength = -1
    /// `device.country` or `device.app_version` has escapes: only a decoded document reads it.
    var deviceEscaped = false
    /// Tape index of `context.experiment_exposures` (an array of objects with string `exp`
    /// and `variant`), -1 when absent.
    var exposuresIndex = -1

    /// Reads the event on `tape` (a successful parse of `base[0..<count]`). False when the
    /// event needs the general path.
    mutating func scan(_ tape: UnsafeMutablePointer<JSONTapeNode>, _ base: UnsafePointer<UInt8>) -> Bool {
        var sawID = false, sawName = false, sawTimestamp = false, sawUser = false
        let read = Self.forEachMember(tape, 0, base) { k, kl, v, value in
            switch kl {
            case 14:
                if Self.equal(k, "schema_version") {
                    guard let version = Self.integer(value, base), version == 1 else { return false }
                } else if Self.equal(k, "appdna_removed") {
                    return false
                }
            case 8:
                if Self.equal(k, "event_id") {
                    sawID = true
                    guard let (s, l) = Self.string(value) else { return false }
                    guard Self.isLowercaseUUID(base + s, l) else { return false }
                    idStart = s; idLength = l; idHash = Self.hash(base + s, l)
                }
            case 10:
                if Self.equal(k, "event_name") {
                    sawName = true
                    guard let (s, l) = Self.string(value), l > 0 else { return false }
                    nameStart = s; nameLength = l
                } else if Self.equal(k, "properties") {
                    return scanProperties(tape, v, base)
                }
            case 5:
                if Self.equal(k, "ts_ms") {
                    sawTimestamp = true
                    guard let ms = Self.integer(value, base), ms >= 0 else { return false }
                    timestamp = ms
                }
            case 4:
                if Self.equal(k, "user") {
                    sawUser = true
                    return scanUser(tape, v, base)
                }
            case 6:
                if Self.equal(k, "device") { return scanDevice(tape, v, base) }
            case 7:
                if Self.equal(k, "context") {
                    return scanContext(tape, v, base)
                } else if Self.equal(k, "privacy") {
                    return scanPrivacy(tape, v, base)
                }
            default: break
            }
            return true
        }
        return read && sawID && sawName && sawTimestamp && sawUser
    }

    private mutating func scanProperties(_ tape: UnsafeMutablePointer<JSONTapeNode>, _ index: Int, _ base: UnsafePointer<UInt8>) -> Bool {
        hasPropertiesCount = false
        return Self.forEachMember(tape, index, base) { k, kl, _, value in
            guard kl == 5 && Self.equal(k, "count") else { return true }
            // `value["count"]`, counted only when written as an integer that fits.
            if value.kind == JSONKind.number.rawValue && value.flags & JSONTapeFlag.nonInteger == 0, let n = Self.parseInt64(value, base) {
                propertiesCount = n
                hasPropertiesCount = true
            } else {
                hasPropertiesCount = false
            }
            return true
        }
    }

    private mutating func scanUser(_ tape: UnsafeMutablePointer<JSONTapeNode>, _ index: Int, _ base: UnsafePointer<UInt8>) -> Bool {
        var sawAnon = false
        let read = Self.forEachMember(tape, index, base) { k, kl, _, value in
            guard kl == 7 else { return true }
            if Self.equal(k, "anon_id") {
                sawAnon = true
                guard let (s, l) = Self.string(value), l > 0 else { return false }
                anonStart = s; anonLength = l; anonHash = Self.hash(base + s, l)
            } else if Self.equal(k, "user_id") {
                guard let (s, l) = Self.string(value) else { return false }
                userHash = Self.hash(base + s, l); hasUser = true
                userIDStart = s; userIDLength = l
            }
            return true
        }
        return read && sawAnon
    }

    private mutating func scanDevice(_ tape: UnsafeMutablePointer<JSONTapeNode>, _ index: Int, _ base: UnsafePointer<UInt8>) -> Bool {
        Self.forEachMember(tape, index, base) { k, kl, _, value in
            switch kl {
            case 8:
                if Self.equal(k, "platform") {
                    guard let (s, l) = Self.string(value) else { return false }
                    platformStart = s; platformLength = l
                }
            case 11:
                if Self.equal(k, "sdk_version") {
                    guard let (s, l) = Self.string(value) else { return false }
                    sdkStart = s; sdkLength = l
                } else if Self.equal(k, "app_version") {
                    guard value.kind == JSONKind.string.rawValue else { return false }
                    if let (s, l) = Self.string(value) { appVersionStart = s; appVersionLength = l } else { deviceEscaped = true }
                }
            case 2:
                if Self.equal(k, "os") { return value.kind == JSONKind.string.rawValue }
            case 6:
                if Self.equal(k, "locale") { return value.kind == JSONKind.string.rawValue }
            case 7:
                if Self.equal(k, "country") {
                    guard value.kind == JSONKind.string.rawValue else { return false }
                    if let (s, l) = Self.string(value) { countryStart = s; countryLength = l } else { deviceEscaped = true }
                }
            case 14:
                if Self.equal(k, "bundle_version") { return Self.integer(value, base) != nil }
            default: break
            }
            return true
        }
    }

    private mutating func scanContext(_ tape: UnsafeMutablePointer<JSONTapeNode>, _ index: Int, _ base: UnsafePointer<UInt8>) -> Bool {
        Self.forEachMember(tape, index, base) { k, kl, v, value in
            switch kl {
            case 10:
                if Self.equal(k, "session_id") {
                    guard let (s, l) = Self.string(value) else { return false }
                    sessionHash = Self.hash(base + s, l); hasSession = true
                } else if Self.equal(k, "client_seq") {
                    guard let seq = Self.integer(value, base), seq >= 0 else { return false }
                    clientSeq = seq; hasClientSeq = true
                }
            case 6:
                if Self.equal(k, "screen") { return value.kind == JSONKind.string.rawValue }
            case 20:
                if Self.equal(k, "experiment_exposures") {
                    guard Self.exposuresAreReadable(tape, v, base) else { return false }
                    exposuresIndex = v
                }
            default: break
            }
            return true
        }
    }

    /// Whether the exposures array at `index` holds only objects with string `exp` and
    /// `variant` members (what `ExposureAudit+Tape.swift` reads without checking again).
    private static func exposuresAreReadable(_ tape: UnsafeMutablePointer<JSONTapeNode>, _ index: Int, _ base: UnsafePointer<UInt8>) -> Bool {
        let array = tape[index]
        guard array.kind == JSONKind.array.rawValue else { return false }
        var e = index + 1
        let stop = Int(array.next)
        while e < stop {
            var sawExp = false, sawVariant = false
            let read = forEachMember(tape, e, base) { k, kl, _, value in
                if kl == 3 && equal(k, "exp") {
                    sawExp = true
                    return value.kind == JSONKind.string.rawValue
                } else if kl == 7 && equal(k, "variant") {
                    sawVariant = true
                    return value.kind == JSONKind.string.rawValue
                }
                return true
            }
            guard read && sawExp && sawVariant else { return false }
            e = Int(tape[e].next)
        }
        return true
    }

    private mutating func scanPrivacy(_ tape: UnsafeMutablePointer<JSONTapeNode>, _ index: Int, _ base: UnsafePointer<UInt8>) -> Bool {
        // `value["consent"]` then `consent["analytics"]`: the last of each wins, so scan all.
        var consentIndex = -1
        guard Self.forEachMember(tape, index, base, { k, kl, v, _ in
            if kl == 7 && Self.equal(k, "consent") { consentIndex = v }
            return true
        }) else { return false }
        consent = -1
        guard consentIndex >= 0 else { return true }
        var analytics = -1
        guard Self.forEachMember(tape, consentIndex, base, { k, kl, v, _ in
            if kl == 9 && Self.equal(k, "analytics") { analytics = v }
            return true
        }) else { return false }
        guard analytics >= 0 else { return true }
        let node = tape[analytics]
        guard node.kind == JSONKind.bool.rawValue else { return false }
        consent = node.flags & JSONTapeFlag.isTrue != 0 ? 1 : 0
        return true
    }

    // MARK: - Helpers

    /// Calls `visit(key, keyLength, valueIndex, value)` for each member of the object at tape
    /// `index`, `key` pointing at the key's bytes in `base` (without quotes). False, and the
    /// walk stops, when the node is not an object, a key has escapes (only a decoded document
    /// reads those), or `visit` returns false. Inlined with its closure: this runs for every
    /// object of every event.
    @inline(__always)
    static func forEachMember(_ tape: UnsafeMutablePointer<JSONTapeNode>, _ index: Int, _ base: UnsafePointer<UInt8>,
                              _ visit: (_ key: UnsafePointer<UInt8>, _ keyLength: Int, _ valueIndex: Int, _ value: JSONTapeNode) -> Bool) -> Bool {
        let object = tape[index]
        guard object.kind == JSONKind.object.rawValue else { return false }
        var j = index + 1
        let end = Int(object.next)
        while j < end {
            let key = tape[j], v = j + 1, value = tape[v]
            j = Int(value.next)
            guard key.flags & JSONTapeFlag.escaped == 0 else { return false }
            let ks = Int(key.start) + 1
            guard visit(base + ks, Int(key.end) - ks - 1, v, value) else { return false }
        }
        return true
    }

    /// Whether the `literal.utf8CodeUnitCount` bytes at `p` spell `literal` (word compares
    /// rather than a call to memcmp: this runs for every key of every event).
    @inline(__always)
    static func equal(_ p: UnsafePointer<UInt8>, _ literal: StaticString) -> Bool {
        let n = literal.utf8CodeUnitCount
        let q = literal.utf8Start
        if n >= 8 {
            let a = UnsafeRawPointer(p), b = UnsafeRawPointer(q)
            var i = 0
            while i + 8 <= n {
                if a.loadUnaligned(fromByteOffset: i, as: UInt64.self) != b.loadUnaligned(fromByteOffset: i, as: UInt64.self) { return false }
                i += 8
            }
            return i == n || a.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self) == b.loadUnaligned(fromByteOffset: n - 8, as: UInt64.self)
        }
        for i in 0..<n where p[i] != q[i] { return false }
        return true
    }

    /// An unescaped string's content range; nil for anything else.
    @inline(__always)
    static func string(_ node: JSONTapeNode) -> (Int, Int)? {
        guard node.kind == JSONKind.string.rawValue, node.flags & JSONTapeFlag.escaped == 0 else { return nil }
        return (Int(node.start) + 1, Int(node.end) - Int(node.start) - 2)
    }

    /// An integer-written number that fits in Int64; nil for anything else.
    @inline(__always)
    static func integer(_ node: JSONTapeNode, _ base: UnsafePointer<UInt8>) -> Int64? {
        guard node.kind == JSONKind.number.rawValue, node.flags & JSONTapeFlag.nonInteger == 0 else { return nil }
        return parseInt64(node, base)
    }

    /// `Int64(text)` for a JSON integer token.
    static func parseInt64(_ node: JSONTapeNode, _ base: UnsafePointer<UInt8>) -> Int64? {
        var p = Int(node.start)
        let end = Int(node.end)
        let negative = base[p] == UInt8(ascii: "-")
        if negative { p += 1 }
        guard end - p <= 18 else { return Int64(String(decoding: UnsafeBufferPointer(start: base + Int(node.start), count: end - Int(node.start)), as: UTF8.self)) }
        var value: Int64 = 0
        while p < end {
            value = value * 10 + Int64(base[p] &- 48)
            p += 1
        }
        return negative ? -value : value
    }

    static func isLowercaseUUID(_ p: UnsafePointer<UInt8>, _ count: Int) -> Bool {
        guard count == 36 else { return false }
        for index in 0..<36 {
            let byte = p[index]
            if index == 8 || index == 13 || index == 18 || index == 23 {
                if byte != UInt8(ascii: "-") { return false }
            } else if !((48...57).contains(byte) || (97...102).contains(byte)) {
                return false
            }
        }
        return true
    }

    /// `IDHash.hash` of the bytes (the same value as for the decoded String).
    @inline(__always)
    static func hash(_ p: UnsafePointer<UInt8>, _ count: Int) -> UInt64 {
        IDHash.hash(UnsafeRawBufferPointer(start: p, count: count))
    }
}
