import AppDNAServers

/// The lines `api serve` prints at start for the address it listens on (issue 51.5): how a
/// test build reaches it, on the SDK versions that can be pointed at another server at all,
/// and what a device does in the bootstrap mode. Every line is platform facts §7.
enum DeviceSetup {
    static func lines(mode: BootstrapMode, address: String, listensEverywhere: Bool, bundled: String?) -> [String] {
        // A phone cannot reach 0.0.0.0: it needs this machine's address on the network.
        let port = address.split(separator: ":").last.map(String.init) ?? ""
        let url = listensEverywhere ? "http://MACHINE-IP:" + port : address
        let scheme = url.hasPrefix("http://") ? "http:" : "https:"
        let rest = url.dropFirst(scheme.count + 2)
        var lines = [
            "point a test build here (the SDK configured for sandbox; docs/device-variants.md):",
            "  iOS SDK 1.0.82+, Info.plist: <key>AppDNABaseURLOverride</key><string>\(url)</string>",
            "  iOS, from an .xcconfig (// starts a comment there): APPDNA_BASE_URL_OVERRIDE = \(scheme)/$()/\(rest)",
            "  Android SDK 1.0.54+, debuggable build, AndroidManifest.xml: <meta-data android:name=\"ai.appdna.sdk.BASE_URL_OVERRIDE\" android:value=\"\(url)\"/>",
        ]
        if scheme == "http:" {
            lines.append("  plain http: iOS needs NSAllowsLocalNetworking (App Transport Security), Android a debug usesCleartextTraffic or network security config")
        }
        if listensEverywhere { lines.append("  MACHINE-IP: this machine's address on the network the device is on") }
        switch mode {
        case .local:
            lines.append("bootstrap: local: GET /api/v1/sdk/bootstrap answers 403, the SDK stops retrying and runs on its cache, else its bundled appdna-config.json")
            if let bundled {
                lines.append("  the served bundle is written to \(bundled); a device loads it on a fresh install, or with the cache removed before configure():")
                lines.append("  iOS: UserDefaults.standard.removePersistentDomain(forName: \"ai.appdna.sdk.config\")")
                lines.append("  Android: getSharedPreferences(\"ai.appdna.sdk\", Context.MODE_PRIVATE).let { p -> p.edit().apply { p.all.keys.filter { it.startsWith(\"cache_\") }.forEach { remove(it) } }.apply() }")
            }
        case .live:
            lines.append("bootstrap: live: devices get the live API's bootstrap and read their real config from Firestore")
        }
        lines.append("any SDK version: force a variant with identify(id), an id from appdna bucket --force-variant (or POST /api/identity on --inspect)")
        return lines
    }
}
