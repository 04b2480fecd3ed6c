/// Variants and weights typed on the command line: `control=0.5,streamlined=0.5`. Errors say
/// what is wrong with the list; the CLI adds the name of the flag that gave it.
public enum VariantWeights {
    /// Tolerance for the weights' sum, as `bundle validate` uses it.
    public static let sumTolerance = 1e-9

    public static func parse(_ text: String) throws(Failure) -> [(variant: String, weight: Double)] {
        var result: [(variant: String, weight: Double)] = []
        let entries = text.split(separator: ",", omittingEmptySubsequences: false)
        for entry in entries {
            guard let equals = entry.firstIndex(of: "=") else {
                throw Failure(.usage, "'\(entry)' has no weight; expected ID=WEIGHT, e.g. control=0.5,variant_b=0.5")
            }
            let id = String(entry[..<equals])
            let weightText = entry[entry.index(after: equals)...]
            guard !id.isEmpty else {
                throw Failure(.usage, "'\(entry)' has no variant id; expected ID=WEIGHT")
            }
            guard let weight = Double(weightText), weight.isFinite else {
                throw Failure(.usage, "weight of '\(id)' is not a number: '\(weightText)'")
            }
            guard (0...1).contains(weight) else {
                throw Failure(.usage, "weight of '\(id)' is \(weightText); weights are between 0 and 1")
            }
            if result.contains(where: { ByteIdentity.same($0.variant, id) }) {  // NFC and NFD are two variants to devices
                throw Failure(.usage, "variant '\(id)' is listed twice")
            }
            result.append((id, weight))
        }
        let sum = result.reduce(0) { $0 + $1.weight }
        guard abs(sum - 1) <= sumTolerance else {
            throw Failure(.usage, "weights sum to \(sum), not 1")
        }
        return result
    }
}
