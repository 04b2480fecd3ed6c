/// The whole command-line surface: global flags, command groups and commands.
/// `CommandTable.appdna` (in Commands/) is the single instance the binary uses.
public struct CommandTable: Sendable {
    public let programName: String
    public let version: String
    public let summary: String
    public let globalFlags: [FlagSpec]
    public let groups: [GroupSpec]
    public let commands: [CommandSpec]
    /// Environment variables the tool reads, with what each is for and which commands read it.
    public let environment: [EnvironmentSpec]

    public init(programName: String, version: String, summary: String, globalFlags: [FlagSpec],
                groups: [GroupSpec], commands: [CommandSpec], environment: [EnvironmentSpec]) {
        self.programName = programName
        self.version = version
        self.summary = summary
        self.globalFlags = globalFlags
        self.groups = groups
        self.commands = commands
        self.environment = environment
    }

    public var visibleCommands: [CommandSpec] { commands.filter { !$0.hidden } }

    public func command(_ path: [String]) -> CommandSpec? {
        commands.first { $0.path == path }
    }

    public func group(_ name: String) -> GroupSpec? {
        groups.first { $0.name == name }
    }

    /// Commands directly below a group (`bundle` → fetch, validate, diff).
    public func commands(inGroup name: String) -> [CommandSpec] {
        visibleCommands.filter { $0.path.count == 2 && $0.path[0] == name }
    }

    /// The words that may follow `appdna` directly: groups and top-level commands, in table order.
    public var topLevelWords: [(word: String, summary: String)] {
        var words: [(String, String)] = []
        for command in visibleCommands {
            let first = command.path[0]
            if words.contains(where: { $0.0 == first }) { continue }
            if command.path.count > 1, let group = group(first) {
                words.append((first, group.summary))
            } else if command.path.count == 1 {
                words.append((first, command.summary))
            }
        }
        return words
    }

    /// The variables `command` reads itself (not those every command honours, like NO_COLOR).
    public func environment(for command: CommandSpec) -> [EnvironmentSpec] {
        environment.filter { $0.usedBy.contains(command.path) }
    }

    /// Every flag a command accepts, its own first, then the global ones.
    public func allFlags(for command: CommandSpec?) -> [FlagSpec] {
        (command?.flags ?? []) + globalFlags
    }
}
