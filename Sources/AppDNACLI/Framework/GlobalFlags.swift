/// The flags every command takes, declared once; `GlobalOptions` reads them, the parser
/// answers --help and --version itself.
public enum GlobalFlags {
    public enum ColorChoice: String, CaseIterable, Sendable { case auto, always, never }

    public static let color = Flag.defaulted("color", value: "WHEN", "When to colour output", default: "auto", .choice(ColorChoice.self))
    public static let quiet = Flag.switch("quiet", short: "q", "Print only errors and warnings on stderr")
    public static let verbose = Flag.switch("verbose", short: "v", "Print more detail on stderr")
    public static let noInput = Flag.switch("no-input", "Never ask for confirmation; fail instead")
    public static let help = Flag.switch("help", short: "h", "Show help: -h the short help (usage, options, examples), --help the full text")
    public static let version = Flag.switch("version", "Show the version")

    public static let all: [FlagSpec] = [color.spec, quiet.spec, verbose.spec, noInput.spec, help.spec, version.spec]
}
