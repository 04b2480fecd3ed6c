import AppDNACore
import AppDNANet

/// Where a device pointed at `api serve` gets its bootstrap (issue 51.3; platform facts §7):
/// `live` answers it from the live API with the SDK key, so the device reads its real config
/// from Firestore; `local` refuses it with 403, which stops the SDK's retries for the session
/// (iOS 1.0.82), so the device stays on its cache and its bundled appdna-config.json (which
/// `--write-bundled` keeps equal to the served bundle).
public enum BootstrapMode: String, CaseIterable, Sendable {
    case local, live
}

/// `api serve`'s answers to the SDK's own calls beside ingest: bootstrap (by the mode),
/// identify (accepted), and every other call §7 lists, logged by its name and refused with
/// 404 as by a server without that feature (none of them carries config).
public struct SDKEndpoints: Sendable {
    let mode: BootstrapMode
    /// The live bootstrap as the live API answers it (`live` only; the CLI fetches it with the
    /// SDK key, bounded as the SDK bounds its own).
    let fetchLive: (@Sendable () throws -> HTTPResponse)?

    public init(mode: BootstrapMode, fetchLive: (@Sendable () throws -> HTTPResponse)?) {
        self.mode = mode
        self.fetchLive = fetchLive
    }

    func bootstrap(words: ServeWords) -> ServeOutcome.Answer {
        func refuse(_ refusal: ServeRefusal) -> ServeOutcome.Answer {
            ServeOutcome.Answer(endpoint: .bootstrap, response: ServeOutcome.jsonError(refusal.status, refusal.message(words)), result: .refused(refusal))
        }
        guard mode == .live, let fetchLive else { return refuse(.bootstrapLocal) }
        let live: HTTPResponse
        do { live = try fetchLive() } catch {
            return refuse(.bootstrapLive(.failed(words.error(error))))
        }
        guard live.status == 200 else {
            // The live refusal as it came (a 401 or 403 stops the SDK's retries, as it would there).
            return ServeOutcome.Answer(endpoint: .bootstrap, response: HTTPServer.Response(status: live.status, headers: [("Content-Type", "application/json")], body: live.body),
                                       result: .refused(.bootstrapLive(.refused(status: live.status))))
        }
        let problems: [String]
        do { problems = SDKBootstrap.problems(try JSONDocument(bytes: live.body).root) } catch {
            problems = ["the answer is not JSON: \(error.message)"]
        }
        guard problems.isEmpty else { return refuse(.bootstrapLive(.undecodable(problems))) }
        return ServeOutcome.Answer(endpoint: .bootstrap, response: HTTPServer.Response(status: 200, headers: [("Content-Type", "application/json")], body: live.body),
                                   result: .sdk(.bootstrapPassedOn(bytes: live.body.count)))
    }

    /// `POST /api/v1/sdk/identify`: the device's assignment follows the id it identifies with,
    /// whatever this answers; accepted when the body is a JSON object.
    func identify(_ request: HTTPServer.Request, words: ServeWords) -> ServeOutcome.Answer {
        guard let document = try? JSONDocument(bytes: request.body), document.root.kind == .object else {
            let refusal = ServeRefusal.notAJSONObject
            return ServeOutcome.Answer(endpoint: .identify, response: ServeOutcome.jsonError(refusal.status, refusal.message(words)), result: .refused(refusal))
        }
        return ServeOutcome.Answer(endpoint: .identify, response: HTTPServer.Response(status: 200, headers: [("Content-Type", "application/json")], body: Array("{}\n".utf8)),
                                   result: .sdk(.identified(bytes: request.body.count)))
    }

    /// A call the SDK makes that carries no config (billing, push, feedback, geocode, option sets).
    func other(_ endpoint: ServeEndpoint, words: ServeWords) -> ServeOutcome.Answer {
        let refusal = ServeRefusal.sdkCallNotServed(endpoint)
        return ServeOutcome.Answer(endpoint: endpoint, response: ServeOutcome.jsonError(refusal.status, refusal.message(words)), result: .refused(refusal))
    }
}

/// An SDK call `api serve` answered 200.
public enum SDKCall: Sendable {
    /// `--bootstrap live`: the live bootstrap, passed on (its size).
    case bootstrapPassedOn(bytes: Int)
    /// `POST /api/v1/sdk/identify`, accepted (the body's size).
    case identified(bytes: Int)

    var note: String {
        switch self {
        case .bootstrapPassedOn(let bytes): return "live, passed on (\(bytes) bytes)"
        case .identified(let bytes): return "accepted (\(bytes) bytes)"
        }
    }
}

/// Why `--bootstrap live` did not pass the live bootstrap on.
public enum LiveBootstrapRefusal: Sendable {
    /// 502: the live API could not be reached or answered badly (the CLI's words).
    case failed(String)
    /// The live API's own refusal, passed on with its status and body.
    case refused(status: Int)
    /// 502: the answer would not decode on devices (what is wrong with it).
    case undecodable([String])
}
