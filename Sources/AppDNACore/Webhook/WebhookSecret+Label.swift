/// How a message names one of the secrets a signature is checked against: by its position and
/// where it came from, never by its content (`webhook verify`, and `webhook listen`'s lines).
extension WebhookSecret {
    /// "secret 1 of 2, from --secret-file new.txt" (the source is the caller's word for it).
    public static func label(_ index: Int, _ secrets: [WebhookSecret]) -> String {
        "secret \(index + 1) of \(secrets.count), from \(secrets[index].source)"
    }

    /// `{"position": N, "source": "…"}`.
    public static func json(_ index: Int, _ secrets: [WebhookSecret]) -> JSONValue {
        ["position": .integer(index + 1), "source": .string(secrets[index].source)]
    }
}
