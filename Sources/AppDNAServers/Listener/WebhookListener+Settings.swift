import AppDNACore
import AppDNANet

extension WebhookListener {
    /// What the listener obeys, from the command's plan (`WebhookListenPlan` in the CLI).
    public struct Settings: Sendable {
        /// Checks every delivery; the first also signs an edited replay from the inspector.
        public let secrets: [WebhookSecret]
        /// The handler's http(s) URL; nil answers a valid delivery 200 itself.
        public let target: String?
        public let forwardInvalid: Bool
        /// In seconds.
        public let forwardTimeout: Double
        /// The client the forwards go out with (no retries, redirects handed back).
        public let client: HTTPClient
        /// The record file, already open; nil records nothing.
        public let recorder: DeliveryRecorder?
        /// The CLI's words for what names a flag.
        public let words: ListenWords

        public init(secrets: [WebhookSecret], target: String?, forwardInvalid: Bool, forwardTimeout: Double, client: HTTPClient,
                    recorder: DeliveryRecorder?, words: ListenWords) {
            self.secrets = secrets
            self.target = target
            self.forwardInvalid = forwardInvalid
            self.forwardTimeout = forwardTimeout
            self.client = client
            self.recorder = recorder
            self.words = words
        }
    }
}
