/// Why the ingest API would reject an event (platform facts §5), found by checking one event.
public struct SchemaFinding: Sendable, Equatable {
    /// Stable: `missing-field`, `wrong-type`, `null-field`, `not-lowercase-uuid`, `empty`,
    /// `negative`, `schema-version`.
    public let code: String
    /// JSON Pointer of the offending field.
    public let pointer: String
    public let message: String
}

/// The fields `queue inspect` and `replay` need from one event, read in one walk that also
/// checks the event schema (schema_version 1): required `event_id` (lowercase UUID),
/// `event_name`, integer `ts_ms`, `user.anon_id`; the types of every optional field, which
/// are omitted rather than null.
public struct EventFields {
    public var eventID: String?
    public var name: String?
    public var timestamp: Int64?
    public var anonID: String?
    public var userID: String?
    public var sessionID: String?
    public var platform: String?
    public var sdkVersion: String?
    public var clientSeq: Int64?
    /// `privacy.consent.analytics`.
    public var analyticsConsent: Bool?
    /// `properties.count` (for `_sdk_events_dropped`).
    public var propertiesCount: Int64?
    public var findings: [SchemaFinding] = []

    public var rejected: Bool { !findings.isEmpty }

    public static let droppedEventName = "_sdk_events_dropped"

    public init(_ event: JSONNode) {
        guard event.kind == .object else {
            findings.append(SchemaFinding(code: "wrong-type", pointer: "", message: "the event is a \(event.kind), not an object"))
            return
        }
        var sawID = false, sawName = false, sawTimestamp = false, sawUser = false
        for member in event.members {
            let value = member.value
            switch member.key {
            case "schema_version":
                if let version = integer(value, "/schema_version"), version != 1 {
                    findings.append(SchemaFinding(code: "schema-version", pointer: "/schema_version", message: "schema_version \(version); only 1 is defined"))
                }
            case "event_id":
                sawID = true
                if let id = string(value, "/event_id") {
                    eventID = id
                    if !Self.isLowercaseUUID(id) {
                        findings.append(SchemaFinding(code: "not-lowercase-uuid", pointer: "/event_id",
                                                      message: "event_id \(Self.quoted(id)) is not a lowercase UUID"))
                    }
                }
            case "event_name":
                sawName = true
                if let text = string(value, "/event_name") {
                    name = text
                    if text.isEmpty { findings.append(SchemaFinding(code: "empty", pointer: "/event_name", message: "event_name is empty")) }
                }
            case "ts_ms":
                sawTimestamp = true
                if let ms = integer(value, "/ts_ms") {
                    timestamp = ms
                    if ms < 0 { findings.append(SchemaFinding(code: "negative", pointer: "/ts_ms", message: "ts_ms is negative (\(ms))")) }
                }
            case "user":
                sawUser = true
                guard object(value, "/user") else { continue }
                var sawAnon = false
                for field in value.members {
                    switch field.key {
                    case "anon_id":
                        sawAnon = true
                        if let text = string(field.value, "/user/anon_id") {
                            anonID = text
                            if text.isEmpty { findings.append(SchemaFinding(code: "empty", pointer: "/user/anon_id", message: "user.anon_id is empty")) }
                        }
                    case "user_id": userID = string(field.value, "/user/user_id")
                    default: break
                    }
                }
                if !sawAnon { findings.append(SchemaFinding(code: "missing-field", pointer: "/user/anon_id", message: "user.anon_id is missing")) }
            case "device":
                guard object(value, "/device") else { continue }
                for field in value.members {
                    switch field.key {
                    case "platform": platform = string(field.value, "/device/platform")
                    case "sdk_version": sdkVersion = string(field.value, "/device/sdk_version")
                    case "os", "app_version", "locale", "country":
                        if field.value.kind != .string { _ = string(field.value, "/device/" + field.key) }
                    case "bundle_version": _ = integer(field.value, "/device/bundle_version")
                    default: break
                    }
                }
            case "context":
                guard object(value, "/context") else { continue }
                for field in value.members {
                    switch field.key {
                    case "session_id": sessionID = string(field.value, "/context/session_id")
                    case "screen": if field.value.kind != .string { _ = string(field.value, "/context/screen") }
                    case "client_seq":
                        clientSeq = integer(field.value, "/context/client_seq")
                        if let seq = clientSeq, seq < 0 {
                            findings.append(SchemaFinding(code: "negative", pointer: "/context/client_seq", message: "client_seq is negative (\(seq))"))
                        }
                    case "experiment_exposures":
                        guard kind(field.value, .array, "/context/experiment_exposures") else { continue }
                        var index = 0
                        for exposure in field.value.elements {
                            defer { index += 1 }
                            guard object(exposure, "/context/experiment_exposures/\(index)") else { continue }
                            var sawExp = false, sawVariant = false
                            for item in exposure.members {
                                if item.key == "exp" {
                                    sawExp = true
                                    _ = string(item.value, "/context/experiment_exposures/\(index)/exp")
                                } else if item.key == "variant" {
                                    sawVariant = true
                                    _ = string(item.value, "/context/experiment_exposures/\(index)/variant")
                                }
                            }
                            for (key, seen) in [("exp", sawExp), ("variant", sawVariant)] where !seen {
                                let pointer = "/context/experiment_exposures/\(index)"
                                findings.append(SchemaFinding(code: "missing-field", pointer: pointer + "/" + key, message: "\(pointer.dropFirst()) has no \(key)"))
                            }
                        }
                    default: break
                    }
                }
            case "properties":
                guard object(value, "/properties") else { continue }
                if let count = value["count"], count.isInteger { propertiesCount = count.int64 }
            case "privacy":
                guard object(value, "/privacy") else { continue }
                if let consent = value["consent"], object(consent, "/privacy/consent"), let analytics = consent["analytics"],
                   kind(analytics, .bool, "/privacy/consent/analytics") {
                    analyticsConsent = analytics.bool
                }
            default: break
            }
        }
        if !sawID { findings.append(SchemaFinding(code: "missing-field", pointer: "/event_id", message: "event_id is missing")) }
        if !sawName { findings.append(SchemaFinding(code: "missing-field", pointer: "/event_name", message: "event_name is missing")) }
        if !sawTimestamp { findings.append(SchemaFinding(code: "missing-field", pointer: "/ts_ms", message: "ts_ms is missing")) }
        if !sawUser { findings.append(SchemaFinding(code: "missing-field", pointer: "/user", message: "user (with anon_id) is missing")) }
    }

