/// The checks `bundle fetch` makes before it writes a bundle: what would make the SDK load
/// nothing or assign users wrongly. (`bundle validate` has the full rule set; this is the
/// minimum that must hold for a bundle to replace the one in the app.)
public enum BundleFetchChecks {
    public struct Finding: Sendable, Equatable, CustomStringConvertible {
        /// RFC 6901 pointer into the document as received.
        public var pointer: String
        public var message: String
        public var description: String { "\(pointer.isEmpty ? "/" : pointer): \(message)" }
    }

    /// The errors in `document` (empty when it may be written).
    public static func errors(_ document: JSONDocument) -> [Finding] {
        var findings: [Finding] = []
        for duplicate in document.duplicateKeys {
            findings.append(Finding(pointer: duplicate.objectPointer.description,
                                    message: "the key \"\(duplicate.key)\" appears twice (line \(duplicate.first.line) and \(duplicate.duplicate.line)); readers disagree on which wins"))
        }
        let root = document.root
        guard root.kind == .object else {
            findings.append(Finding(pointer: "", message: "the bundle is a JSON \(root.kind), not an object"))
            return findings
        }
        if let version = root["bundle_version"] {
            if !(version.kind == .number && version.isInteger && (version.int64 ?? -1) >= 0) {
                findings.append(Finding(pointer: "/bundle_version", message: "bundle_version must be an integer >= 0"))
            }
        } else {
            findings.append(Finding(pointer: "/bundle_version", message: "bundle_version is missing"))
        }
        if let content = root["content"], content.kind != .object {
            findings.append(Finding(pointer: "/content", message: "content must be an object"))
        }
        let wrapped = BundleFileShape.isWrapped(root)
        let base = wrapped ? "/content/experiments" : "/experiments"
        if let section = wrapped ? root["content"]?["experiments"] : root["experiments"], section.kind != .object {
            findings.append(Finding(pointer: base, message: "experiments must be an object"))
        }
        guard let experiments = BundleExperiments.map(in: root) else { return findings }
        let nested = experiments.index != (wrapped ? root["content"]?["experiments"] : root["experiments"])?.index
        let prefix = nested ? base + "/experiments" : base
        // Pointers are built only for findings: a 5 MB bundle has tens of thousands of variants.
        for (id, _, experiment) in experiments.members {
            func path() -> String { prefix + "/" + escape(id) }
            guard experiment.kind == .object else {
                findings.append(Finding(pointer: path(), message: "the experiment is a JSON \(experiment.kind), not an object"))
                continue
            }
            if let allocation = experiment["traffic_allocation"], !allocation.isNull {
                if !(allocation.double.map { $0 >= 0 && $0 <= 1 } ?? false) {
                    findings.append(Finding(pointer: path() + "/traffic_allocation", message: "traffic_allocation must be a number in 0..1"))
                }
            }
            guard let variants = experiment["variants"], variants.kind == .array, variants.count > 0 else {
                findings.append(Finding(pointer: path() + "/variants", message: "variants must be a non-empty array"))
                continue
            }
            var ids: [String] = []
            var sum = 0.0
            var weightsOK = true
            var i = 0
            for variant in variants.elements {
                defer { i += 1 }
                func vpath() -> String { path() + "/variants/\(i)" }
                guard variant.kind == .object else {
                    findings.append(Finding(pointer: vpath(), message: "the variant is a JSON \(variant.kind), not an object"))
                    weightsOK = false
                    continue
                }
                if let vid = variant["id"]?.string, !vid.isEmpty {
                    if ids.contains(vid) {
                        findings.append(Finding(pointer: vpath() + "/id", message: "variant id \"\(vid)\" is used twice"))
                    }
                    ids.append(vid)
                } else {
                    findings.append(Finding(pointer: vpath() + "/id", message: "the variant needs a non-empty string id"))
                }
                if let weight = variant["weight"]?.double, weight.isFinite, weight >= 0, weight <= 1 {
                    sum += weight
                } else {
                    findings.append(Finding(pointer: vpath() + "/weight", message: "weight must be a number in 0..1"))
                    weightsOK = false
                }
            }
            if weightsOK && abs(sum - 1) > 1e-9 {
                findings.append(Finding(pointer: path() + "/variants", message: "the weights sum to \(sum), not 1"))
            }
        }
        return findings
    }

    static func escape(_ token: String) -> String {
        var out = ""
        for c in token {
            switch c {
            case "~": out += "~0"
            case "/": out += "~1"
            default: out.append(c)
            }
        }
        return out
    }
}
