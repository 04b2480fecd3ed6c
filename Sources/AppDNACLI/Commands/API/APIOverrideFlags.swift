/// The flags and operands of `appdna api override`.
enum APIOverrideFlags {
    static let action = OperandSpec("ACTION", "set, clear or list", completion: .choices(["set", "clear", "list"]))
    static let override = OperandSpec("OVERRIDE", "For set: experiment:KEY=VARIANT, flag:KEY=JSON, config:KEY=JSON or onboarding:FLOW; for clear: KIND:KEY (onboarding alone for the flow)",
                                      optional: true)

    static let server = Flag.optional("server", value: "URL",
                                      "The inspector of the running api serve (the port it was given to inspect on): http://127.0.0.1:PORT",
                                      details: "The token that guards changes is read from the inspector's page (its appdna-inspector-token meta tag), as a browser does: only a process on this machine can read it.",
                                      .text)
    static let timeout = APIFlags.timeout("Bound on each request to the server", default: "10", upTo: 600)
    static let json = OutputFlags.json("Print the server's answer: the overrides in force and the served bundle_version (docs/schemas/api-overrides.schema.json)")

    static let all: [FlagSpec] = [server.spec, timeout.spec, json.spec]
}
