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

    static func load() throws(HTTPError) {
        try HTTPError.lifting { () throws(Failure) in try SystemLibrary.zlib.load { appdna_zlib_load($0, $1) } }
    }
}
