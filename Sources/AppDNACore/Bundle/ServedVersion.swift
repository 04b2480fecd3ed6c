/// The `bundle_version` `api serve` gives the bundle it serves: the source's plus the changes
/// made (so an override raises it and a client comparing `/config-bundle/version`, such as
/// `bundle fetch --check` in CI, fetches again; no SDK calls it: platform facts §7), but
/// never lower than one already served, and never one already served with other bytes. The
/// source can go back (a live bundle rolled back from 10 to 5, a file edited) or change
/// without a new version; the state's `served` mark (version and digest of the last bundle
/// served) is what rules that out, across restarts too.
public enum ServedVersion {
    /// The version to serve and its bytes. `render(version)` gives the bytes for a version;
    /// `candidate` is the source's plus the changes. When the candidate is not above the last
    /// served version, the last one is kept if its bytes come out the same, else the one after.
    public static func choose(candidate: Int64, last: OverrideState.ServedMark?,
                              render: (Int64) throws(Failure) -> [UInt8]) throws(Failure) -> (version: Int64, bytes: [UInt8], mark: OverrideState.ServedMark) {
        if let last, candidate <= last.version {
            let same = try render(last.version)
            if digest(same) == last.sha256 { return (last.version, same, last) }
            let (next, overflow) = last.version.addingReportingOverflow(1)
            guard !overflow else { throw Failure(.malformedInput, "bundle_version \(last.version) was served: there is no version after it") }
            let bytes = try render(next)
            return (next, bytes, OverrideState.ServedMark(version: next, sha256: digest(bytes)))
        }
        let bytes = try render(candidate)
        return (candidate, bytes, OverrideState.ServedMark(version: candidate, sha256: digest(bytes)))
    }

    /// The SHA-256 of `bytes`, in lowercase hex.
    public static func digest(_ bytes: [UInt8]) -> String {
        Hex.encode(bytes.withUnsafeBytes { SHA256.hash($0) })
    }
}
