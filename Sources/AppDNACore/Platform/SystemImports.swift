// The core talks to the operating system through the C library directly instead of
// Foundation: loading Foundation doubles the start-up time of a one-shot command such as
// `appdna bucket`, and everything needed here (files, environment, clocks) is a thin layer.
#if canImport(Glibc)
@_exported import Glibc
#elseif canImport(Musl)
@_exported import Musl
#elseif canImport(Darwin)
@_exported import Darwin
#endif
