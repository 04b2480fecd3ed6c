import AppDNACore

/// The flags and operands of `appdna api override`.
enum APIOverrideFlags {
    static let action = OperandSpec("ACTION", "set, clear, list, or identity (a user id devices assign the variant)", completion: .choices(["set", "clear", "list", "identity"]))
    static let override = OperandSpec("OVERRIDE", "For set: \(BundleOverride.Kind.syntaxes); for clear: KIND:KEY (KIND \(BundleOverride.Kind.names); onboarding alone for the flow); or --all; for identity: \(BundleOverride.Kind.experiment.syntax)",
                                      optional: true)

    static let server = Flag.optional("server", value: "URL",
                                      "The inspector of the running api serve (the port it was given to inspect on): http://127.0.0.1:PORT",
                                      details: "Without it, APPDNA_SERVER; without that, the one api serve with an inspector running for this user (each notes its inspector's address and pid in $XDG_RUNTIME_DIR/appdna, else ~/.appdna/run, while it runs). The token that guards changes is read from the inspector's page (its appdna-inspector-token meta tag), as a browser does: only a process on this machine can read it.",
                                      .text)
    static let clearAll = Flag.switch("all", "With clear: clear every override in force, in one request")
    static let timeout = APIFlags.timeout("Bound on each request to the server", default: "10", upTo: 600)
    static let json = OutputFlags.json("Print the server's answer: the overrides in force and the served bundle_version (docs/schemas/api-overrides.schema.json)")

    /// identity's device context, spelled as `bucket` spells it.
    static let platform = Flag.optional("platform", value: "NAME", "For identity: the device platform (ios, android or web, any case)",
                                        .choice(DevicePlatform.self, ignoringCase: true))
    static let country = Flag.optional("country", value: "CODE", "For identity: the device's ISO 3166 alpha-2 country", .text)
    static let appVersion = Flag.optional("app-version", value: "VERSION", "For identity: the app version", .text)
    static let trait = Flag.repeated("trait", value: "KEY=VALUE", "For identity: a user trait", .keyValue)
    static let installedAt = Flag.optional("installed-at", value: "TIME", "For identity: install time (ms since 1970, or ISO 8601)", .time)
    static let context = [platform.spec, country.spec, appVersion.spec, trait.spec, installedAt.spec]

    static let all: [FlagSpec] = [server.spec, clearAll.spec, timeout.spec, json.spec] + context
}
