/// Checks that a body looks like an AppDNA webhook delivery: a JSON object with `id`,
/// `type`, `created_at` and `data` (platform facts §6). Warnings only, never a verdict: the
/// signature is about bytes, and the two docs pages list different event types, so unknown
/// `type` values are fine.
public enum WebhookBodyShape {
    /// Parsing builds a tree; the CLI keeps at most this much of a body for the check.
    public static let maxCheckedBytes = 16 << 20

    public struct Warning: Sendable, Equatable {
        /// Stable identifier, part of `--json` output: `not-json`, `not-object`,
        /// `missing-field`, `wrong-type`, `bad-created-at`.
        public let code: String
        public let message: String

        public init(code: String, message: String) {
            self.code = code
            self.message = message
        }
    }

    static let fields: [(name: String, kind: JSONKind)] = [
        ("id", .string), ("type", .string), ("created_at", .string), ("data", .object),
    ]

    public static func check(_ body: [UInt8]) -> [Warning] {
        let document: JSONDocument
        do {
            document = try JSONDocument(bytes: body)
        } catch {
            return [Warning(code: "not-json", message: "the body is not JSON (\(error.message)); AppDNA webhook bodies are JSON objects")]
        }
        let root = document.root
        guard root.kind == .object else {
            return [Warning(code: "not-object", message: "the body is a JSON \(root.kind), not an object with id, type, created_at and data")]
        }
        var warnings: [Warning] = []
        for field in fields {
            guard let node = root[field.name] else {
                warnings.append(Warning(code: "missing-field", message: "the body has no \"\(field.name)\" field (AppDNA webhook bodies have id, type, created_at and data)"))
                continue
            }
            if node.kind != field.kind {
                warnings.append(Warning(code: "wrong-type", message: "\"\(field.name)\" is a \(node.kind); AppDNA sends a\(field.kind == .object ? "n" : "") \(field.kind)"))
                continue
            }
            if field.name == "created_at", let text = node.string, Timestamp.milliseconds(from: text) == nil {
                warnings.append(Warning(code: "bad-created-at", message: "\"created_at\" is not an ISO 8601 time (AppDNA sends e.g. 2026-02-19T10:00:00Z)"))
            }
        }
        return warnings
    }

    /// The body's `type`, when it is a JSON object with a string `type` (for comparing with
    /// a request dump's `X-AppDNA-Event` header).
    public static func eventType(_ body: [UInt8]) -> String? {
        guard let document = try? JSONDocument(bytes: body), document.root.kind == .object else { return nil }
        return document.root["type"]?.string
    }
}
