import AppDNACore
import CZlibLoader

/// Raw DEFLATE (RFC 1951: no zlib header, no Adler-32 trailer), the encoding of event ingest
/// bodies despite their `Content-Encoding: deflate` header. zlib is loaded at first use.
public enum RawDeflate {
    public static func compress(_ bytes: [UInt8], level: Int32 = 6) throws(HTTPError) -> [UInt8] {
        try load()
        var output: UnsafeMutablePointer<UInt8>? = nil
        var count = 0
        let rc = bytes.withUnsafeBufferPointer { appdna_deflate_raw($0.baseAddress, $0.count, level, &output, &count) }
        guard rc == 0, let output else { throw HTTPError(.internalError, "zlib could not compress a request body") }
        defer { appdna_zlib_free(output) }
        return Array(UnsafeBufferPointer(start: output, count: count))
    }

    /// Why a body could not be inflated.
    public enum InflateFailure: Error, Equatable, CustomStringConvertible {
        /// Not one complete raw DEFLATE stream (or zlib could not be loaded).
        case notRawDeflate
        /// It inflates to more than the limit: inflating stopped there (a deflate bomb costs
        /// the limit, not what it would expand to).
        case overLimit

        public var description: String {
            self == .overLimit ? "it inflates to more than the limit" : "not one complete raw DEFLATE stream"
        }
    }

    /// The inflated bytes of one complete raw DEFLATE stream, at most `limit` of them.
    public static func inflate(_ bytes: [UInt8], limit: Int = 256 << 20) throws(InflateFailure) -> [UInt8] {
        var output: UnsafeMutablePointer<UInt8>? = nil
        var count = 0
        let rc = bytes.withUnsafeBufferPointer { appdna_inflate_raw($0.baseAddress, $0.count, limit, &output, &count) }
        if rc == -2 { throw .overLimit }
        guard rc == 0, let output else { throw .notRawDeflate }
        defer { appdna_zlib_free(output) }
        return Array(UnsafeBufferPointer(start: output, count: count))
    }

    /// What a body inflates to, learned without holding it (`measure`): its size, and the most
    /// JSON values and keys those bytes can parse to (one, plus one per `[`, `{`, `,` and `:`,
    /// counted anywhere: each value but the first follows one of them).
    public struct Measure: Sendable, Equatable {
        public let bytes: Int
        public let nodeBound: Int
    }

    /// Inflates `bytes` through a small buffer and keeps nothing, so that a server can budget
    /// the memory before it holds any (`api serve`): a deflate bomb costs its inflating time,
    /// stopped at `limit`, and no memory.
    public static func measure(_ bytes: [UInt8], limit: Int) throws(InflateFailure) -> Measure {
        var size = 0, structural = 0
        let rc = bytes.withUnsafeBufferPointer { appdna_inflate_raw_measure($0.baseAddress, $0.count, max(limit, 0), &size, &structural) }
        if rc == -2 { throw .overLimit }
        guard rc == 0 else { throw .notRawDeflate }
        return Measure(bytes: size, nodeBound: structural + 1)
    }

    /// The inflated bytes of `bytes`, which `measure` found inflate to `measured`: allocated
    /// once at that size (no buffer grown and copied on the way).
    public static func inflate(_ bytes: [UInt8], measured: Measure) throws(InflateFailure) -> [UInt8] {
        var rc: Int32 = -1
        // One spare byte: zlib may need room for one more to see the end of the stream.
        let inflated = [UInt8](unsafeUninitializedCapacity: measured.bytes + 1) { buffer, count in
            var produced = 0
            rc = bytes.withUnsafeBufferPointer { appdna_inflate_raw_into($0.baseAddress, $0.count, buffer.baseAddress, buffer.count, &produced) }
            count = rc == 0 ? produced : 0
        }
        guard rc == 0, inflated.count == measured.bytes else { throw rc == -2 ? .overLimit : .notRawDeflate }
        return inflated
    }

    static func load() throws(HTTPError) {
        try HTTPError.lifting { () throws(Failure) in try SystemLibrary.zlib.load { appdna_zlib_load($0, $1) } }
    }
}
