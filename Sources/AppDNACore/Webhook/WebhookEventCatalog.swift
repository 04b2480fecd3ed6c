/// The documented webhook event types, with a realistic demo delivery for each, for
/// `webhook trigger`. The docs' event table lists these 16; the delivery-format example uses
/// `payment.completed`, which is included too. Types are never rejected elsewhere (the two docs
/// pages disagree); for any other type, `trigger --body FILE` sends the file.
public enum WebhookEventCatalog {
    public struct EventType: Sendable {
        public let name: String
        public let summary: String
        /// The `data` object of the demo delivery.
        public let data: JSONObject
    }

    /// Fixed demo values, so examples and tests print the same bytes every time.
    public static let demoUser = "user_demo_42"
    public static let demoTime = "2026-02-19T10:00:00Z"

    public static let all: [EventType] = [
        EventType(name: "user.created", summary: "A new (anonymous) user was seen for the first time",
                  data: ["user_id": .string(demoUser), "anonymous_id": "anon_7f3c2a91", "platform": "ios", "app_version": "3.4.1", "country": "US"]),
        EventType(name: "user.identified", summary: "identify(userId:) linked an anonymous id to a user id",
                  data: ["user_id": .string(demoUser), "anonymous_id": "anon_7f3c2a91", "traits": ["plan": "free", "email_opt_in": true]]),
        EventType(name: "user.trait_updated", summary: "A user trait changed",
                  data: ["user_id": .string(demoUser), "trait": "plan", "old_value": "free", "new_value": "pro"]),
        EventType(name: "subscription.started", summary: "A subscription began (paid or trial)",
                  data: subscription(["is_trial": false])),
        EventType(name: "subscription.renewed", summary: "A subscription renewed for another period",
                  data: subscription(["renewal_count": 3])),
        EventType(name: "subscription.cancelled", summary: "Auto-renew was turned off; access lasts until the period ends",
                  data: subscription(["reason": "user_cancelled"])),
        EventType(name: "subscription.expired", summary: "A subscription ended and access stopped",
                  data: subscription(["reason": "billing_error"])),
        EventType(name: "experiment.exposure", summary: "A user saw an experiment variant",
                  data: experiment([:])),
        EventType(name: "experiment.conversion", summary: "A user in an experiment reached its goal event",
                  data: experiment(["goal_event": "purchase_completed", "value": .decimal(9.99), "currency": "USD"])),
        EventType(name: "paywall.presented", summary: "A paywall was shown",
                  data: paywall([:])),
        EventType(name: "paywall.dismissed", summary: "A paywall was closed without a purchase",
                  data: paywall(["seconds_visible": 14])),
        EventType(name: "paywall.purchase_started", summary: "A purchase began from a paywall",
                  data: paywall(["product_id": "pro_annual"])),
        EventType(name: "paywall.purchase_completed", summary: "A purchase from a paywall succeeded",
                  data: paywall(["product_id": "pro_annual", "price": .decimal(59.99), "currency": "USD", "transaction_id": "txn_demo_1001"])),
        EventType(name: "push.delivered", summary: "A push notification reached the device",
                  data: push([:])),
        EventType(name: "push.opened", summary: "A user opened a push notification",
                  data: push(["action": "open_app"])),
        EventType(name: "onboarding.completed", summary: "A user finished an onboarding flow",
                  data: ["user_id": .string(demoUser), "flow_id": "onboarding_v2", "steps_completed": 5, "duration_seconds": 73]),
        EventType(name: "payment.completed", summary: "A payment succeeded (the type in the docs' delivery example)",
                  data: ["user_id": .string(demoUser), "amount": .decimal(59.99), "currency": "USD", "transaction_id": "txn_demo_1001"]),
    ]

    public static func named(_ name: String) -> EventType? {
        all.first { $0.name == name }
    }

    /// `evt_demo_subscription_renewed`
    public static func demoID(_ type: String) -> String {
        "evt_demo_" + String(type.map { $0.isLetter || $0.isNumber ? $0 : "_" })
    }

    /// The delivery body AppDNA sends: `{"id", "type", "created_at", "data"}`, compact JSON.
    public static func body(type: String, id: String, createdAt: String, data: JSONObject) -> [UInt8] {
        JSONWriter().write(["id": .string(id), "type": .string(type), "created_at": .string(createdAt), "data": .object(data)])
    }

    static func subscription(_ extra: JSONObject) -> JSONObject {
        merged(["user_id": .string(demoUser), "product_id": "pro_monthly", "store": "app_store",
                "price": .decimal(9.99), "currency": "USD", "period_end": "2026-03-19T10:00:00Z"], extra)
    }

    static func experiment(_ extra: JSONObject) -> JSONObject {
        merged(["user_id": .string(demoUser), "experiment_id": "exp_paywall_v3", "variant": "variant_b", "bucket": 7421], extra)
    }

    static func paywall(_ extra: JSONObject) -> JSONObject {
        merged(["user_id": .string(demoUser), "paywall_id": "pw_annual_focus", "placement": "onboarding_end",
                "experiment_id": "exp_paywall_v3", "variant": "variant_b"], extra)
    }

    static func push(_ extra: JSONObject) -> JSONObject {
        merged(["user_id": .string(demoUser), "campaign_id": "camp_winback_03", "message_id": "msg_demo_88", "platform": "ios"], extra)
    }

    static func merged(_ base: JSONObject, _ extra: JSONObject) -> JSONObject {
        var result = base
        for member in extra { result[member.key] = member.value }
        return result
    }
}
