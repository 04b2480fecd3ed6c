/// One experiment as a config bundle describes it: what bucketing and eligibility need.
/// Read leniently (a wrong type reads as absent) because the eligibility rules, not this
/// reader, decide what a malformed field means (they fail closed, as devices do).
public struct ExperimentDefinition: Sendable {
    public let id: String
    public let salt: String
    public let status: String?
    public let platforms: [String]?
    /// `platforms` is there but is not a list of strings (`"platforms": "ios"`): devices read
    /// no platform list from it, so the experiment runs nowhere (fails closed).
    public let platformsAreMalformed: Bool
    public let variants: [(variant: String, weight: Double)]
    /// nil when absent (everyone); `.nan` when present but not a number (no one, like the SDK).
    public let trafficAllocation: Double?
    public let targeting: JSONValue?
    public let startedAtMs: Int64?

    /// `node` is the experiment object; `id` its key in the experiments map.
    public init(id: String, node: JSONNode) {
        self.id = id
        salt = node["salt"]?.string ?? ""
        status = node["status"]?.string
        let platformsNode = node["platforms"]
        platforms = platformsNode.flatMap { list in
            list.kind == .array ? list.elements.compactMap(\.string) : nil
        }
        platformsAreMalformed = platformsNode.map { list in
            list.kind != .null && (list.kind != .array || list.elements.contains { $0.kind != .string })
        } ?? false
        var variants: [(String, Double)] = []
        if let list = node["variants"], list.kind == .array {
            for (index, variant) in list.elements.enumerated() {
                let variantID = variant["id"]?.string ?? "#\(index)"
                variants.append((variantID, variant["weight"]?.double ?? 0))
            }
        }
        self.variants = variants
        if let allocation = node["traffic_allocation"], allocation.kind != .null {
            trafficAllocation = allocation.double ?? .nan
        } else {
            trafficAllocation = nil
        }
        targeting = node["targeting"].map(\.value)
        startedAtMs = node["started_at_ms"]?.int64
    }

    public var allocation: VariantAllocation {
        VariantAllocation(weights: variants)
    }
}
