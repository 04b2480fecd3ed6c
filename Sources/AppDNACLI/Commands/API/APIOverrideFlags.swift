/// The flags and operands of `appdna api override`.
enum APIOverrideFlags {
    static let action = OperandSpec("ACTION", "set, clear or list", completion: .choices(["set", "clear", "list"]))
    static let override = OperandSpec("OVERRIDE", "For set: experiment:KEY=VARIANT, flag:KEY=JSON, config:KEY=JSON or onboarding:FLOW; for clear: KIND:KEY (onboarding alone for the flow), or --all",
                                      optional: true)

    static let server = Flag.optional("server", value: "URL",
                                      "The inspector of the running api serve (the port it was given to inspect on): http://127.0.0.1:PORT",
                                      details: "Without it, APPDNA_SERVER; without that, the one api serve with an inspector running for this user (each notes its inspector's address and pid in $XDG_RUNTIME_DIR/appdna, else ~/.appdna/run, while it runs). The token that guards changes is read from the inspector's page (its appdna-inspector-token meta tag), as a browser does: only a process on this machine can read it.",
                                      .text)
    static let clearAll = Flag.switch("all", "With clear: clear every override in force, in one request")
    static let timeout = APIFlags.timeout("Bound on each request to the server", default: "10", upTo: 600)
    static let json = OutputFlags.json("Print the server's answer: the overrides in force and the served bundle_version (docs/schemas/api-overrides.schema.json)")

    static let all: [FlagSpec] = [server.spec, clearAll.spec, timeout.spec, json.spec]
}
