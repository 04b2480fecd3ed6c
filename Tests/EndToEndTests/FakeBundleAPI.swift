import Foundation
import LoopbackHTTPServer

/// A loopback AppDNA API for the fetch tests: serves one live bundle_version on both bundle
/// endpoints, or answers every request with the same scripted failure.
enum FakeBundleAPI {
    /// Nothing listens on the discard port of the loopback interface: connections are refused.
    static let refusedURL = "http://127.0.0.1:9"

    static func serving(version: Int) throws -> LoopbackHTTPServer {
        try LoopbackHTTPServer { request, _ in
            if request.path == "/api/v1/sdk/config-bundle/version" {
                return .init(json: #"{"bundle_version": \#(version), "sdk_min_version": "1.0.0"}"#)
            }
            if request.path == "/api/v1/sdk/config-bundle" {
                return .init(json: BundleFetchEndToEndTests.apiBundle(version: version))
            }
            return .init(status: 404)
        }
    }

    static func failing(_ reply: LoopbackHTTPServer.Reply) throws -> LoopbackHTTPServer {
        try LoopbackHTTPServer { _, _ in reply }
    }

    /// A valid bundle file in the SDK shape with `version`, as fetch writes it.
    static func bundleFile(version: Int) -> Data {
        Data("{\n  \"bundle_version\": \(version),\n  \"experiments\": {}\n}\n".utf8)
    }
}
