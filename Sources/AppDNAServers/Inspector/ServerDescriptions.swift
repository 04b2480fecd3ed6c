import AppDNACore
import AppDNANet

/// The OpenAPI 3.1 descriptions of the servers (`OpenAPIDescription`), each generated from its
/// route table: `webhook listen`, `api serve` and their inspectors. Each inspector serves its own
/// (`/api/openapi.json`) and its listener's (`/api/listener-openapi.json`); `committed` are the
/// files under docs/openapi/, which GeneratedFilesTests keeps equal to the tables.
public enum ServerDescriptions {
    /// `{"error": MESSAGE}`: how the inspector and `api serve` refuse.
    static let jsonError = RouteContent.json("http-error.schema.json")

    public static let listen = OpenAPIDescription(
        title: "appdna webhook listen",
        summary: "A local endpoint for webhook deliveries: each POST is checked against X-AppDNA-Signature, recorded, and "
            + "forwarded to the handler it is told to forward to (docs/webhooks.md). Requests are refused at their head, before their body is read.",
        refusal: RouteContent("text/plain", schema: nil)).document(ListenRoutes.table)

    public static let serve = OpenAPIDescription(
        title: "appdna api serve",
        summary: "The AppDNA SDK API on your machine: the config bundle, its version, and event ingest (docs/local-api.md). "
            + "Every request carries x-api-key; requests are refused at their head, before their body is read.",
        refusal: jsonError).document(ServeRoutes.table)

    /// The description of an inspector (`kind`: webhook or api) with this table.
    static func inspector(_ table: RouteTable<InspectorEndpoint>, kind: String) -> JSONValue {
        OpenAPIDescription(
            title: kind == "api" ? "appdna api serve: the inspector" : "appdna webhook listen: the inspector",
            summary: "The inspector's page and JSON API, on 127.0.0.1 only: every request must name it in Host (403 otherwise); "
                + "an action (replay, override, refetch) carries the page's token and no other Origin (docs/webhooks.md, docs/local-api.md).",
            refusal: jsonError).document(table)
    }

    /// The committed descriptions: (path in the repository, document).
    public static var committed: [(path: String, document: JSONValue)] {
        [("docs/openapi/webhook-listen.json", listen),
         ("docs/openapi/webhook-listen-inspector.json",
          inspector(InspectorRoutes.table(collection: "deliveries", record: true, replay: true), kind: "webhook")),
         ("docs/openapi/api-serve.json", serve),
         ("docs/openapi/api-serve-inspector.json",
          inspector(InspectorRoutes.table(collection: "requests", record: false, replay: false, bundle: true), kind: "api"))]
    }
}
