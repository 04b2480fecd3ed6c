import AppDNACore

/// Which CA certificates TLS trusts, from the variables the `curl` command reads (libcurl
/// itself reads none of them): `CURL_CA_BUNDLE`, else `SSL_CERT_FILE`, a PEM file of
/// certificates (CURLOPT_CAINFO); `SSL_CERT_DIR`, a directory of hashed certificates
/// (CURLOPT_CAPATH). Behind a proxy that intercepts TLS they point at the proxy's CA. Unset or
/// empty: the system's store.
public struct TLSTrust: Sendable, Equatable {
    public static let variables = ["CURL_CA_BUNDLE", "SSL_CERT_FILE", "SSL_CERT_DIR"]

    public var certificateFile: String?
    public var certificateDirectory: String?

    public init(certificateFile: String? = nil, certificateDirectory: String? = nil) {
        self.certificateFile = certificateFile
        self.certificateDirectory = certificateDirectory
    }

    /// Reads and checks the variables: a file that does not exist or holds no PEM certificate,
    /// or a directory that is not one, is a configuration error (78) naming the variable,
    /// instead of a TLS failure later that would not say why.
    public init(environment: [String: String]) throws(HTTPError) {
        func value(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        if let name = ["CURL_CA_BUNDLE", "SSL_CERT_FILE"].first(where: { value($0) != nil }), let path = value(name) {
            try Self.checkCertificateFile(path, variable: name)
            certificateFile = path
        }
        if let path = value("SSL_CERT_DIR") {
            var reason: String?
            do {
                if try FileStatus.of(path: path).kind != .directory { reason = "not a directory" }
            } catch {
                reason = error.description
            }
            if let reason {
                throw HTTPError(.configuration, "SSL_CERT_DIR=\(path): \(reason)",
                                hint: "SSL_CERT_DIR names a directory of CA certificates; unset it to use the system's")
            }
            certificateDirectory = path
        }
    }

    static func checkCertificateFile(_ path: String, variable: String) throws(HTTPError) {
        let bytes = try HTTPError.lifting { () throws(Failure) in
            try FileReading.readSettingFile(path, holding: "the CA certificates", setting: "\(variable)=\(path)",
                                            hint: "point \(variable) at a PEM file of CA certificates, or unset it to use the system's")
        }
        let marker = Array("-----BEGIN ".utf8)
        let isPEMCertificate = bytes.indices.contains { index in
            bytes[index...].starts(with: marker) && {
                let rest = bytes[(index + marker.count)...].prefix(24)
                return rest.starts(with: Array("CERTIFICATE-----".utf8)) || rest.starts(with: Array("TRUSTED CERTIFICATE-----".utf8))
            }()
        }
        guard isPEMCertificate else {
            throw HTTPError(.configuration, "\(variable)=\(path): no PEM certificate in the file (no -----BEGIN CERTIFICATE----- line)",
                            hint: "point \(variable) at a PEM file of CA certificates, or unset it to use the system's")
        }
    }
}
