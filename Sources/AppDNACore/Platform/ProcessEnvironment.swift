/// The process environment as a dictionary, read once from `environ`.
public enum ProcessEnvironment {
    public static func current() -> [String: String] {
        var result: [String: String] = [:]
        #if canImport(Darwin)
        guard let entries = _NSGetEnviron()?.pointee else { return result }
        #else
        guard let entries = environ as UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? else { return result }
        #endif
        var index = 0
        while let entry = entries[index] {
            let text = String(cString: entry)
            if let equals = text.firstIndex(of: "=") {
                result[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            index += 1
        }
        return result
    }

    /// One variable, without building the whole dictionary.
    public static func value(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }
}
