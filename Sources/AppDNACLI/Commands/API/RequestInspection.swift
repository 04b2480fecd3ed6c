import AppDNACore
import AppDNANet
import AppDNAServers

/// `api serve --inspect PORT`: the inspector beside the local API, with its bundle and overrides.
enum RequestInspection {
    /// Starts the inspector the plan's `--inspect` settings describe beside `api serve`'s `listener`.
    static func start(_ settings: InspectorServer.Settings, listener: HTTPServer, log: ServeLog, bundle: ServedBundle, bootstrap: BootstrapMode) throws -> InspectorServer {
        var site = InspectorServer.Site(kind: "api", collection: "requests",
                                        listener: ["address": .string(listener.baseURL), "bootstrap": .string(bootstrap.rawValue)])
        site.bundle = { request in OverrideAPI.answer(request, bundle: bundle, note: log.note, words: { FlagWording.message(for: $0) },
                                                      identity: { body in try IdentityAPI.answer(body: body, bundle: bundle) }) }
        site.listenerDescription = ServerDescriptions.serve
        return try InspectorLaunch.start(settings, site: site, noun: "requests", note: { log.note($0) })
    }
}
