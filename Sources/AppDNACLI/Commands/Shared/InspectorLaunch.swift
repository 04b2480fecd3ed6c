import AppDNACore
import AppDNANet
import AppDNAServers

/// `--inspect PORT`, `--inspect-keep` and `--inspect-max-bytes`: read once when a command makes
/// its plan, and the inspector (AppDNAServers) started as they ask, its failures worded with
/// the flag.
enum InspectorLaunch {
    /// Nil without `--inspect`; a usage error when its companions come without it.
    static func settings(_ arguments: ParsedArguments, inspect: Flag<Int?>, keep: Flag<Int>, maxBytes: Flag<Int>) throws -> InspectorServer.Settings? {
        guard let port = arguments[inspect] else {
            for flag in [keep.spec, maxBytes.spec] where arguments.given(flag) { throw Failure(.usage, "--\(flag.long) goes with --inspect PORT") }
            return nil
        }
        return InspectorServer.Settings(port: port, keep: arguments[keep], maxBytes: arguments[maxBytes])
    }

    /// Starts the inspector that `--inspect PORT` asks for (nil without it), noting its URL;
    /// `noun` is what it lists ("deliveries").
    static func start(_ arguments: ParsedArguments, inspect: Flag<Int?>, keep: Flag<Int>, maxBytes: Flag<Int>, site: InspectorServer.Site, noun: String,
                      note: (String) -> Void) throws -> InspectorServer? {
        guard let settings = try settings(arguments, inspect: inspect, keep: keep, maxBytes: maxBytes) else { return nil }
        return try start(settings, site: site, noun: noun, note: note)
    }

    /// Starts the inspector `settings` describe, noting its URL.
    static func start(_ settings: InspectorServer.Settings, site: InspectorServer.Site, noun: String, note: (String) -> Void) throws -> InspectorServer {
        let inspector: InspectorServer
        do {
            inspector = try InspectorServer.launch(settings, site: site)
        } catch {
            // Its own flag in the hint: the listener's --port is not the one to change.
            throw Failure(error.kind, "--inspect: \(error.message)",
                          hint: error.remedy == .otherPort ? "another program uses that port; pick another with --inspect (0 picks a free one)" : error.hint)
        }
        note("inspector at \(inspector.url) (the last \(settings.keep) \(noun))")
        return inspector
    }
}
