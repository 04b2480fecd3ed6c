import AppDNACore
import AppDNANet

/// Where a device pointed at `api serve` gets its bootstrap (issue 51.3; platform facts §7):
/// `live` answers it from the live API with the SDK key, so the device reads its real config
/// from Firestore; `local` refuses it with 403, which stops the SDK's retries for the session
/// (iOS 1.0.82), so the device stays on its cache and its bundled appdna-config.json (which
/// `--write-bundled` keeps equal to the served bundle).
enum BootstrapMode: String, CaseIterable, Sendable {
    case local, live
}

/// `api serve`'s answers to the SDK's own calls beside ingest: bootstrap (by the mode),
/// identify (accepted), and every other call §7 lists, logged by its name and refused with
/// 404 as by a server without that feature (none of them carries config).
struct SDKEndpoints: Sendable {
    let mode: BootstrapMode
    /// The live bootstrap as the live API answers it (`live` only).
    let fetchLive: (@Sendable () throws -> HTTPResponse)?

    /// The live API, with the SDK key (APPDNA_SDK_KEY: --key-file is the key devices must send) and APPDNA_API_URL;
    /// each bootstrap bounded as the SDK bounds its own (15 s).
    static func liveFetcher(_ invocation: Invocation) throws -> @Sendable () throws -> HTTPResponse {
        let key = try APIAccess.key(keyFile: nil, environment: invocation.io.environment)
        let base = try APIAccess.baseURL(invocation.io.environment)
        let client = try APIAccess.client(invocation, retries: 1, maxResponseBytes: 1 << 20)
        let api = AppDNAAPI(base: base, key: key, client: client)
        return { try api.get(SDKBootstrap.path, deadline: Deadline(secondsFromNow: 15, clock: client.clock)) }
    }

    func bootstrap() -> ServeAnswer {
        guard mode == .live, let fetchLive else {
            return ServeAnswer(response: ServeAnswer.jsonError(403, "appdna api serve --bootstrap local: no bootstrap here, so the SDK stays on its cache and its bundled appdna-config.json"),
                               endpoint: "bootstrap", note: "refused (local): the SDK stops retrying for this session and runs on its cache or bundled config")
        }
        let live: HTTPResponse
        do { live = try fetchLive() } catch {
            let message = "the live bootstrap failed: \(FlagWording.message(for: error))"
            return ServeAnswer(response: ServeAnswer.jsonError(502, message), endpoint: "bootstrap", note: message)
        }
        guard live.status == 200 else {
            // The live refusal as it came (a 401 or 403 stops the SDK's retries, as it would there).
            return ServeAnswer(response: HTTPServer.Response(status: live.status, headers: [("Content-Type", "application/json")], body: live.body),
                               endpoint: "bootstrap", note: "the live API answered \(live.status)")
        }
        let problems: [String]
        do { problems = SDKBootstrap.problems(try JSONDocument(bytes: live.body).root) } catch {
            problems = ["the answer is not JSON: \(error.message)"]
        }
        guard problems.isEmpty else {
            let message = "the live bootstrap would not decode on devices: " + problems.joined(separator: "; ")
            return ServeAnswer(response: ServeAnswer.jsonError(502, message), endpoint: "bootstrap", note: message)
        }
        return ServeAnswer(response: HTTPServer.Response(status: 200, headers: [("Content-Type", "application/json")], body: live.body),
                           endpoint: "bootstrap", note: "live, passed on (\(live.body.count) bytes)")
    }

    /// `POST /api/v1/sdk/identify`: the device's assignment follows the id it identifies with,
    /// whatever this answers; accepted when the body is a JSON object.
    func identify(_ request: HTTPServer.Request) -> ServeAnswer {
        guard let document = try? JSONDocument(bytes: request.body), document.root.kind == .object else {
            return ServeAnswer(response: ServeAnswer.jsonError(400, "the body is not a JSON object"), endpoint: "identify", note: "not a JSON object")
        }
        return ServeAnswer(response: HTTPServer.Response(status: 200, headers: [("Content-Type", "application/json")], body: Array("{}\n".utf8)),
                           endpoint: "identify", note: "accepted (\(request.body.count) bytes)")
    }

    /// A call the SDK makes that carries no config (billing, push, feedback, geocode, option sets).
    func other(_ endpoint: ServeEndpoint) -> ServeAnswer {
        ServeAnswer(response: ServeAnswer.jsonError(404, "appdna api serve does not serve \(endpoint.rawValue)"),
                    endpoint: endpoint.rawValue, note: "an SDK call api serve does not serve (no config travels on it)")
    }
}
