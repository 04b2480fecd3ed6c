// Reads the bundle through the accessors the plugin generated at build time.
struct Defaults: AppDNAValueSource {
    func bool(forKey key: String) -> Bool? { nil }
    func int(forKey key: String) -> Int? { nil }
    func double(forKey key: String) -> Double? { nil }
    func string(forKey key: String) -> String? { nil }
    func json(forKey key: String) -> String? { nil }
    func variant(forExperiment id: String) -> String? { id == "onboarding-v2" ? "streamlined" : nil }
}
let config = AppDNAConfig(source: Defaults())
print(config.welcomeMessage, config.maxItems, config.darkMode, String(describing: config.experiments.onboardingV2!), AppDNAIDs.Paywalls.premiumAnnual)
