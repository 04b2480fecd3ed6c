#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The process environment as a dictionary, read once from `environ`.
public enum ProcessEnvironment {
    public static func current() -> [String: String] {
        var result: [String: String] = [:]
        #if canImport(Darwin)
        guard let entries = darwinEnvironment()?.pointee else { return result }
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

#if canImport(Darwin)
/// `char ***_NSGetEnviron(void)`, declared in Libc's include/crt_externs.h: Darwin's documented
/// way to the environment (`man 7 environ`; `environ` itself is not in its headers). Bound by
/// its symbol, as the Swift project's own tests do, so that the build does not depend on
/// whether the SDK's `Darwin` module exports crt_externs.h (which cannot be checked without a
/// Mac). A function with no arguments returning a pointer is called the same way by Swift and C.
@_silgen_name("_NSGetEnviron")
private func darwinEnvironment() -> UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>?
#endif