    private mutating func kind(_ node: JSONNode, _ expected: JSONKind, _ pointer: @autoclosure () -> String) -> Bool {
        let actual = node.kind
        if actual == expected { return true }
        let pointer = pointer()
        let field = pointer.dropFirst().replacingSlashes()
        if actual == .null {
            findings.append(SchemaFinding(code: "null-field", pointer: pointer, message: "\(field) is null (optional fields are omitted, not null)"))
        } else {
            findings.append(SchemaFinding(code: "wrong-type", pointer: pointer, message: "\(field) is a \(actual), not a\(expected == .array || expected == .object || expected == .number ? "n" : "") \(expected)"))
        }
        return false
    }

    private mutating func string(_ node: JSONNode, _ pointer: @autoclosure () -> String) -> String? {
        kind(node, .string, pointer()) ? node.string : nil
    }

    private mutating func object(_ node: JSONNode, _ pointer: @autoclosure () -> String) -> Bool { kind(node, .object, pointer()) }

    private mutating func integer(_ node: JSONNode, _ pointer: @autoclosure () -> String) -> Int64? {
        guard kind(node, .number, pointer()) else { return nil }
        if let value = node.int64 ?? node.numberText.flatMap(JSONNumber.integralInt64) { return value }
        let pointer = pointer()
        let field = pointer.dropFirst().replacingSlashes()
        findings.append(SchemaFinding(code: "wrong-type", pointer: pointer,
                                      message: "\(field) is \(node.numberText ?? "?"), not an integer"))
        return nil
    }

    /// 8-4-4-4-12 digits and lowercase a-f.
    public static func isLowercaseUUID(_ text: String) -> Bool {
        var count = 0
        for (index, byte) in text.utf8.enumerated() {
            count += 1
            if index == 8 || index == 13 || index == 18 || index == 23 {
                if byte != UInt8(ascii: "-") { return false }
            } else if !((48...57).contains(byte) || (97...102).contains(byte)) {
                return false
            }
        }
        return count == 36
    }

    static func quoted(_ text: String) -> String {
        var out: [UInt8] = []
        JSONWriter.appendQuoted(text.count > 60 ? String(text.prefix(60)) + "…" : text, to: &out)
        return String(decoding: out, as: UTF8.self)
    }
}

extension Substring {
    /// `user/anon_id` → `user.anon_id`, the way people name fields.
    func replacingSlashes() -> String { String(map { $0 == "/" ? "." : $0 }) }
}
