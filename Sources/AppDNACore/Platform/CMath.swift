#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The C library's mathematics the standard library lacks (no Foundation here): the natural
/// logarithm, the exponential and the log-gamma function (the sample-ratio test's p-value).
public enum CMath {
    public static func log(_ x: Double) -> Double {
        #if canImport(Glibc)
        Glibc.log(x)
        #elseif canImport(Musl)
        Musl.log(x)
        #elseif canImport(Darwin)
        Darwin.log(x)
        #endif
    }

    public static func exp(_ x: Double) -> Double {
        #if canImport(Glibc)
        Glibc.exp(x)
        #elseif canImport(Musl)
        Musl.exp(x)
        #elseif canImport(Darwin)
        Darwin.exp(x)
        #endif
    }

    /// ln |Γ(x)|.
    public static func logGamma(_ x: Double) -> Double { lgamma(x) }
}
